import { internalsOf } from '../../src/host/host.js'
import { spawn } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { defineTool } from '../../src/contract/define-tool.js'
import type { Logger } from '../../src/contract/types.js'
import { createHost } from '../../src/host/create-host.js'
import { registry } from '../../src/registry/registry.js'
import type { Claim } from '../../src/store/coordination-store.js'
import { openStore } from '../../src/store/open-store.js'
import { RedisStore } from '../../src/store/redis-store.js'
import { readRedisUrl } from '../../src/store/redis-url.js'
import { hasRedis, startRedis, type TestRedis } from './redis-server.js'
import { describeStoreContract } from './store-contract.js'

const HOLDER = path.join(import.meta.dirname, '../fixtures/store/hold-redis-lease.ts')

function recordingLog(): Logger & { lines: string[]; infos: string[] } {
  const lines: string[] = []
  const infos: string[] = []
  const push = (m: string): void => void lines.push(m)
  return { lines, infos, debug() {}, info: (m) => void (push(m), infos.push(m)), warn: push, error: push }
}

const write = (target: string): Claim => ({ kind: 'scoped', touches: [{ target, label: target, isKey: false, access: 'write' }] })

describe('the Redis URL', () => {
  test.each([
    { setting: 'redis://:s3cret@cache:6379/2?lease_ms=5000', where: 'redis://cache:6379/2', leaseMs: 5000, prefix: 'toolhost:', url: 'redis://:s3cret@cache:6379/2' },
    { setting: 'rediss://user:pw@cache?prefix=team-a', where: 'rediss://cache', leaseMs: 10_000, prefix: 'team-a:', url: 'rediss://user:pw@cache' },
  ])('$setting is read without printing its credentials', ({ setting, ...expected }) => {
    expect(readRedisUrl(setting, 'config.yaml: store')).toEqual(expected)
  })

  test.each([
    { setting: 'redis://:pw@cache?lease_ms=10', message: /^config\.yaml: store: lease_ms must be an integer from 1000 to 300000, got "10"$/ },
    { setting: 'redis://:pw@/', message: /names no host|not a valid/ },
    { setting: 'redis://:pw@cache?prefix=a b', message: /prefix must be/ },
  ])('$setting fails start-up naming the key, never the password', ({ setting, message }) => {
    expect(() => readRedisUrl(setting, 'config.yaml: store')).toThrow(message)
    try {
      readRedisUrl(setting, 'config.yaml: store')
    } catch (error) {
      expect(String(error)).not.toMatch(/pw/)
    }
  })

  test('openStore makes a RedisStore of a redis:// setting (nothing connects until open)', () => {
    const store = openStore({ setting: 'redis://:pw@127.0.0.1:1/0', where: 'config.yaml: store', root: '/nowhere', log: recordingLog() })
    expect(store).toBeInstanceOf(RedisStore)
    expect(store.scope).toBe('cluster')
    expect(store.where).toBe('redis://127.0.0.1:1/0')
  })
})

