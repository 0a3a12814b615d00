import fc from 'fast-check'
import { propertyRuns } from '../property-runs.js'
import { afterEach, describe, expect, test } from 'vitest'
import { createDeferred } from '../../src/contract/deferred.js'
import { createHost, defineTool, registry, type HostEvent, type PermissionResult } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { CallTimeline, type CallRecord } from '../../src/observe/call-timeline.js'

afterEach(() => registry.clear())

const at = (n: number) => n
function feed(timeline: CallTimeline, events: Array<Record<string, unknown>>): void {
  for (const e of events) timeline.observe(e as unknown as HostEvent)
}

describe('CallTimeline from host events', () => {
  test('a call that waits is marked waiting until the call it waits for releases, then ready, running, done', () => {
    const states: string[] = []
    const timeline = new CallTimeline({ onUpdate: (r) => r.id === 'b' && states.push(r.state) })
    feed(timeline, [
      { type: 'admitted', id: 'a', name: 'write', batch: 1, at: at(0), footprint: 'scoped', permission: 'allow' },
      { type: 'admitted', id: 'b', name: 'read', batch: 1, at: at(0), footprint: 'scoped', permission: 'allow' },
      { type: 'queued', id: 'a', seq: 1, at: at(0) },
      { type: 'queued', id: 'b', seq: 2, at: at(0) },
      { type: 'waiting', id: 'b', seq: 2, at: at(0), on: [{ id: 'a', reason: 'reads x, which a writes too' }] },
      { type: 'started', id: 'a', seq: 1, at: at(1), running: 1 },
      { type: 'finished', id: 'a', seq: 1, at: at(5), ok: true },
      { type: 'released', id: 'a', seq: 1, at: at(5), abandoned: false },
      { type: 'started', id: 'b', seq: 2, at: at(6), running: 1 },
      { type: 'finished', id: 'b', seq: 2, at: at(7), ok: false, code: 'E_TOOL_FAILED' },
      { type: 'released', id: 'b', seq: 2, at: at(7), abandoned: false },
    ])
    expect(states).toEqual(['ready', 'ready', 'waiting', 'ready', 'running', 'done', 'done'])
    const b = timeline.records()[1]!
    expect(b).toMatchObject({ id: 'b', name: 'read', lane: 0, queuedAt: 0, startedAt: 6, ok: false, code: 'E_TOOL_FAILED', waits: [{ id: 'a', reason: 'reads x, which a writes too', done: true }] })
    expect(timeline.peakLanes).toBe(1) // a's lane was free again when b started
  })

  test('hook decisions land on their call: before-hooks (sent before the call is admitted or refused) and after-hooks, in order', () => {
    const timeline = new CallTimeline()
    feed(timeline, [
      { type: 'hook', id: 'd', name: 'write', at: 0, event: 'before_call', hook: 'hooks.before_call[0]', decision: 'deny', reason: 'write did not run: frozen' },
      { type: 'refused', id: 'd', name: 'write', batch: 1, at: 0, code: 'E_DENIED', message: 'write did not run: frozen' },
      { type: 'hook', id: 'a', name: 'read', at: 0, event: 'before_call', hook: '"guard"', decision: 'allow', reason: 'rewrote the arguments' },
      { type: 'admitted', id: 'a', name: 'read', batch: 1, at: 0, footprint: 'free', permission: 'allow' },
      { type: 'hook', id: 'a', name: 'read', at: 3, event: 'after_call', hook: '"stamp"', decision: 'allow', reason: 'rewrote the result' },
    ])
    const [denied, allowed] = timeline.records()
    expect(denied!.hooks).toEqual([{ event: 'before_call', hook: 'hooks.before_call[0]', decision: 'deny', reason: 'write did not run: frozen' }])
    expect(allowed!.hooks.map((h) => `${h.event} ${h.hook} ${h.decision}`)).toEqual(['before_call "guard" allow', 'after_call "stamp" allow'])
  })

  test("a wait for another host's call (host set) keeps the call waiting until it starts", () => {
    const states: string[] = []
    const timeline = new CallTimeline({ onUpdate: (r) => states.push(r.state) })
    feed(timeline, [
      { type: 'admitted', id: 'b', name: 'write', batch: 1, at: at(0), footprint: 'scoped', permission: 'allow' },
      { type: 'queued', id: 'b', seq: 1, at: at(0) },
      { type: 'waiting', id: 'b', seq: 1, at: at(1), on: [{ id: 'a', host: 'host 42', reason: 'writes x, which a on host 42 writes too' }] },
      { type: 'started', id: 'b', seq: 1, at: at(9), running: 1 },
    ])
    expect(states).toEqual(['ready', 'ready', 'waiting', 'running'])
    expect(timeline.records()[0]!.waits).toEqual([{ id: 'a on host 42', reason: 'writes x, which a on host 42 writes too', done: true }])
  })

  test('the pool\'s waits (waiting-worker, waiting-rate events) say which calls held the workers, or which rate group', () => {
    const timeline = new CallTimeline()
    const states: string[] = []
    const record = () => timeline.records()[0]!
    feed(timeline, [
      { type: 'admitted', id: 'a', name: 'fetch', batch: 1, at: 0, footprint: 'free', permission: 'allow' },
      { type: 'queued', id: 'a', seq: 1, at: 0 },
      { type: 'waiting-rate', id: 'a', seq: 1, at: 0, group: 'web', limit: { calls: 2, per_ms: 1000 } },
    ])
    states.push(record().state)
    feed(timeline, [{ type: 'waiting-worker', id: 'a', seq: 1, at: 1, behind: ['c1', 'c2'] }])
    states.push(record().state)
    expect(states).toEqual(['rate', 'ready'])
    expect(record().pool).toEqual({ rate: 'web, 2 per s', worker: ['c1', 'c2'], last: 'worker' })
    expect(record().notes).toEqual([])
  })

  test('an event type it does not know (a newer scheduler\'s) becomes a note on its call, never an error', () => {
    const timeline = new CallTimeline()
    feed(timeline, [
      { type: 'admitted', id: 'a', name: 'fetch', batch: 1, at: 0, footprint: 'free', permission: 'allow' },
      { type: 'queued', id: 'a', seq: 7, at: 0 },
      { type: 'held-back', id: 'a', seq: 7, at: 1, took: 'c9', on: [{ id: 'c9', reason: 'took the last worker' }] },
      { type: 'something-else', id: 'nobody', at: 2 },
    ])
    expect(timeline.records()[0]!.notes).toEqual([{ type: 'held-back', at: 1, text: 'took c9; on c9 (took the last worker)' }])
  })

  test('a call id used again in a later batch is a new record; events follow each by its scheduler number', () => {
    const timeline = new CallTimeline()
    const call = (batch: number, seq: number) => [
      { type: 'admitted', id: 'call_1', name: 'echo', batch, at: seq, footprint: 'free', permission: 'allow' },
      { type: 'queued', id: 'call_1', seq, at: seq },
    ]
    feed(timeline, [...call(1, 1), ...call(2, 2), { type: 'started', id: 'call_1', seq: 1, at: 3, running: 1 }])
    expect(timeline.records().map((r) => [r.batch, r.state])).toEqual([[1, 'running'], [2, 'ready']])
  })

  test('keeps at most `limit` finished calls, oldest dropped first, never one still running', () => {
    const timeline = new CallTimeline({ limit: 5 })
    feed(timeline, [{ type: 'admitted', id: 'long', name: 'x', batch: 0, at: 0, footprint: 'free', permission: 'allow' }, { type: 'queued', id: 'long', seq: 1000, at: 0 }, { type: 'started', id: 'long', seq: 1000, at: 0, running: 1 }])
    for (let i = 0; i < 100; i++) feed(timeline, [{ type: 'refused', id: `r${i}`, name: 'nope', batch: i + 1, at: i, code: 'E_TOOL_UNKNOWN', message: 'unknown' }])
    const ids = timeline.records().map((r) => r.id)
    expect(ids[0]).toBe('long')
    expect(ids.length).toBeLessThanOrEqual(5 + 1 + Math.ceil(5 * 0.25) + 16)
    expect(ids.at(-1)).toBe('r99')
  })
})

