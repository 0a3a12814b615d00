/**
 * A huge batch costs the scheduler linear work (issue 12, new variant: 60,000 echo calls in one
 * batch took over a minute of CPU, 40,000 took one second). Re-ranking waiting calls after the
 * estimates moved walked every unreleased call after every answer, and re-set each waiting call's
 * priority by a scan of the queue. Counted in work done (estimate look-ups), never in time.
 */
import { describe, expect, test } from 'vitest'
import { DurationEstimates, type ToolProfile } from '../../../src/dispatch/schedule/duration-estimates.js'
import type { Execution, Outcome } from '../../../src/dispatch/execute/execute-call.js'
import { ReadyQueue } from '../../../src/dispatch/schedule/ready-queue.js'
import { Scheduler, type SchedulableCall } from '../../../src/dispatch/schedule/scheduler.js'

// Estimates that move with every sample (the worst case: every answer asks for a re-ranking), and
// count how often a call's estimate is looked up: the work of ranking.
class RestlessEstimates extends DurationEstimates {
  lookups = 0
  override record(profile: ToolProfile, ms: number): boolean {
    super.record(profile, ms)
    return true
  }
  override estimate(profile: ToolProfile | undefined): number {
    this.lookups++
    return super.estimate(profile)
  }
}

function syncCall(id: string, profile: ToolProfile): SchedulableCall {
  const outcome: Outcome = { ok: true, value: id }
  return {
    id,
    footprint: { kind: 'free' },
    profile,
    start: (): Execution => ({ answered: Promise.resolve(outcome), settled: Promise.resolve({ abandoned: false }), interrupt() {}, done: outcome }),
  }
}

describe('re-ranking waiting calls is amortised', () => {
  test('however often the estimates move, a batch of n calls costs O(n) estimate look-ups', async () => {
    const n = 4000
    const estimates = new RestlessEstimates()
    let clock = 0
    // Each reading of the clock moves it a different amount: every call's duration differs.
    const scheduler = new Scheduler({ maxWorkers: 1, now: () => (clock += (clock % 7) + 1), estimates })
    const profile = scheduler.profileOf('echo', 'tests')
    const outcomes = scheduler.submit(Array.from({ length: n }, (_, i) => syncCall(`c${i}`, profile)))
    const answers = await Promise.all(outcomes)
    await scheduler.onIdle()
    expect(answers.every((a) => a.ran && a.outcome.ok)).toBe(true)
    // Re-ranking after every answer would be about n²/2 = 8,000,000 look-ups.
    expect(estimates.lookups).toBeLessThan(100 * n)
    expect(estimates.lookups).toBeGreaterThan(n) // it still re-ranks: the estimates moved
  })
})

describe('ReadyQueue.reorder', () => {
  test('sets every priority from its item and keeps highest first, then arrival order', async () => {
    const queue = new ReadyQueue()
    const items = Array.from({ length: 50 }, (_, seq) => ({ seq, priority: seq % 5 }))
    for (const item of items) queue.enqueue(async () => item.seq, { id: String(item.seq), seq: item.seq, priority: item.priority, item })
    // Priorities move together (new estimates), with many ties left to arrival order.
    for (const item of items) item.priority = 10 - (item.seq % 10)
    queue.reorder((item) => (item as { priority: number }).priority)
    const order: unknown[] = []
    for (let run = queue.dequeue(); run !== undefined; run = queue.dequeue()) order.push(await run())
    expect(order).toEqual([...items].sort((a, b) => b.priority - a.priority || a.seq - b.seq).map((i) => i.seq))
  })
})
