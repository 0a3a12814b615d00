/**
 * Two hosts on one workspace root, in one process, each with its own local store over the root's
 * `.toolhost/store/` (as two processes would be): conflicting calls of different hosts never run
 * together, a never-parallel tool runs alone across hosts, a rate rule counts both hosts' calls, and
 * a host alone never asks the store. Driven by gates and by the `waiting` event that says a call
 * waits for the other host; the real two-process race is test/store/two-processes.test.ts.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { defineTool } from '../../../src/contract/define-tool.js'
import { createDeferred, type Deferred } from '../../../src/contract/deferred.js'
import { createHost } from '../../../src/host/create-host.js'
import type { Host } from '../../../src/host/host.js'
import type { Wait } from '../../../src/dispatch/schedule/scheduler-types.js'
import { registry } from '../../../src/registry/registry.js'
import type { LocalStore } from '../../../src/store/local-store.js'
import type { StoreState } from '../../../src/store/store-state.js'
// This file is about hosts coordinating through the local store: vitest.config.ts sets TOOLHOST_STORE=memory for the others.
delete process.env['TOOLHOST_STORE']

const params = { type: 'object', properties: { path: { type: 'string' }, tag: { type: 'string' } }, required: ['tag'], additionalProperties: false }
let root: string
let log: string[]
let gates: Map<string, Deferred<void>>
const hosts: Host[] = []

function gateOf(tag: string): Deferred<void> {
  let gate = gates.get(tag)
  if (gate === undefined) gates.set(tag, (gate = createDeferred<void>()))
  return gate
}

// Every tool logs its start and end; a call whose tag starts with `held` waits for its gate.
async function handler(args: Record<string, unknown>): Promise<string> {
  const tag = String(args.tag)
  log.push(`${tag} start`)
  if (tag.startsWith('held')) await gateOf(tag).promise
  log.push(`${tag} end`)
  return tag
}

function registerTools(): void {
  registry.register(defineTool({ name: 'write_at', description: 'writes a path (test)', parameters: params, pathScoped: true, readOnly: () => false, handler }))
  registry.register(defineTool({ name: 'alone', description: 'never-parallel (test)', parameters: params, neverParallel: true, handler }))
  registry.register(defineTool({ name: 'free', description: 'parallel-safe (test)', parameters: params, parallelSafe: true, handler }))
  registry.register(defineTool({ name: 'limited', description: 'rate-limited (test)', parameters: params, parallelSafe: true, handler }))
}

async function makeHost(config: Record<string, unknown> = {}): Promise<Host> {
  const host = await createHost({ root, loadPlugins: false, env: {}, log: { debug() {}, info() {}, warn() {}, error() {} }, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, dispatch: { duration_estimates: '' }, ...config } })
  hosts.push(host)
  return host
}

/** Two hosts on the root, both past the hand-over (each asks the store for every call). */
async function twoHosts(config: Record<string, unknown> = {}): Promise<[Host, Host]> {
  const a = await makeHost(config)
  const b = await makeHost(config)
  await vi.waitFor(() => expect([a, b].every((h) => (h.services.store as LocalStore).shared)).toBe(true), { timeout: 5000, interval: 10 })
  return [a, b]
}

/** Resolves with the waits of `id`'s first `waiting` event that names another host. */
function hostWaitOf(host: Host, id: string): Promise<Wait[]> {
  return new Promise((resolve) => {
    const stop = host.onEvent((e) => {
      if (e.type === 'waiting' && e.id === id && e.on.some((w) => w.host !== undefined)) {
        stop()
        resolve(e.on)
      }
    })
  })
}

function startedOf(host: Host, id: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = host.onEvent((e) => {
      if (e.type === 'started' && e.id === id) {
        stop()
        resolve()
      }
    })
  })
}

// Round trips of a host's store through the state file: the other host's waiting call has asked
// again meanwhile.
async function roundTrips(host: Host, n = 4): Promise<void> {
  for (let i = 0; i < n; i++) await host.services.store.consumeOnce(`round-${i}-${Math.random()}`, 1000)
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-cross-host-')))
  log = []
  gates = new Map()
  registry.clear()
  registerTools()
})

afterEach(async () => {
  for (const gate of gates.values()) gate.resolve()
  for (const host of hosts.splice(0)) await host.close()
  registry.clear()
  rmSync(root, { recursive: true, force: true })
})