describe('worker lanes (property)', () => {
  test('for any batch, calls on one lane never overlap and lanes never outnumber max_workers', async () => {
    registry.register(defineTool<{ ticks: number }>({
      name: 'tick',
      description: 'Waits some event-loop turns.',
      parameters: { type: 'object', properties: { ticks: { type: 'integer', minimum: 0 } }, required: ['ticks'], additionalProperties: false },
      parallelSafe: true,
      readOnly: () => true,
      handler: async (args) => {
        for (let i = 0; i < args.ticks; i++) await new Promise((resolve) => setImmediate(resolve))
        return 'ok'
      },
    }))
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 24 }), async (maxWorkers, ticks) => {
        const host = await createHost({ loadPlugins: false, log: silentLogger, config: { env_file: '', dispatch: { max_workers: maxWorkers }, permissions: { mode: 'bypass' } } })
        const timeline = new CallTimeline()
        host.onEvent((e) => timeline.observe(e))
        await host.run(ticks.map((n, i) => ({ id: `c${i}`, name: 'tick', arguments: { ticks: n } })))
        await host.close()
        const ran = timeline.records().filter((r): r is CallRecord & { lane: number; startedAt: number; releasedAt: number } => r.lane !== undefined)
        expect(ran.length).toBe(ticks.length)
        expect(timeline.peakLanes).toBeLessThanOrEqual(maxWorkers)
        expect(timeline.peakLanes).toBe(host.stats.peakRunning)
        for (const a of ran) {
          for (const b of ran) {
            if (a === b || a.lane !== b.lane) continue
            expect(a.releasedAt <= b.startedAt || b.releasedAt <= a.startedAt).toBe(true)
          }
        }
      }),
      propertyRuns(25),
    )
  })
})

