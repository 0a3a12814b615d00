/**
 * The scheduler on its own: its worker pool (p-queue: ready calls start by priority, then in arrival
 * order, never more than max_workers), calls that finish without a promise, interrupts, and events
 * only for listeners. Concurrency is driven by deferred promises; no test here waits on a timer.
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { createDeferred, type Deferred } from '../../../src/contract/deferred.js'
import type { Execution, Outcome } from '../../../src/dispatch/execute/execute-call.js'
import type { Footprint } from '../../../src/dispatch/admit/footprint.js'
import { ReadyQueue } from '../../../src/dispatch/schedule/ready-queue.js'
import { Scheduler, type SchedulableCall, type SchedulerEvent } from '../../../src/dispatch/schedule/scheduler.js'

const free: Footprint = { kind: 'free' }
const writes = (target: string): Footprint => ({ kind: 'scoped', touches: [{ target, label: target, isKey: false, access: 'write' }] })

/** Lets every pending promise reaction (and p-queue's freeing of a slot) run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** A call whose handler finishes when the test says (or at once, without a promise, when `sync`). */
function call(id: string, log: string[], options: { footprint?: Footprint; gate?: Promise<undefined>; hold?: Deferred<void>; sync?: boolean; scheduler?: Scheduler; tool?: string } = {}): SchedulableCall {
  return {
    id,
    footprint: options.footprint ?? free,
    ...(options.gate ? { gate: options.gate } : {}),
    ...(options.scheduler ? { profile: options.scheduler.profileOf(options.tool ?? 'tool', 'tests') } : {}),
    start(): Execution {
      log.push(`start ${id}`)
      const outcome: Outcome = { ok: true, value: id }
      if (options.sync) return { answered: Promise.resolve(outcome), settled: Promise.resolve({ abandoned: false }), interrupt() {}, done: outcome }
      const hold = options.hold ?? createDeferred<void>()
      const answered = hold.promise.then(() => {
        log.push(`end ${id}`)
        return outcome
      })
      return { answered, settled: answered.then(() => ({ abandoned: false })), interrupt: () => hold.resolve() }
    },
  }
}

describe('the scheduler', () => {
  test('a ready call waits for a worker; with no estimates, freed workers go to the earliest arrival first', async () => {
    const log: string[] = []
    const scheduler = new Scheduler({ maxWorkers: 2, now: () => 0 })
    const holds = ['a', 'b', 'c', 'd'].map(() => createDeferred<void>())
    const outcomes = scheduler.submit(['a', 'b', 'c', 'd'].map((id, i) => call(id, log, { hold: holds[i]! })))
    expect(log).toEqual(['start a', 'start b'])
    expect(scheduler.running).toBe(2)
    holds[1]!.resolve()
    await outcomes[1]
    await settle()
    expect(log).toEqual(['start a', 'start b', 'end b', 'start c'])
    holds[0]!.resolve()
    holds[2]!.resolve()
    holds[3]!.resolve()
    await Promise.all(outcomes)
    await scheduler.onIdle()
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start a', 'start b', 'start c', 'start d'])
    expect(scheduler.peakRunning).toBe(2)
    expect(scheduler.pending).toBe(0)
  })

  test('calls that finish without a promise are answered and released at once (a 20,000-call chain does not grow the stack)', async () => {
    const log: string[] = []
    const scheduler = new Scheduler({ maxWorkers: 1, now: () => 0 })
    const n = 20_000
    const calls = Array.from({ length: n }, (_, i) => call(`c${i}`, log, { sync: true }))
    // Each call waits for the one before it (as in serial mode).
    const modeWaits = calls.map((_, i) => (i === 0 ? [] : [{ index: i - 1, reason: 'serial' }]))
    const outcomes = scheduler.submit(calls, { modeWaits })
    expect(log).toEqual(['start c0']) // the first ran inside submit; each next one follows its release
    const results = await Promise.all(outcomes)
    expect(results.every((r) => r.ran && r.outcome.ok)).toBe(true)
    expect(log).toHaveLength(n)
    expect(log[n - 1]).toBe(`start c${n - 1}`)
    expect(scheduler.pending).toBe(0)
  })

  test('an interrupt skips every pending call, including one made ready by the skip of the call it waited for', async () => {
    const log: string[] = []
    const scheduler = new Scheduler({ maxWorkers: 4, now: () => 0 })
    const approval = createDeferred<undefined>()
    const controller = new AbortController()
    const outcomes = scheduler.submit(
      [call('gated', log, { footprint: writes('/w/f'), gate: approval.promise }), call('after', log, { footprint: writes('/w/f') })],
      { signal: controller.signal },
    )
    controller.abort()
    approval.resolve(undefined)
    const results = await Promise.all(outcomes)
    expect(results.map((r) => (r.ran ? 'ran' : r.error.code))).toEqual(['E_ABORTED', 'E_ABORTED'])
    expect(log).toEqual([])
    expect(scheduler.pending).toBe(0)
  })

  test('a call interrupted while it waits for a worker never runs, and its worker goes to the next call', async () => {
    const log: string[] = []
    const scheduler = new Scheduler({ maxWorkers: 1, now: () => 0 })
    const first = createDeferred<void>()
    const controller = new AbortController()
    const [running] = scheduler.submit([call('running', log, { hold: first })])
    const [waiting] = scheduler.submit([call('waiting', log)], { signal: controller.signal })
    const [next] = scheduler.submit([call('next', log, { sync: true })])
    controller.abort()
    expect(await waiting).toMatchObject({ ran: false, error: { code: 'E_ABORTED' } })
    first.resolve()
    await Promise.all([running, next])
    expect(log).toEqual(['start running', 'end running', 'start next'])
  })

  test('events are built only while someone listens', async () => {
    const events: SchedulerEvent[] = []
    let listening = false
    const scheduler = new Scheduler({ maxWorkers: 2, now: () => 0, onEvent: (e) => events.push(e), listening: () => listening })
    await Promise.all(scheduler.submit([call('quiet', [], { sync: true })]))
    expect(events).toEqual([])
    listening = true
    await Promise.all(scheduler.submit([call('heard', [], { sync: true })]))
    expect(events.map((e) => e.type)).toEqual(['queued', 'started', 'finished', 'released'])
  })

  test('a call that finds every worker busy says so, and which calls hold them (waiting-worker)', async () => {
    const events: SchedulerEvent[] = []
    const scheduler = new Scheduler({ maxWorkers: 2, now: () => 0, onEvent: (e) => events.push(e) })
    const holds = [createDeferred<void>(), createDeferred<void>()]
    const outcomes = scheduler.submit([call('a', [], { hold: holds[0] }), call('b', [], { hold: holds[1] }), call('c', [], { sync: true })])
    expect(events.filter((e) => e.type === 'waiting-worker')).toEqual([{ type: 'waiting-worker', id: 'c', seq: 3, at: 0, behind: ['a', 'b'] }])
    holds[0]!.resolve()
    holds[1]!.resolve()
    await Promise.all(outcomes)
  })
})

