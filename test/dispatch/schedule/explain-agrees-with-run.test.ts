// explain's prediction against a real run of the same batch, read from the host's events, the
// timeline (what the trace file and the console draw) and the results: a call waiting for its rate
// slot holds no worker, and a call its tool denies is nobody's wait (issue 24 item 9).
import { afterEach, describe, expect, test } from 'vitest'
import { createDeferred } from '../../../src/contract/deferred.js'
import { silentLogger } from '../../../src/contract/logger.js'
import { createHost, defineTool, registry, type HostEvent, type ToolCall } from '../../../src/index.js'
import { CallTimeline } from '../../../src/observe/call-timeline.js'
import { makeRoot } from '../../fixtures/permissions/tools.js'

afterEach(() => registry.clear())

describe('explain agrees with run', () => {
  test('rate-limited and denied calls: the waits explain predicts are the waits the run has', async () => {
    const { root, cleanup } = makeRoot()
    // a and c hold their workers until released; b is rate-limited behind a; e is denied by its tool.
    const gates = { a: createDeferred<void>(), c: createDeferred<void>() }
    const held = (args: { id: string }) => (args.id in gates ? gates[args.id as 'a' | 'c'].promise.then(() => `${args.id} done`) : `${args.id} done`)
    const idArg = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false } as const
    registry.register(defineTool({ name: 'rated', description: 'Rate-limited work.', parameters: idArg, parallelSafe: true, handler: held }))
    registry.register(defineTool({ name: 'work', description: 'Plain work.', parameters: idArg, parallelSafe: true, handler: held }))
    const pathArg = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false } as const
    registry.register(defineTool({ name: 'write_x', description: 'A write its tool refuses.', parameters: pathArg, pathScoped: true, checkPermissions: async () => ({ behavior: 'deny', message: 'x is frozen' }), handler: () => 'wrote' }))
    registry.register(defineTool({ name: 'read_x', description: 'A read.', parameters: pathArg, pathScoped: true, readOnly: () => true, handler: () => 'read' }))
    const host = await createHost({
      root,
      loadPlugins: false,
      log: silentLogger,
      config: { env_file: '', permissions: { mode: 'bypass', audit_log: '' }, dispatch: { max_workers: 2, duration_estimates: '' }, rate_limits: { rated: { calls: 1, per_ms: 600_000 } } },
    })
    const calls: ToolCall[] = [
      { id: 'a', name: 'rated', arguments: { id: 'a' } },
      { id: 'b', name: 'rated', arguments: { id: 'b' } },
      { id: 'c', name: 'work', arguments: { id: 'c' } },
      { id: 'd', name: 'work', arguments: { id: 'd' } },
      { id: 'e', name: 'write_x', arguments: { path: 'x' } },
      { id: 'f', name: 'read_x', arguments: { path: 'x' } },
    ]
    const plan = new Map((await host.explain(calls)).calls.map((c) => [c.id, c]))

    const events: HostEvent[] = []
    const timeline = new CallTimeline()
    const dStarted = createDeferred<void>()
    const fStarted = createDeferred<void>()
    host.onEvent((event) => {
      events.push(event)
      timeline.observe(event)
      if (event.type === 'started' && event.id === 'd') dStarted.resolve()
      if (event.type === 'started' && event.id === 'f') fStarted.resolve()
    })
    const running = host.run(calls, { trace: true })
    // The gate: d waits for a worker behind a and c; once they finish, d gets a worker while b still
    // waits for its rate slot (the next one is ten minutes away).
    await new Promise<void>((resolve) => {
      const stop = host.onEvent((event) => {
        if (event.type === 'waiting-worker' && event.id === 'd') {
          stop()
          resolve()
        }
      })
    })
    gates.a.resolve()
    gates.c.resolve()
    await dStarted.promise
    await fStarted.promise
    // What happened while b waited for its slot; then a new limit lets b go.
    const whileLimited = [...events]
    host.applyLiveConfig({ ...host.config, rate_limits: {} })
    const results = new Map((await running).map((r) => [r.id, r]))
    await host.close()
    cleanup()

    // The prediction.
    expect(plan.get('b')).toMatchObject({ rateLimit: { group: 'rated', waits: true } })
    expect(plan.get('b')!.waitsForWorker).toBeUndefined()
    expect(plan.get('d')!.waitsForWorker).toEqual(['a', 'c'])
    expect(plan.get('c')!.waitsForWorker).toBeUndefined()
    expect(plan.get('e')!.permission).toMatchObject({ outcome: 'deny', by: 'tool' })
    expect(plan.get('f')!.waitsFor).toEqual([])

    // The run: b waited for its rate slot and held no worker; d (and f, once e was denied) waited
    // for a worker behind a and c, as predicted, and got one while b still waited.
    const rateWaits = whileLimited.flatMap((e) => (e.type === 'waiting-rate' ? [e.id] : []))
    const workerWaits = Object.fromEntries(whileLimited.flatMap((e) => (e.type === 'waiting-worker' ? [[e.id, e.behind] as const] : [])))
    const predicted = Object.fromEntries([...plan.values()].flatMap((c) => (c.waitsForWorker ? [[c.id, c.waitsForWorker] as const] : [])))
    expect(rateWaits).toEqual(['b'])
    expect(workerWaits).toEqual({ d: ['a', 'c'], f: ['a', 'c'] })
    expect(workerWaits).toEqual(predicted)
    expect(whileLimited.flatMap((e) => (e.type === 'started' ? [e.id] : [])).sort()).toEqual(['a', 'c', 'd', 'f'])

    // The denied call is nobody's wait: not in f's result, not in the timeline the trace is drawn from.
    expect(results.get('e')).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(results.get('f')).toMatchObject({ ok: true, waitedFor: plan.get('f')!.waitsFor.map((w) => w.id) })
    expect(timeline.records().find((r) => r.id === 'f')!.waits).toEqual([])
    expect([...results.values()].map((r) => [r.id, r.ok])).toEqual([['a', true], ['b', true], ['c', true], ['d', true], ['e', false], ['f', true]])
  })
})