describe('held calls are shown as being checked, not as waiting for a person (admission at arrival × the timeline)', () => {
  // A batch held behind a slow check: the timeline must say "checking" while it is decided, and an
  // approval only when a person was really asked (the console, --trace-file and OpenTelemetry read it).
  async function watch(mode: 'bypass' | 'ask', tools: () => void, approve?: () => Promise<Array<{ decision: 'allow-once' }>>): Promise<{ timeline: CallTimeline; states: Map<string, string[]>; host: Awaited<ReturnType<typeof createHost>> }> {
    tools()
    const host = await createHost({ loadPlugins: false, log: silentLogger, env: {}, config: { env_file: '', permissions: { mode, audit_log: '' } }, ...(approve ? { approve } : {}) })
    const states = new Map<string, string[]>()
    const timeline = new CallTimeline({
      onUpdate: (r) => {
        const seen = states.get(r.id) ?? []
        if (seen.at(-1) !== r.state) seen.push(r.state)
        states.set(r.id, seen)
      },
    })
    host.onEvent((e) => timeline.observe(e))
    return { timeline, states, host }
  }

  test('an availability check and a tool\'s own permission check: "checking", then on; no approval recorded', async () => {
    const checked = createDeferred<boolean>()
    const said = createDeferred<PermissionResult>()
    const { timeline, states, host } = await watch('bypass', () => {
      registry.register(defineTool({ name: 'gated', description: 'Its check is slow.', parameters: { type: 'object' }, parallelSafe: true, check: () => checked.promise, handler: () => 'gated ran' }))
      registry.register(defineTool({ name: 'judged', description: 'Its permission check is slow.', parameters: { type: 'object' }, parallelSafe: true, checkPermissions: () => said.promise, handler: () => 'judged ran' }))
    })
    const results = host.run([{ id: 'g', name: 'gated', arguments: {} }, { id: 'j', name: 'judged', arguments: {} }])
    await new Promise((resolve) => setImmediate(resolve))
    expect(timeline.records().map((r) => [r.id, r.state])).toEqual([['g', 'checking'], ['j', 'checking']])
    checked.resolve(true)
    said.resolve({ behavior: 'allow' })
    expect((await results).map((r) => r.ok)).toEqual([true, true])
    await host.close()
    expect(states.get('g')).toEqual(['checking', 'ready', 'running', 'done'])
    expect(timeline.records().map((r) => [r.id, r.approval, r.check])).toEqual([['g', undefined, 'allowed'], ['j', undefined, 'allowed']])
  })

  test('a call refused by its check is marked refused by the check, not denied by a person', async () => {
    const { timeline, host } = await watch('bypass', () => {
      registry.register(defineTool({ name: 'judged', description: 'Its permission check says no.', parameters: { type: 'object' }, parallelSafe: true, checkPermissions: async () => ({ behavior: 'deny', message: 'not today' }), handler: () => 'never' }))
    })
    const [result] = await host.run([{ id: 'j', name: 'judged', arguments: {} }])
    await host.close()
    expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(timeline.records()[0]).toMatchObject({ id: 'j', check: 'refused', approval: undefined, code: 'E_DENIED' })
  })

  test('when the check leads to asking a person: "checking", then "approval", then on', async () => {
    const answer = createDeferred<Array<{ decision: 'allow-once' }>>()
    const asked = createDeferred<void>()
    const { timeline, states, host } = await watch('ask', () => {
      registry.register(defineTool({ name: 'writes', description: 'Writes, after a slow permission check.', parameters: { type: 'object' }, parallelSafe: true, checkPermissions: async () => ({ behavior: 'passthrough' }), handler: () => 'wrote' }))
    }, () => {
      asked.resolve()
      return answer.promise
    })
    const results = host.run([{ id: 'w', name: 'writes', arguments: {} }])
    await asked.promise
    await new Promise((resolve) => setImmediate(resolve)) // the decision reaches the call's gate
    expect(timeline.records()[0]!.state).toBe('approval')
    answer.resolve([{ decision: 'allow-once' }])
    expect((await results)[0]!.ok).toBe(true)
    await host.close()
    expect(states.get('w')).toEqual(['checking', 'approval', 'ready', 'running', 'done'])
    expect(timeline.records()[0]).toMatchObject({ approval: 'approved', check: 'allowed' })
  })
})
