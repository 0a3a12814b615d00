/**
 * The trace file one batch produces (host option `traceFile`): its structure checked against the
 * batch. Handlers wait on deferred gates, so who waits for what is decided by the test, not by time.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createDeferred, type Deferred } from '../../src/contract/deferred.js'
import { createHost, defineTool, registry, type HostEvent } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { toTraceDocument, type TraceDocument } from '../../src/observe/trace-file.js'
import { checkTrace } from './trace-checks.js'

let root: string
const gates = new Map<string, Deferred<void>>()
const gate = (name: string): Deferred<void> => {
  let g = gates.get(name)
  if (!g) gates.set(name, (g = createDeferred<void>()))
  return g
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-trace-')))
  gates.clear()
  const pathArgs = { type: 'object', properties: { path: { type: 'string' }, gate: { type: 'string' } }, required: ['path'], additionalProperties: false } as const
  registry.register(defineTool({ name: 'hold_write', description: 'Writes once its gate opens.', parameters: pathArgs, pathScoped: true, handler: async (args) => { if (args.gate) await gate(args.gate).promise; return 'wrote' } }))
  registry.register(defineTool({ name: 'hold_read', description: 'Reads once its gate opens.', parameters: pathArgs, pathScoped: true, readOnly: () => true, handler: async (args) => { if (args.gate) await gate(args.gate).promise; return 'read' } }))
  registry.register(defineTool({ name: 'hold_free', description: 'Touches nothing shared.', parameters: { type: 'object', properties: { gate: { type: 'string' } }, additionalProperties: false }, parallelSafe: true, readOnly: () => true, handler: async (args) => { if (typeof args.gate === 'string') await gate(args.gate).promise; return 'free' } }))
})

afterEach(() => {
  registry.clear()
  rmSync(root, { recursive: true, force: true })
})

/** Resolves when `count` events of `type` have been seen. */
function whenEvents(host: { onEvent(l: (e: HostEvent) => void): () => void }, type: string, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0
    const stop = host.onEvent((e) => {
      if (e.type === type && ++seen === count) {
        stop()
        resolve()
      }
    })
  })
}

