/**
 * Interrupts × rate limits × approval gates × critical-path priority (issues 12 and 14), as
 * fast-check properties on the scheduler: whatever a call waits for when its run is interrupted — a
 * conflict, a person's approval (its gate), a rate slot or a worker — it is answered once, E_ABORTED
 * exactly when it never started (E_DENIED when its gate refused it first), and everything it held
 * (reservations, its rate slot, its worker, the abort listener) is given back once; also when new
 * rate limits arrive meanwhile (live config). Time is vitest's
 * fake clock (p-queue's rate windows); every other order is fast-check's scheduler.
 */
import fc from 'fast-check'
import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import type { Execution, Outcome } from '../../../src/dispatch/execute/execute-call.js'
import type { Footprint } from '../../../src/dispatch/admit/footprint.js'
import { Scheduler, type JobOutcome, type SchedulableCall, type SchedulerEvent } from '../../../src/dispatch/schedule/scheduler.js'
import type { ToolError } from '../../../src/contract/types.js'
import { propertyRuns } from '../../property-runs.js'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
})
afterEach(() => {
  vi.useRealTimers()
})

const RATE = { calls: 1, per_ms: 1000 }
const TOOLS = ['rated', 'one_at_once', 'plain'] as const

interface Spec {
  tool: (typeof TOOLS)[number]
  footprint: Footprint
  gate: 'none' | 'allow' | 'deny'
}

const footprintArb: fc.Arbitrary<Footprint> = fc.oneof(
  fc.constant<Footprint>({ kind: 'free' }),
  fc.constant<Footprint>({ kind: 'barrier', reason: 'runs alone' }),
  fc.record({ target: fc.constantFrom('/w/a', '/w/a/x', '/w/b'), access: fc.constantFrom<'read' | 'write'>('read', 'write') }).map((t): Footprint => ({ kind: 'scoped', touches: [{ ...t, label: t.target, isKey: false }] })),
)
const specArb: fc.Arbitrary<Spec> = fc.record({ tool: fc.constantFrom(...TOOLS), footprint: footprintArb, gate: fc.constantFrom<Spec['gate']>('none', 'none', 'allow', 'deny') })

const DENIED: ToolError = { code: 'E_DENIED', message: 'the person denied it' }

