/**
 * Three `toolhost serve --http` instances on one workspace root, sharing a Redis store (a
 * redis-server the test starts) and one requestState key, behind nginx round-robin configured as
 * docs/deploy.md says; clients are the MCP SDK v2 client (2026-07-28, stateless) through nginx.
 * Every answer names the instance that gave it (X-Upstream). The handlers stamp their start and end
 * with the machine's wall clock (test/fixtures/store/plugins/): the stamps alone prove who ran when.
 * Waits are driven by gate files and by what the instances log (TOOLHOST_LOG=debug), never sleeps.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { freePort, hasRedis, startRedis, type TestRedis } from '../store/redis-server.js'
import { REPO, TOOLHOST_CLI } from '../toolhost-cli.js'
import { hasNginx, startNginx, type TestNginx } from './nginx-server.js'

const PLUGINS = path.join(REPO, 'test/fixtures/store/plugins')
// Short, so the kill -9 case waits little; long enough that a loaded machine's stalls do not lapse a live session.
const LEASE_MS = 3000
const TOKEN = randomBytes(24).toString('hex')

interface Stamp {
  tag: string
  event: 'start' | 'end'
  pid: number
  at: number
}

interface Instance {
  child: ChildProcessWithoutNullStreams
  address: string
  stderr: () => string
}

let base: string
let root: string
let stamps: string
let redis: TestRedis
let nginx: TestNginx
let publicUrl: string
const instances: Instance[] = []
const clients: Client[] = []

const readStamps = (): Stamp[] => readFileSync(stamps, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Stamp)
const stampOf = (tag: string, event: Stamp['event']): Stamp | undefined => readStamps().find((s) => s.tag === tag && s.event === event)
const until = (check: () => void): Promise<void> => vi.waitFor(check, { timeout: 30_000, interval: 20 })
const text = (result: unknown): string => ((result as { content?: Array<{ text?: string }> }).content?.[0]?.text ?? '')

/** No two of `tags`' runs overlap: sorted by start, each starts at or after the one before ended. */
function expectNoOverlap(tags: readonly string[]): void {
  const runs = tags.map((tag) => ({ tag, start: stampOf(tag, 'start')!, end: stampOf(tag, 'end')! })).sort((a, b) => a.start.at - b.start.at)
  for (const run of runs) expect(run.end, `${run.tag} ended`).toBeDefined()
  for (let i = 1; i < runs.length; i++) expect(runs[i]!.start.at, `${runs[i]!.tag} starts after ${runs[i - 1]!.tag} ended`).toBeGreaterThanOrEqual(runs[i - 1]!.end.at)
}

function startInstance(config: string, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, [TOOLHOST_CLI, 'serve', '--http', '0', '--root', root, '--config', config], { cwd: base, env: { ...process.env, ...env } })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout.resume()
  return new Promise((resolve, reject) => {
    child.stderr.on('data', () => {
      const m = /MCP Streamable HTTP at http:\/\/(\S+?)\/mcp/.exec(stderr)
      if (m) resolve({ child, address: m[1]!, stderr: () => stderr })
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
  })
}

/** A v2 client through nginx; `upstreams` receives the instance that answered each request. */
async function clientThroughNginx(upstreams: string[] = []): Promise<Client> {
  const client = new Client({ name: 'behind-nginx', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } })
  const transport = new StreamableHTTPClientTransport(new URL(publicUrl), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    fetch: async (url, init) => {
      const response = await fetch(url, init)
      upstreams.push(response.headers.get('x-upstream') ?? '')
      return response
    },
  })
  await client.connect(transport)
  clients.push(client)
  return client
}

const instanceOf = (pid: number): Instance => instances.find((i) => i.child.pid === pid)!