describe('trace file (host option traceFile)', () => {
  test('one batch: a slice per call, worker lanes that never overlap, each wait a flow from the call waited for', async () => {
    const file = path.join(root, 'out', 'batch.trace.json')
    const host = await createHost({ root, loadPlugins: false, log: silentLogger, config: { env_file: '', dispatch: { max_workers: 2 }, permissions: { mode: 'bypass' } }, traceFile: file })
    const twoStarted = whenEvents(host, 'started', 2)
    const run = host.run([
      { id: 'w1', name: 'hold_write', arguments: { path: 'a.txt', gate: 'w1' } },
      { id: 'r1', name: 'hold_read', arguments: { path: 'a.txt' } }, // waits for w1 (same path)
      { id: 'f1', name: 'hold_free', arguments: { gate: 'f1' } }, // runs beside w1
      { id: 'f2', name: 'hold_free', arguments: {} }, // waits for a worker (two are busy)
      { id: 'x1', name: 'no_such_tool', arguments: {} }, // refused before scheduling
    ])
    await twoStarted // w1 and f1 hold both workers
    gate('w1').resolve() // r1 takes w1's worker; f2 still waits for one
    gate('f1').resolve()
    const results = await run
    await host.close()
    expect(results.map((r) => [r.id, r.ok])).toEqual([['w1', true], ['r1', true], ['f1', true], ['f2', true], ['x1', false]])

    const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument
    const facts = checkTrace(doc, ['w1', 'r1', 'f1', 'f2', 'x1'])
    expect([...facts.laneNames.values()].sort()).toEqual(['worker 1', 'worker 2']) // never more lanes than workers
    expect(facts.flows).toEqual([['w1', 'r1']])
    const slice = (id: string) => facts.slices.get(id)!
    expect(slice('w1').name).toBe('hold_write')
    expect(slice('w1').tid).not.toBe(slice('f1').tid) // they ran together
    expect(slice('r1').ts!).toBeGreaterThanOrEqual(slice('w1').ts! + slice('w1').dur!)
    expect(slice('r1').args).toMatchObject({ waited_for: ['w1: reads a.txt, which w1 writes too'], outcome: 'ok', footprint: 'scoped' })
    expect(slice('x1').args).toMatchObject({ outcome: 'refused: E_TOOL_UNKNOWN' })
    expect(doc.traceEvents.find((e) => e.tid === slice('x1').tid && e.name === 'thread_name')?.args).toEqual({ name: 'did not run' })
    expect(slice('f2').args!.wait_ms as number).toBeGreaterThan(0) // it waited for a worker
  })

  test('admission at arrival: a batch held for a check, a person\'s denial, a rate wait and an unknown tool each get one slice; only the calls that ran are on worker lanes', async () => {
    const file = path.join(root, 'held.trace.json')
    const checked = createDeferred<boolean>()
    registry.register(defineTool({ name: 'checked_free', description: 'Its availability check is slow.', parameters: { type: 'object' }, parallelSafe: true, readOnly: () => true, check: () => checked.promise, handler: () => 'checked ran' }))
    registry.register(defineTool({ name: 'rated', description: 'Rate limited.', parameters: { type: 'object' }, parallelSafe: true, readOnly: () => true, handler: () => 'rated ran' }))
    const host = await createHost({
      root, loadPlugins: false, log: silentLogger, traceFile: file,
      config: { env_file: '', dispatch: { max_workers: 4 }, permissions: { mode: 'ask', audit_log: '' }, rate_limits: { rated: { calls: 1, per_ms: 60_000 } } },
      approve: async (requests) => requests.map(() => ({ decision: 'deny' as const, message: 'not now' })),
    })
    const rateWait = whenEvents(host, 'waiting-rate', 1)
    const denied = whenEvents(host, 'approval', 1)
    const controller = new AbortController()
    const run = host.run([
      { id: 'c1', name: 'checked_free', arguments: {} }, // held while its check runs
      { id: 'w1', name: 'hold_write', arguments: { path: 'a.txt' } }, // asks; the person denies
      { id: 'q1', name: 'rated', arguments: {} },
      { id: 'q2', name: 'rated', arguments: {} }, // waits for the next rate window; interrupted
      { id: 'x1', name: 'no_such_tool', arguments: {} },
    ], { signal: controller.signal })
    checked.resolve(true)
    await rateWait
    await denied
    await new Promise((resolve) => setImmediate(resolve)) // the denial reaches the scheduler
    controller.abort()
    const results = await run
    await host.close()
    expect(results.map((r) => [r.id, r.ok ? 'ok' : r.error?.code])).toEqual([['c1', 'ok'], ['w1', 'E_DENIED'], ['q1', 'ok'], ['q2', 'E_ABORTED'], ['x1', 'E_TOOL_UNKNOWN']])

    const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument
    const facts = checkTrace(doc, ['c1', 'w1', 'q1', 'q2', 'x1'])
    const slice = (id: string) => facts.slices.get(id)!
    const onLane = (id: string) => facts.laneNames.has(slice(id).tid)
    expect(['c1', 'w1', 'q1', 'q2', 'x1'].filter(onLane)).toEqual(['c1', 'q1'])
    expect(slice('c1').args).toMatchObject({ check: 'allowed', outcome: 'ok' })
    expect(slice('c1').args).not.toHaveProperty('approval')
    expect(slice('w1').args).toMatchObject({ check: 'allowed', approval: 'denied', outcome: 'E_DENIED' })
    expect(slice('q2').args).toMatchObject({ waited_for_rate: 'rated, 1 per min', outcome: 'E_ABORTED' })
    expect(slice('x1').args).toMatchObject({ outcome: 'refused: E_TOOL_UNKNOWN' })
  })

  test('a record set with no calls gives a valid empty trace', () => {
    const doc = toTraceDocument([])
    expect(doc.traceEvents).toEqual([{ ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: 'toolhost' } }])
  })
})