// Whatever a call waits for when its run is interrupted, it is answered once and gives back what it held.
const interruptDuringWaits = fc.asyncProperty(fc.scheduler(), fc.array(specArb, { minLength: 1, maxLength: 9 }), fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.boolean(), fc.boolean(), async (s, specs, maxWorkers, criticalPath, reload, interrupt) => {
  const events: SchedulerEvent[] = []
  const scheduler = new Scheduler({
    maxWorkers,
    now: () => Date.now(),
    onEvent: (e) => events.push(e),
    rateLimits: { rated: RATE, one_at_once: { concurrency: 1 } },
    priority: criticalPath ? 'critical-path' : 'call-order',
  })
  const running = new Set<string>()
  const starts: Array<{ id: string; tool: string; at: number; afterInterrupt: boolean }> = []
  let interrupted = false
  let peak = 0
  let peakOneAtOnce = 0
  const calls = specs.map((spec, i): SchedulableCall => {
    const id = `c${i}`
    const call: SchedulableCall = {
      id,
      footprint: spec.footprint,
      profile: scheduler.profileOf(spec.tool, 'tests'),
      start(): Execution {
        starts.push({ id, tool: spec.tool, at: Date.now(), afterInterrupt: interrupted })
        running.add(id)
        peak = Math.max(peak, running.size)
        peakOneAtOnce = Math.max(peakOneAtOnce, [...running].filter((r) => specs[Number(r.slice(1))]!.tool === 'one_at_once').length)
        let answer!: (outcome: Outcome) => void
        const answered = new Promise<Outcome>((resolve) => (answer = resolve))
        void s.schedule(Promise.resolve(), `finish ${id}`).then(() => answer({ ok: true, value: id }))
        const settled = answered.then(() => {
          running.delete(id)
          return { abandoned: false }
        })
        return { answered, settled, interrupt: () => answer({ ok: false, error: { code: 'E_INTERRUPTED', message: 'interrupted' } }) }
      },
    }
    if (spec.gate !== 'none') call.gate = s.schedule(Promise.resolve(spec.gate === 'deny' ? DENIED : undefined), `gate ${id}`)
    return call
  })
  const controller = new AbortController()
  const outcomes = scheduler.submit(calls, { signal: controller.signal })
  // Live limits: a rule for `plain` arrives while calls wait (the others' rules stay as they were).
  if (reload) void s.schedule(Promise.resolve(), 'reload').then(() => scheduler.pool.setRateLimits({ rated: RATE, one_at_once: { concurrency: 1 }, plain: { calls: 2, per_ms: RATE.per_ms } }))
  if (interrupt) {
    void s.schedule(Promise.resolve(), 'interrupt').then(() => {
      interrupted = true
      controller.abort()
    })
  }
  const answered = new Map<string, JobOutcome>()
  outcomes.forEach((o, i) => void o.then((outcome) => answered.set(`c${i}`, outcome)))
  // fast-check's scheduled tasks first; when none is left, the clock moves to the next rate window.
  for (let guard = 0; answered.size < calls.length || s.count() > 0; guard++) {
    if (guard > 1000) throw new Error('the scheduler stalled')
    if (s.count() > 0) await s.waitOne()
    else await vi.advanceTimersByTimeAsync(RATE.per_ms)
  }

  await vi.advanceTimersByTimeAsync(0)
  const startedIds = new Set(starts.map((st) => st.id))
  specs.forEach((spec, i) => {
    const outcome = answered.get(`c${i}`)!
    if (!startedIds.has(`c${i}`)) {
      expect(outcome.ran).toBe(false)
      const code = outcome.ran ? 'ran' : outcome.error.code
      expect(spec.gate === 'deny' ? ['E_DENIED', 'E_ABORTED'] : ['E_ABORTED']).toContain(code)
      if (!interrupted) expect(code).toBe('E_DENIED')
    } else {
      expect(spec.gate).not.toBe('deny')
      expect(outcome.ran).toBe(true)
      expect(outcome.ran && (outcome.outcome.ok ? 'ok' : outcome.outcome.error.code)).toMatch(/^(ok|E_INTERRUPTED)$/)
    }
  })
  // Nothing starts once the run is interrupted; limits held throughout.
  expect(starts.filter((st) => st.afterInterrupt)).toEqual([])
  expect(peak).toBeLessThanOrEqual(maxWorkers)
  expect(peakOneAtOnce).toBeLessThanOrEqual(1)
  const rated = starts.filter((st) => st.tool === 'rated').map((st) => st.at)
  for (let k = 1; k < rated.length; k++) expect(rated[k]! - rated[k - 1]!).toBeGreaterThanOrEqual(RATE.per_ms)
  // Exactly one answer and one release per call; nothing left waiting or held.
  for (const type of ['finished', 'released'] as const) {
    expect(events.filter((e) => e.type === type).map((e) => e.id).sort()).toEqual(calls.map((c) => c.id).sort())
  }
  expect(scheduler.pending).toBe(0)
  expect(scheduler.running).toBe(0)
  expect(scheduler.pool.waiting).toBe(0)
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
})

test('an interrupt during any wait answers each call once, E_ABORTED exactly for the calls that never started, and gives everything back once', async () => {
  await fc.assert(interruptDuringWaits, propertyRuns(150))
})

// Issue 24 #17, the counterexample as fast-check found it (Node 20 and 24 alike): five calls on one
// worker, one rate-limited, two reading /w/a; c1 finishes, the run is interrupted, then new rate
// limits arrive. It replays only while the property above keeps its arbitraries; the test after it
// is the same case written out.
test('issue 24 #17: seed 1296209786, path 16:7:6:10:13:13:13:13:11 holds', async () => {
  await fc.assert(interruptDuringWaits, { seed: 1296209786, path: '16:7:6:10:13:13:13:13:11', endOnFailure: true })
})