describe('critical-path priority', () => {
  /** One worker held by `blocker`; then a batch whose calls all become ready together. */
  async function startOrder(known: boolean): Promise<string[]> {
    const log: string[] = []
    const scheduler = new Scheduler({ maxWorkers: 1, now: () => 0 })
    if (known) scheduler.estimates.record(scheduler.profileOf('tool', 'tests'), 10)
    const blocker = createDeferred<void>()
    const first = scheduler.submit([call('blocker', log, { hold: blocker })])
    // f touches nothing; w1 writes x and w2 waits for it: the chain w1 → w2 is the longer one.
    const batch = scheduler.submit([
      call('f', log, { scheduler, sync: true }),
      call('w1', log, { scheduler, footprint: writes('/w/x'), sync: true }),
      call('w2', log, { scheduler, footprint: writes('/w/x'), sync: true }),
    ])
    blocker.resolve()
    await Promise.all([...first, ...batch])
    return log.filter((l) => l.startsWith('start') && l !== 'start blocker')
  }

  test('with estimates, the call with the longest chain of work behind it gets the free worker first', async () => {
    expect(await startOrder(true)).toEqual(['start w1', 'start f', 'start w2'])
  })

  test('with nothing known, free workers go in call order', async () => {
    expect(await startOrder(false)).toEqual(['start f', 'start w1', 'start w2'])
  })

  test('a waiting call moves up (setPriority) when a later batch puts a longer chain behind it', async () => {
    const log: string[] = []
    const scheduler = new Scheduler({ maxWorkers: 1, now: () => 0 })
    scheduler.estimates.record(scheduler.profileOf('tool', 'tests'), 10)
    const blocker = createDeferred<void>()
    const all = scheduler.submit([call('blocker', log, { hold: blocker })])
    all.push(...scheduler.submit([call('f', log, { scheduler, sync: true }), call('w1', log, { scheduler, footprint: writes('/w/x'), sync: true })]))
    // Both wait for the worker with equal chains: f (earlier) would go first...
    all.push(...scheduler.submit([call('w2', log, { scheduler, footprint: writes('/w/x'), sync: true })]))
    // ...but now w2 waits for w1, so w1 carries the longer chain.
    blocker.resolve()
    await Promise.all(all)
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start blocker', 'start w1', 'start f', 'start w2'])
  })

  test('estimates are learned from finished calls', async () => {
    let clock = 0
    const scheduler = new Scheduler({ maxWorkers: 1, now: () => clock })
    const hold = createDeferred<void>()
    const outcomes = scheduler.submit([call('a', [], { scheduler, tool: 'slow', hold })])
    clock = 40
    hold.resolve()
    await Promise.all(outcomes)
    await settle()
    expect(scheduler.estimates.estimate(scheduler.profileOf('slow', 'tests'))).toBe(40)
    // A tool never seen counts as the mean of the known ones.
    expect(scheduler.estimates.estimate(scheduler.profileOf('new', 'tests'))).toBe(40)
  })
})