describe.skipIf(!hasRedis || !hasNginx)('three serve --http instances on one root, on Redis, behind nginx (reason: needs redis-server and nginx; sudo apt-get install -y redis-server nginx enables it, npm test as root installs them)', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-behind-nginx-')))
    root = path.join(base, 'root')
    mkdirSync(root)
    stamps = path.join(base, 'stamps.jsonl')
    writeFileSync(stamps, '')
    redis = await startRedis()
    const nginxPort = await freePort()
    publicUrl = `http://127.0.0.1:${nginxPort}/mcp`
    const config = path.join(base, 'config.yaml')
    writeFileSync(config, `plugins:
  builtins: false
  dirs: [${JSON.stringify(PLUGINS)}]
env_file: ""
permissions:
  mode: auto
  ask: [stamp_approved]
  audit_log: ""
dispatch:
  duration_estimates: ""
rate_limits:
  stamp_free: { concurrency: 1 }
serve:
  public_url: ${publicUrl}
  auth:
    static_token_env: TOOLHOST_TEST_TOKEN
`)
    const env = {
      TOOLHOST_STORE: `${redis.url}/0?lease_ms=${LEASE_MS}`,
      TOOLHOST_MCP_STATE_KEY: randomBytes(32).toString('hex'),
      TOOLHOST_TEST_TOKEN: TOKEN,
      TOOLHOST_LOG: 'debug',
      STAMP_LOG: stamps,
    }
    instances.push(...(await Promise.all([0, 1, 2].map(() => startInstance(config, env)))))
    nginx = await startNginx(path.join(base, 'nginx'), nginxPort, instances.map((i) => i.address))
  }, 120_000)

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})))
    await Promise.all(instances.map((i) => new Promise<void>((resolve) => {
      if (i.child.exitCode !== null || i.child.signalCode !== null) return resolve()
      i.child.once('exit', () => resolve())
      i.child.kill('SIGTERM')
    })))
    await nginx?.stop()
    await redis?.stop()
    rmSync(base, { recursive: true, force: true })
  })

  test('conflicting path-scoped writes sent through nginx never overlap across instances', async () => {
    const gate = path.join(base, 'gate-w1')
    const client = await clientThroughNginx()
    const first = client.callTool({ name: 'stamp_write', arguments: { tag: 'w1', path: 'shared.txt', gate } })
    await until(() => expect(stampOf('w1', 'start')).toBeDefined())
    const holder = stampOf('w1', 'start')!.pid
    const others = await Promise.all([0, 1, 2, 3].map(() => clientThroughNginx()))
    const rest = others.map((c, i) => c.callTool({ name: 'stamp_write', arguments: { tag: `w${i + 2}`, path: 'shared.txt' } }))
    // The other instances' calls wait for w1's lease (their hosts say so), and none has started.
    await until(() => expect(instances.filter((i) => i.child.pid !== holder && /writes shared\.txt, which \S+ on host \d+ writes too/.test(i.stderr())).length).toBeGreaterThanOrEqual(1))
    expect(readStamps().filter((s) => s.tag !== 'w1' && s.event === 'start')).toEqual([])
    writeFileSync(gate, '')
    const results = await Promise.all([first, ...rest])
    expect(results.map(text).sort()).toEqual(['w1', 'w2', 'w3', 'w4', 'w5'])
    const tags = ['w1', 'w2', 'w3', 'w4', 'w5']
    expectNoOverlap(tags)
    expect(new Set(tags.map((t) => stampOf(t, 'start')!.pid)).size, 'the calls ran on more than one instance').toBeGreaterThanOrEqual(2)
  })

  test('a rate rule (concurrency 1) holds across the instances, for calls on nothing in common', async () => {
    const gate = path.join(base, 'gate-r1')
    const client = await clientThroughNginx()
    const first = client.callTool({ name: 'stamp_free', arguments: { tag: 'r1', gate } })
    await until(() => expect(stampOf('r1', 'start')).toBeDefined())
    const holder = stampOf('r1', 'start')!.pid
    const others = await Promise.all([0, 1, 2, 3].map(() => clientThroughNginx()))
    const rest = others.map((c, i) => c.callTool({ name: 'stamp_free', arguments: { tag: `r${i + 2}` } }))
    await until(() => expect(instances.filter((i) => i.child.pid !== holder && /waits for a rate slot of stamp_free/.test(i.stderr())).length).toBeGreaterThanOrEqual(1))
    expect(readStamps().filter((s) => /^r[2-5]$/.test(s.tag))).toEqual([])
    writeFileSync(gate, '')
    await Promise.all([first, ...rest])
    const tags = ['r1', 'r2', 'r3', 'r4', 'r5']
    expectNoOverlap(tags)
    expect(new Set(tags.map((t) => stampOf(t, 'start')!.pid)).size).toBeGreaterThanOrEqual(2)
  })

  test('an approval asked on one instance is answered on another, and refused as replayed on the third', async () => {
    const upstreams: string[] = []
    const client = await clientThroughNginx(upstreams)
    const call = { name: 'stamp_approved', arguments: { tag: 'a1' } }
    let at = upstreams.length
    const asked = (await client.callTool(call, { allowInputRequired: true })) as unknown as { resultType: string; requestState: string }
    expect(asked.resultType).toBe('input_required')
    const askedBy = upstreams.slice(at)
    const retry = () => client.callTool({ ...call, inputResponses: { 'approve-1': { action: 'accept', content: { decision: 'allow-once' } } }, requestState: asked.requestState } as Parameters<Client['callTool']>[0], { allowInputRequired: true })
    at = upstreams.length
    expect(text(await retry())).toMatch(/^a1 on \d+$/)
    const answeredBy = upstreams.slice(at)
    at = upstreams.length
    await expect(retry()).rejects.toMatchObject({ data: { code: 'E_REQUEST_STATE_REPLAYED' } })
    const replayedTo = upstreams.slice(at)
    expect(askedBy).toHaveLength(1)
    expect(answeredBy).toHaveLength(1)
    expect(replayedTo).toHaveLength(1)
    expect(new Set([...askedBy, ...answeredBy, ...replayedTo]).size, `asked ${askedBy}, answered ${answeredBy}, replayed ${replayedTo}`).toBe(3)
    expect(readStamps().filter((s) => s.tag === 'a1' && s.event === 'start')).toHaveLength(1)
  })

  test('kill -9 one instance mid-call: the others keep serving, its lease lapses, the re-issued call is answered once', async () => {
    const client = await clientThroughNginx()
    const doomed = client.callTool({ name: 'stamp_write', arguments: { tag: 'k1', path: 'killed.txt', gate: path.join(base, 'never') } })
    doomed.catch(() => {})
    await until(() => expect(stampOf('k1', 'start')).toBeDefined())
    const victim = instanceOf(stampOf('k1', 'start')!.pid)
    victim.child.kill('SIGKILL')
    // The client's stream broke: its call fails, with no answer.
    await expect(doomed).rejects.toThrow()
    // It calls again (a new call on the same path): another instance runs it once its lease lapses.
    const again = client.callTool({ name: 'stamp_write', arguments: { tag: 'k2', path: 'killed.txt' } })
    // Meanwhile the others serve calls that need nothing the dead instance held.
    const other = await clientThroughNginx()
    expect(text(await other.callTool({ name: 'stamp_free', arguments: { tag: 'k-other' } }))).toMatch(/^k-other on \d+$/)
    expect(text(await again)).toBe('k2')
    expect(readFileSync(path.join(root, 'killed.txt'), 'utf8')).toBe('k2')
    expect(stampOf('k1', 'end')).toBeUndefined()
    expect(readStamps().filter((s) => s.tag === 'k2')).toHaveLength(2) // one start, one end: run once
    expect(stampOf('k2', 'start')!.pid).not.toBe(victim.child.pid)
  })
})