describe('hosts sharing a root', () => {
  test("a write waits for another host's conflicting write to finish, told which call of which host it waits for", async () => {
    const [a, b] = await twoHosts()
    const started = startedOf(a, 'a1')
    const first = a.run([{ id: 'a1', name: 'write_at', arguments: { path: 'src/a.ts', tag: 'held-a1' } }])
    await started
    const waited = hostWaitOf(b, 'b1')
    const second = b.run([{ id: 'b1', name: 'write_at', arguments: { path: 'src', tag: 'b1' } }])
    const waits = await waited
    expect(waits).toEqual([{ id: 'a1', host: `host ${process.pid}`, reason: `writes src, which a1 on host ${process.pid} writes (src/a.ts)` }])
    await roundTrips(a)
    expect(log).toEqual(['held-a1 start'])
    gateOf('held-a1').resolve()
    const [[r1], [r2]] = await Promise.all([first, second])
    expect([r1!.ok, r2!.ok]).toEqual([true, true])
    expect(log).toEqual(['held-a1 start', 'held-a1 end', 'b1 start', 'b1 end'])
  })

  test('calls on different paths of two hosts run together', async () => {
    const [a, b] = await twoHosts()
    const started = startedOf(a, 'a1')
    const first = a.run([{ id: 'a1', name: 'write_at', arguments: { path: 'x', tag: 'held-a1' } }])
    await started
    const [r2] = await b.run([{ id: 'b1', name: 'write_at', arguments: { path: 'y', tag: 'b1' } }])
    expect(r2!.ok).toBe(true)
    gateOf('held-a1').resolve()
    await first
  })

  test("a never-parallel tool runs alone across hosts: the other host's free call waits for it", async () => {
    const [a, b] = await twoHosts()
    const started = startedOf(a, 'a1')
    const first = a.run([{ id: 'a1', name: 'alone', arguments: { tag: 'held-a1' } }])
    await started
    const waited = hostWaitOf(b, 'b1')
    const second = b.run([{ id: 'b1', name: 'free', arguments: { tag: 'b1' } }])
    expect((await waited)[0]!.reason).toMatch(/^a1 on host \d+ runs alone \(alone is never-parallel\)$/)
    await roundTrips(a)
    expect(log).toEqual(['held-a1 start'])
    gateOf('held-a1').resolve()
    await Promise.all([first, second])
    expect(log).toEqual(['held-a1 start', 'held-a1 end', 'b1 start', 'b1 end'])
  })

  test('a rate rule with concurrency 1 counts the calls of both hosts', async () => {
    const [a, b] = await twoHosts({ rate_limits: { limited: { concurrency: 1 } } })
    const started = startedOf(a, 'a1')
    const first = a.run([{ id: 'a1', name: 'limited', arguments: { tag: 'held-a1' } }])
    await started
    const second = b.run([{ id: 'b1', name: 'limited', arguments: { tag: 'b1' } }])
    await roundTrips(a, 8)
    expect(log).toEqual(['held-a1 start'])
    gateOf('held-a1').resolve()
    await Promise.all([first, second])
    expect(log).toEqual(['held-a1 start', 'held-a1 end', 'b1 start', 'b1 end'])
  })

  test('a call interrupted while it waits for another host is skipped (E_ABORTED) and leaves no waiter behind', async () => {
    const [a, b] = await twoHosts()
    const started = startedOf(a, 'a1')
    const first = a.run([{ id: 'a1', name: 'write_at', arguments: { path: 'f', tag: 'held-a1' } }])
    await started
    const controller = new AbortController()
    const waited = hostWaitOf(b, 'b1')
    const second = b.run([{ id: 'b1', name: 'alone', arguments: { tag: 'b1' } }], { signal: controller.signal })
    await waited
    controller.abort()
    const [r2] = await second
    expect(r2!.error?.code).toBe('E_ABORTED')
    // Had b's barrier stayed as a waiter, a's next call (conflicting with it) would wait behind it.
    const [r3] = await a.run([{ id: 'a2', name: 'free', arguments: { tag: 'a2' } }])
    expect(r3!.ok).toBe(true)
    gateOf('held-a1').resolve()
    await first
    expect(log).not.toContain('b1 start')
  })

  test('a call running while its host was alone is published when another host joins, and holds it off', async () => {
    const a = await makeHost()
    expect(a.services.store.needsAsk).toBe(false)
    const started = startedOf(a, 'a1')
    const first = a.run([{ id: 'a1', name: 'write_at', arguments: { path: 'f', tag: 'held-a1' } }])
    await started
    const b = await makeHost()
    const waited = hostWaitOf(b, 'b1')
    const second = b.run([{ id: 'b1', name: 'write_at', arguments: { path: 'f', tag: 'b1' } }])
    await waited
    await vi.waitFor(() => expect((a.services.store as LocalStore).shared).toBe(true), { timeout: 5000, interval: 10 })
    await roundTrips(a)
    expect(log).toEqual(['held-a1 start'])
    gateOf('held-a1').resolve()
    await Promise.all([first, second])
    expect(log).toEqual(['held-a1 start', 'held-a1 end', 'b1 start', 'b1 end'])
  })

  test('a host alone never asks the store: its calls leave no lease in the state file', async () => {
    const a = await makeHost()
    const results = await a.run(Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, name: 'write_at', arguments: { path: `f${i % 3}`, tag: `c${i}` } })))
    expect(results.every((r) => r.ok)).toBe(true)
    const state = JSON.parse(readFileSync(path.join(root, '.toolhost', 'store', 'state.json'), 'utf8')) as StoreState
    expect(state.leases).toEqual([])
    expect(state.next).toBe(1) // no lease or waiter was ever numbered
  })
})