test('issue 24 #17 written out: calls skipped while they waited for a worker take no rate slot when new limits arrive', async () => {
  const t0 = Date.now()
  const starts: Array<[string, number]> = []
  const finish = new Map<string, () => void>()
  const scheduler = new Scheduler({ maxWorkers: 1, now: () => Date.now() - t0, rateLimits: { rated: RATE }, priority: 'call-order' })
  const call = (id: string, tool: string, footprint: Footprint): SchedulableCall => ({
    id,
    footprint,
    profile: scheduler.profileOf(tool, 'tests'),
    start(): Execution {
      starts.push([id, Date.now() - t0])
      let answer!: (outcome: Outcome) => void
      const answered = new Promise<Outcome>((resolve) => (answer = resolve))
      finish.set(id, () => answer({ ok: true, value: id }))
      return { answered, settled: answered.then(() => ({ abandoned: false })), interrupt: () => answer({ ok: false, error: { code: 'E_INTERRUPTED', message: 'interrupted' } }) }
    },
  })
  const free: Footprint = { kind: 'free' }
  const readsA: Footprint = { kind: 'scoped', touches: [{ target: '/w/a', access: 'read', label: '/w/a', isKey: false }] }
  const controller = new AbortController()
  const first = scheduler.submit([call('c0', 'plain', free), call('c1', 'rated', readsA), call('c2', 'plain', free), call('c3', 'plain', readsA), call('c4', 'plain', free)], { signal: controller.signal })
  await vi.advanceTimersByTimeAsync(0)
  expect(starts).toEqual([['c1', 0]]) // its rate slot given, the rated call goes first for the one worker
  finish.get('c1')!()
  controller.abort()
  scheduler.pool.setRateLimits({ rated: RATE, plain: { calls: 2, per_ms: RATE.per_ms } })
  expect((await Promise.all(first)).map((o) => (o.ran ? 'ran' : o.error.code))).toEqual(['E_ABORTED', 'ran', 'E_ABORTED', 'E_ABORTED', 'E_ABORTED'])
  await vi.advanceTimersByTimeAsync(0)
  expect(scheduler.pool.waiting).toBe(0)
  // The two `plain` slots of this window are still there for calls that run: both start now, not a window later.
  const later = scheduler.submit([call('later1', 'plain', free), call('later2', 'plain', free)])
  await vi.advanceTimersByTimeAsync(0)
  finish.get('later1')?.()
  await vi.advanceTimersByTimeAsync(0)
  finish.get('later2')?.()
  expect(starts.slice(1)).toEqual([['later1', 0], ['later2', 0]])
  expect((await Promise.all(later)).map((o) => o.ran)).toEqual([true, true])
})

test('a call refused at its gate, or interrupted while it waits for its rate slot, never uses up a rate slot', async () => {
  const starts: Array<[string, number]> = []
  const t0 = Date.now()
  const scheduler = new Scheduler({ maxWorkers: 4, now: () => Date.now() - t0, rateLimits: { rated: RATE } })
  const call = (id: string, gate?: Promise<ToolError | undefined>): SchedulableCall => ({
    id,
    footprint: { kind: 'free' },
    profile: scheduler.profileOf('rated', 'tests'),
    ...(gate ? { gate } : {}),
    start(): Execution {
      starts.push([id, Date.now() - t0])
      const answered = Promise.resolve<Outcome>({ ok: true, value: id })
      return { answered, settled: answered.then(() => ({ abandoned: false })), interrupt() {} }
    },
  })
  const denied = scheduler.submit([call('denied', Promise.resolve(DENIED)), call('first')])
  const controller = new AbortController()
  const [interrupted] = scheduler.submit([call('interrupted')], { signal: controller.signal })
  await vi.advanceTimersByTimeAsync(10)
  controller.abort()
  const later = scheduler.submit([call('later')])
  await vi.advanceTimersByTimeAsync(3000)
  expect((await Promise.all([...denied, interrupted!, ...later])).map((o) => (o.ran ? 'ran' : o.error.code))).toEqual(['E_DENIED', 'ran', 'E_ABORTED', 'ran'])
  // `later` takes the slot the interrupted call never used: the next window, not the one after.
  expect(starts).toEqual([['first', 0], ['later', 1000]])
})
