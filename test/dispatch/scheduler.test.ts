/**
 * The scheduler on its own: its worker pool (ready calls start in arrival order, never more than
 * max_workers), calls that finish without a promise, interrupts, and events only for listeners.
 * Concurrency is driven by deferred promises; no test here waits on a timer.
 */
import { describe, expect, test } from 'vitest'
import { createDeferred, type Deferred } from '../../src/dispatch/deferred.js'
import type { Execution, Outcome } from '../../src/dispatch/execute-call.js'
import type { Footprint } from '../../src/dispatch/footprint.js'
import { ReadyQueue } from '../../src/dispatch/ready-queue.js'
import { Scheduler, type SchedulableCall, type SchedulerEvent } from '../../src/dispatch/scheduler.js'

const free: Footprint = { kind: 'free' }
const writes = (target: string): Footprint => ({ kind: 'scoped', touches: [{ target, label: target, isKey: false, access: 'write' }] })

/** A call whose handler finishes when the test says (or at once, without a promise, when `sync`). */
function call(id: string, log: string[], options: { footprint?: Footprint; gate?: Promise<undefined>; hold?: Deferred<void>; sync?: boolean } = {}): SchedulableCall {
  return {
    id,
    footprint: options.footprint ?? free,
    ...(options.gate ? { gate: options.gate } : {}),
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
  test('a ready call waits for a worker; freed workers go to the earliest arrival first', async () => {
    const log: string[] = []
    const scheduler = new Scheduler({ maxWorkers: 2, now: () => 0 })
    const holds = ['a', 'b', 'c', 'd'].map(() => createDeferred<void>())
    const outcomes = scheduler.submit(['a', 'b', 'c', 'd'].map((id, i) => call(id, log, { hold: holds[i]! })))
    expect(log).toEqual(['start a', 'start b'])
    expect(scheduler.running).toBe(2)
    holds[1]!.resolve()
    await outcomes[1]
    await Promise.resolve()
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

  test('calls that finish without a promise are answered and released at once, in a loop (a 20,000-call chain does not grow the stack)', async () => {
    const log: string[] = []
    const scheduler = new Scheduler({ maxWorkers: 1, now: () => 0 })
    const n = 20_000
    const calls = Array.from({ length: n }, (_, i) => call(`c${i}`, log, { sync: true }))
    // Each call waits for the one before it (as in serial mode).
    const modeWaits = calls.map((_, i) => (i === 0 ? [] : [{ index: i - 1, reason: 'serial' }]))
    const outcomes = scheduler.submit(calls, { modeWaits })
    expect(scheduler.pending).toBe(0) // every call ran and was released inside submit
    const results = await Promise.all(outcomes)
    expect(results.every((r) => r.ran && r.outcome.ok)).toBe(true)
    expect(log).toHaveLength(n)
    expect(log[0]).toBe('start c0')
    expect(log[n - 1]).toBe(`start c${n - 1}`)
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
})

describe('ReadyQueue', () => {
  test.each([
    [[5, 3, 9, 1, 7]],
    [[1, 2, 3, 4]],
    [[4, 3, 2, 1]],
    [[10, 1, 8, 2, 9, 3, 7, 4, 6, 5]],
  ])('pops in ascending seq whatever the push order: %j', (order) => {
    const queue = new ReadyQueue<{ seq: number }>()
    for (const seq of order) queue.push({ seq })
    const popped: number[] = []
    for (let item = queue.pop(); item; item = queue.pop()) popped.push(item.seq)
    expect(popped).toEqual([...order].sort((a, b) => a - b))
    expect(queue.size).toBe(0)
  })
})