describe.skipIf(!hasRedis)('Redis store against a redis-server of its own (reason: needs redis-server; sudo apt-get install -y redis-server enables it, npm test as root installs it)', () => {
  let redis: TestRedis
  const stores: RedisStore[] = []
  let prefixes = 0
  const storeOn = (log: Logger = recordingLog(), query = ''): RedisStore => {
    const store = new RedisStore({ url: `${redis.url}/0?prefix=t${prefixes}${query}`, log })
    stores.push(store)
    return store
  }

  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    for (const store of stores) await store.close()
    await redis?.stop()
  })

  describeStoreContract('redis', async () => {
    prefixes++
    const a = storeOn()
    const b = storeOn()
    await Promise.all([a.open(), b.open()])
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) }
  })

  test('a host that closes gives back its rate places too', async () => {
    prefixes++
    const a = storeOn()
    const b = storeOn()
    await Promise.all([a.open(), b.open()])
    const rule = { key: 'one_at_a_time', limit: { concurrency: 1 } }
    await a.takeRateSlot(rule)
    let waited = ''
    const next = b.takeRateSlot(rule, { onWait: (reason) => void (waited = reason) })
    await vi.waitFor(() => expect(waited).toMatch(/^1 of 1 at once are running on the hosts sharing redis:\/\/127\.0\.0\.1:\d+\/0$/))
    await a.close()
    b.releaseRateSlot(await next)
  })

  test('a host killed with SIGKILL loses its leases within lease_ms; a later lease carries a larger fencing token', async () => {
    prefixes++
    const url = `${redis.url}/0?prefix=t${prefixes}&lease_ms=1000`
    const holder = spawn(process.execPath, ['--import', 'tsx', HOLDER, url], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    holder.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    try {
      await vi.waitFor(() => expect(out).toMatch(/token \d+/), { timeout: 15_000, interval: 20 })
      const held = Number(/token (\d+)/.exec(out)![1])
      const b = new RedisStore({ url, log: recordingLog() })
      stores.push(b)
      const waits: string[] = []
      const wanted = b.acquire({ call: 'b1', claim: write('/ws/f') }, { onWait: (w) => waits.push(w[0]!.reason) })
      wanted.catch(() => {})
      await vi.waitFor(() => expect(waits[0]).toMatch(/^writes \/ws\/f, which held on host \d+ writes \(f\)$/), { timeout: 5000, interval: 10 })
      holder.kill('SIGKILL')
      const lease = await wanted
      expect(lease.token).toBeGreaterThan(held)
    } finally {
      holder.kill('SIGKILL')
    }
  })

  test('duration estimates are shared through Redis: merged by samples, malformed ones skipped, and a host that leaves hands its own to the next host', async () => {
    prefixes++
    const a = storeOn()
    const b = storeOn()
    await Promise.all([a.open(), b.open()])
    await a.shareEstimates([{ name: 'build', ms: 10, samples: 1 }, { name: 'bad', ms: Number.NaN, samples: 1 }])
    await b.shareEstimates([{ name: 'build', ms: 30, samples: 3 }, { name: 'lint', ms: 5, samples: 2 }])
    expect((await a.sharedEstimates()).sort((x, y) => x.name.localeCompare(y.name))).toEqual([{ name: 'build', ms: 25, samples: 4 }, { name: 'lint', ms: 5, samples: 2 }])

    prefixes++
    registry.clear()
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-redis-estimates-')))
    const config = { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, dispatch: { duration_estimates: '' }, store: `${redis.url}/0?prefix=t${prefixes}` }
    const first = await createHost({ root, loadPlugins: false, env: {}, log: recordingLog(), config })
    internalsOf(first).estimates.take([{ name: 'deploy', ms: 40, samples: 2 }])
    await first.close()
    const second = await createHost({ root, loadPlugins: false, env: {}, log: recordingLog(), config })
    expect(internalsOf(second).estimates.known()).toEqual([{ name: 'deploy', ms: 40, samples: 2 }])
    await second.close()
    rmSync(root, { recursive: true, force: true })
  })

  test('hosts on one Redis: a write waits for the other host\'s write; with Redis down a call fails in its slot with E_STORE_UNAVAILABLE and nothing runs', async () => {
    prefixes++
    registry.clear()
    const ran: string[] = []
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    registry.register(defineTool({ name: 'write_at', description: 'writes a path (test)', parameters: { type: 'object', properties: { path: { type: 'string' }, tag: { type: 'string' } }, required: ['path', 'tag'], additionalProperties: false }, pathScoped: true, readOnly: () => false, handler: async (args: { tag: string }) => {
      ran.push(`${args.tag} start`)
      if (args.tag === 'a1') await gate
      ran.push(`${args.tag} end`)
      return args.tag
    } }))
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-redis-host-')))
    const config = { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, dispatch: { duration_estimates: '' }, store: `${redis.url}/0?prefix=t${prefixes}` }
    const quiet = recordingLog()
    const [a, b] = await Promise.all([createHost({ root, loadPlugins: false, env: {}, log: quiet, config }), createHost({ root, loadPlugins: false, env: {}, log: quiet, config })])
    try {
      const waited = new Promise<string>((resolve) => b.onEvent((e) => void (e.type === 'waiting' && e.on.some((w) => w.host !== undefined) && resolve(e.on[0]!.reason))))
      const first = a.run([{ id: 'a1', name: 'write_at', arguments: { path: 'f', tag: 'a1' } }])
      await vi.waitFor(() => expect(ran).toEqual(['a1 start']))
      const second = b.run([{ id: 'b1', name: 'write_at', arguments: { path: 'f', tag: 'b1' } }])
      expect(await waited).toMatch(/^writes f, which a1 on host \d+ writes too$/)
      open()
      await Promise.all([first, second])
      expect(ran).toEqual(['a1 start', 'a1 end', 'b1 start', 'b1 end'])
      await redis.stop()
      const [down] = await a.run([{ id: 'a2', name: 'write_at', arguments: { path: 'f', tag: 'a2' } }])
      expect(down).toMatchObject({ ok: false, error: { code: 'E_STORE_UNAVAILABLE' } })
      expect(ran).not.toContain('a2 start')
    } finally {
      await redis.start()
      await Promise.all([a.close(), b.close()])
      registry.clear()
      rmSync(root, { recursive: true, force: true })
    }
  })

  test('Redis stopped: calls fail with E_STORE_UNAVAILABLE, the host says so once, and it recovers when Redis is back', async () => {
    prefixes++
    const log = recordingLog()
    const a = storeOn(log)
    await a.open()
    a.release(await a.acquire({ call: 'a1', claim: write('/ws/f') }))
    const kept = await a.acquire({ call: 'a-running', claim: write('/ws/g') })
    await redis.stop()
    await expect(a.acquire({ call: 'a2', claim: write('/ws/f') })).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE', message: expect.stringContaining(`${redis.url}/0`) })
    await expect(a.consumeOnce('x', 1000)).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' })
    await expect(a.takeRateSlot({ key: 'r', limit: { concurrency: 1 } })).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' })
    await redis.start()
    await vi.waitFor(async () => expect(await a.acquire({ call: 'a3', claim: write('/ws/f') })).toMatchObject({ token: expect.any(Number) }), { timeout: 10_000, interval: 100 })
    // Said once, whatever failed meanwhile (the failed calls' give-backs included); and Redis came
    // back empty, so the lease still out went with it: said too.
    expect(log.lines.filter((line) => !/reachable again/.test(line))).toEqual([
      expect.stringMatching(/cannot be reached.*E_STORE_UNAVAILABLE/),
      expect.stringMatching(/had lapsed .* the 1 call\(s\) it had running are no longer reserved$/),
    ])
    a.release(kept)
    // Waits wake on pub/sub: the store is subscribed again after the restart (polling is only the fallback).
    const probe = new Redis(redis.url)
    try {
      await vi.waitFor(async () => expect(await probe.pubsub('NUMSUB', `t${prefixes}:wake`)).toEqual([`t${prefixes}:wake`, 1]), { timeout: 10_000, interval: 50 })
    } finally {
      probe.disconnect()
    }
    expect(log.lines.some((line) => /reachable again/.test(line))).toBe(true)
    // The outage was told above info; its end is told as loudly (issue 31: it was only at info).
    expect(log.infos.filter((line) => /reachable again/.test(line))).toEqual([])
  })

  test('Redis down at start-up: open() reports it and resolves, calls fail until Redis comes, then the host joins', async () => {
    prefixes++
    await redis.stop()
    const log = recordingLog()
    const a = storeOn(log)
    try {
      await a.open()
      expect(log.lines.filter((line) => /cannot be reached/.test(line))).toHaveLength(1)
      await expect(a.acquire({ call: 'a1', claim: write('/ws/f') })).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' })
    } finally {
      await redis.start()
    }
    await vi.waitFor(async () => expect(await a.consumeOnce(`joined-${Math.random()}`, 1000)).toBe(true), { timeout: 10_000, interval: 100 })
    expect(log.lines.some((line) => /reachable again/.test(line))).toBe(true)
  })
})
