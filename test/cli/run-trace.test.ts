/**
 * `run --json --trace` left out the waits for another host's calls that the human timeline showed,
 * and its axis started after such a wait (issue 31, a new user's frictions): both now read one
 * record of the batch's events (src/cli/run-trace.ts). Two hosts on one root in this process, each
 * with its local store (as in test/dispatch/schedule/cross-host.test.ts), driven by a gate.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { runAndPrint } from '../../src/cli/commands.js'
import { parseCliArgs } from '../../src/cli/args.js'
import { RunTrace } from '../../src/cli/run-trace.js'
import { defineTool } from '../../src/contract/define-tool.js'
import { createDeferred } from '../../src/contract/deferred.js'
import { createHost } from '../../src/host/create-host.js'
import type { Host, HostEvent } from '../../src/host/host.js'
import { registry } from '../../src/registry/registry.js'
import type { LocalStore } from '../../src/store/local-store.js'
// Hosts coordinating through the local store: vitest.config.ts sets TOOLHOST_STORE=memory for the others.
delete process.env['TOOLHOST_STORE']

let root: string
const hosts: Host[] = []
const gate = createDeferred<void>()

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-run-trace-')))
  registry.clear()
  const params = { type: 'object', properties: { path: { type: 'string' }, held: { type: 'boolean' } }, required: ['path'], additionalProperties: false }
  registry.register(defineTool<{ path: string; held?: boolean }>({ name: 'write_at', description: 'writes a path (test)', parameters: params, pathScoped: true, readOnly: () => false, handler: async (args) => {
    if (args.held) await gate.promise
    return args.path
  } }))
})

afterEach(async () => {
  gate.resolve()
  for (const host of hosts.splice(0)) await host.close()
  registry.clear()
  rmSync(root, { recursive: true, force: true })
})

async function makeHost(): Promise<Host> {
  const host = await createHost({ root, loadPlugins: false, env: {}, log: { debug() {}, info() {}, warn() {}, error() {} }, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, dispatch: { duration_estimates: '' } } })
  hosts.push(host)
  return host
}

function eventOf(host: Host, match: (e: HostEvent) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = host.onEvent((e) => {
      if (match(e)) {
        stop()
        resolve()
      }
    })
  })
}

describe('run --trace with another host on the root', () => {
  test('--json --trace gives the wait for the other host\'s call, and when the call was queued; the timeline starts then', async () => {
    const a = await makeHost()
    const b = await makeHost()
    await vi.waitFor(() => expect([a, b].every((h) => (h.services.store as LocalStore).shared)).toBe(true), { timeout: 5000, interval: 10 })
    const started = eventOf(a, (e) => e.type === 'started' && e.id === 'a1')
    const first = a.run([{ id: 'a1', name: 'write_at', arguments: { path: 'src/a.ts', held: true } }])
    await started
    const waiting = eventOf(b, (e) => e.type === 'waiting' && e.id === 'b1' && e.on.some((w) => w.host !== undefined))
    const calls = [{ id: 'b1', name: 'write_at', arguments: { path: 'src' } }, { id: 'b2', name: 'write_at', arguments: { path: 'src/b.ts' } }]
    const json: string[] = []
    const printedJson = runAndPrint(b, calls, parseCliArgs(['run', '-', '--json', '--trace']), { out: (t) => void json.push(t), err: () => {} })
    await waiting
    gate.resolve()
    await first
    await printedJson
    const { results } = JSON.parse(json.join('\n')) as { results: Array<{ id: string; queuedAt?: number; startedAt: number; waitedFor: string[]; waitedForHost?: unknown }> }
    const [b1, b2] = results
    expect(b1!.waitedForHost).toEqual([{ id: 'a1', host: `host ${process.pid}`, reason: `writes src, which a1 on host ${process.pid} writes (src/a.ts)` }])
    expect(b1!.queuedAt).toEqual(expect.any(Number))
    expect(b1!.startedAt).toBeGreaterThanOrEqual(b1!.queuedAt!)
    // b2 waited for b1 in its own host (waitedFor) and was held behind it; it names no other host.
    expect(b2!.waitedFor).toEqual(['b1'])
    expect(b2!.waitedForHost).toBeUndefined()
  })
})

describe('RunTrace', () => {
  const at = (type: string, id: string, extra: Record<string, unknown> = {}): HostEvent => ({ type, id, seq: 1, at: 0, ...extra }) as unknown as HostEvent

  test('a call\'s own waits and another host\'s are both kept (the second waiting event replaced the first)', () => {
    const trace = new RunTrace()
    trace.observe(at('queued', 'c', { at: 2 }))
    trace.observe(at('waiting', 'c', { on: [{ id: 'b', reason: 'writes x, which b writes too' }] }))
    trace.observe(at('waiting', 'c', { on: [{ id: 'a1', host: 'host 7', reason: 'writes x, which a1 on host 7 writes' }] }))
    trace.observe(at('waiting', 'c', { on: [{ id: 'a1', host: 'host 7', reason: 'writes x, which a1 on host 7 writes' }] }))
    expect(trace.waits.get('c')).toEqual([{ id: 'b', reason: 'writes x, which b writes too' }, { id: 'a1', host: 'host 7', reason: 'writes x, which a1 on host 7 writes' }])
    expect(trace.traced({ id: 'c', name: 't', ok: true, content: '', startedAt: 9, endedAt: 10, waitedFor: ['b'] })).toEqual({ id: 'c', name: 't', ok: true, content: '', startedAt: 9, endedAt: 10, waitedFor: ['b'], queuedAt: 2, waitedForHost: [{ id: 'a1', host: 'host 7', reason: 'writes x, which a1 on host 7 writes' }] })
  })

  test('the human timeline starts at the first queued call, and draws the other host\'s wait', async () => {
    const { renderTimeline } = await import('../../src/cli/timeline.js')
    const trace = new RunTrace()
    trace.observe(at('queued', 'c', { at: 0 }))
    trace.observe(at('waiting', 'c', { on: [{ id: 'a1', host: 'host 7', reason: 'writes x, which a1 on host 7 writes' }] }))
    const text = renderTimeline([{ id: 'c', name: 'w', ok: true, content: '', startedAt: 50, endedAt: 100 }], trace.waits, 20, trace.pool, trace.queuedAt)
    expect(text.split('\n')).toEqual([
      'call  tool   0 ms        100.0 ms',
      'c     w     |          ██████████| 50.0–100.0 ms  ok',
      '            waited for a1: writes x, which a1 on host 7 writes',
    ])
  })
})