describe('ReadyQueue (p-queue queue class)', () => {
  const run = (label: string) => Object.assign(async () => label, { label })

  test.each([
    [[5, 3, 9, 1, 7]],
    [[1, 2, 3, 4]],
    [[4, 3, 2, 1]],
    [[10, 1, 8, 2, 9, 3, 7, 4, 6, 5]],
  ])('equal priorities leave in ascending seq whatever the order they came in: %j', async (order) => {
    const queue = new ReadyQueue()
    for (const seq of order) queue.enqueue(run(String(seq)), { seq, id: String(seq) })
    const popped: string[] = []
    for (let item = queue.dequeue(); item; item = queue.dequeue()) popped.push(String(await item()))
    expect(popped).toEqual([...order].sort((a, b) => a - b).map(String))
    expect(queue.size).toBe(0)
  })

  test('higher priority first; setPriority moves a waiting entry; remove drops it', async () => {
    const queue = new ReadyQueue()
    queue.enqueue(run('a'), { seq: 1, id: 'a', priority: 5 })
    queue.enqueue(run('b'), { seq: 2, id: 'b', priority: 9 })
    queue.enqueue(run('c'), { seq: 3, id: 'c', priority: 1 })
    queue.enqueue(run('d'), { seq: 4, id: 'd', priority: 1 })
    queue.setPriority('c', 20)
    queue.remove('a')
    expect(queue.filter({ priority: 1 })).toHaveLength(1)
    const popped: string[] = []
    for (let item = queue.dequeue(); item; item = queue.dequeue()) popped.push(String(await item()))
    expect(popped).toEqual(['c', 'b', 'd'])
    expect(() => queue.setPriority('a', 1)).toThrow(/No promise function with the id "a"/)
  })
  // The queue keeps a heap beside a run of entries that came in order; whatever mix of operations,
  // it must hand tasks out exactly as a sorted list would (priority, then seq), and lose none.
  test('any mix of enqueue, dequeue, setPriority, remove, take and reorder leaves in the order a sorted list gives', () => {
    type Op = { op: 'add'; priority: number } | { op: 'pop' } | { op: 'set'; pick: number; priority: number } | { op: 'remove'; pick: number } | { op: 'take'; mod: number } | { op: 'reorder'; shift: number }
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      { weight: 6, arbitrary: fc.record({ op: fc.constant('add' as const), priority: fc.integer({ min: 0, max: 3 }) }) },
      { weight: 4, arbitrary: fc.constant({ op: 'pop' as const }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('set' as const), pick: fc.nat(), priority: fc.integer({ min: 0, max: 5 }) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('take' as const), mod: fc.integer({ min: 2, max: 4 }) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('reorder' as const), shift: fc.integer({ min: 0, max: 3 }) }) },
    )
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        const queue = new ReadyQueue()
        const model: { seq: number; priority: number }[] = []
        const byPriority = (a: { seq: number; priority: number }, b: { seq: number; priority: number }): number => b.priority - a.priority || a.seq - b.seq
        let seq = 0
        for (const o of ops) {
          if (o.op === 'add') {
            seq++
            const item = { seq, priority: o.priority }
            queue.enqueue(Object.assign(async () => item.seq, { seq: item.seq }), { seq, id: String(seq), priority: o.priority, item })
            model.push(item)
          } else if (o.op === 'pop') {
            const got = queue.dequeue() as unknown as { seq: number } | undefined
            model.sort(byPriority)
            expect(got?.seq).toBe(model.shift()?.seq)
          } else if (model.length === 0) {
            continue
          } else if (o.op === 'set') {
            const item = model[o.pick % model.length]!
            item.priority = o.priority
            queue.setPriority(String(item.seq), o.priority)
          } else if (o.op === 'remove') {
            const [item] = model.splice(o.pick % model.length, 1)
            queue.remove(String(item!.seq))
          } else if (o.op === 'take') {
            const taken = queue.take((it) => (it as { seq: number }).seq % o.mod === 0) as { seq: number }[]
            const expected = model.filter((it) => it.seq % o.mod === 0).map((it) => it.seq)
            expect(taken.map((it) => it.seq).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b))
            for (let i = model.length - 1; i >= 0; i--) if (model[i]!.seq % o.mod === 0) model.splice(i, 1)
          } else {
            queue.reorder((it) => ((it as { seq: number }).seq + o.shift) % 4)
            for (const it of model) it.priority = (it.seq + o.shift) % 4
          }
          expect(queue.size).toBe(model.length)
        }
        model.sort(byPriority)
        const rest: number[] = []
        for (let got = queue.dequeue(); got; got = queue.dequeue()) rest.push((got as unknown as { seq: number }).seq)
        expect(rest).toEqual(model.map((it) => it.seq))
      }),
      { numRuns: 300 },
    )
  })
})
