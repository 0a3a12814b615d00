import PQueue from 'p-queue'
import { describe, expect, it } from 'vitest'
import { ReadyQueue } from '../../../src/dispatch/schedule/ready-queue.js'
import { WorkerSlots } from '../../../src/dispatch/schedule/worker-slots.js'

interface TestJob {
  seq: number
  priority: number
  /** What the handler does: answer at once, or return a promise the test settles. */
  kind: 'sync' | 'async'
  /** Run by the handler before it answers (a handler that changes the limit, say). */
  during?: () => void
}

const NOT_A_TASK = (): Promise<unknown> => Promise.resolve()

/** A pool of slots over a real p-queue: records start order, running peak and how many p-queue tasks ran. */
function pool(concurrency: number) {
  const queue = new PQueue({ concurrency })
  const ready = new ReadyQueue()
  const started: number[] = []
  const pending = new Map<number, () => void>()
  let running = 0
  let peak = 0
  let tasks = 0
  let held = false
  queue.on('active', () => tasks++)
  const slots = new WorkerSlots<TestJob>(
    queue,
    ready,
    (job) => {
      started.push(job.seq)
      job.during?.()
      running++
      peak = Math.max(peak, running)
      if (job.kind === 'sync') {
        running--
        return undefined
      }
      return new Promise<void>((resolve) => {
        pending.set(job.seq, () => {
          running--
          pending.delete(job.seq)
          resolve()
        })
      })
    },
    () => !held,
  )
  return {
    queue,
    slots,
    started,
    pending,
    get peak() {
      return peak
    },
    get tasks() {
      return tasks
    },
    hold(on: boolean) {
      held = on
      if (!on) slots.fill()
    },
    add(job: TestJob) {
      ready.enqueue(NOT_A_TASK, { id: String(job.seq), priority: job.priority, seq: job.seq, item: job })
      slots.fill()
    },
    settle(seq: number) {
      pending.get(seq)!()
    },
  }
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('WorkerSlots', () => {
  it('runs handlers that answer at once one after another in one p-queue task, best first', async () => {
    const p = pool(4)
    p.hold(true)
    for (let seq = 1; seq <= 50; seq++) p.add({ seq, priority: seq % 5, kind: 'sync' })
    p.hold(false)
    await flush()
    expect(p.started).toHaveLength(50)
    // Highest priority first, then arrival.
    const order = [...p.started]
    const expected = Array.from({ length: 50 }, (_, i) => i + 1).sort((a, b) => (b % 5) - (a % 5) || a - b)
    expect(order).toEqual(expected)
    expect(p.tasks).toBe(1)
  })

  it('a handler that returns a promise keeps its worker; no more than `concurrency` run at once', async () => {
    const p = pool(3)
    for (let seq = 1; seq <= 10; seq++) p.add({ seq, priority: 0, kind: seq % 2 === 0 ? 'sync' : 'async' })
    await flush()
    // 1, 3, 5 are async and hold the three workers; 2 and 4 answered at once between them.
    expect(p.started).toEqual([1, 2, 3, 4, 5])
    expect(p.pending.size).toBe(3)
    p.settle(3)
    await flush()
    expect(p.started).toEqual([1, 2, 3, 4, 5, 6, 7])
    for (const seq of [1, 5, 7]) p.settle(seq)
    await flush()
    for (const seq of [...p.pending.keys()]) p.settle(seq)
    await flush()
    expect(p.started).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(p.peak).toBeLessThanOrEqual(3)
    expect(p.queue.pending).toBe(0)
  })

  it('takes nothing while held, and everything once let go', async () => {
    const p = pool(2)
    p.hold(true)
    for (let seq = 1; seq <= 5; seq++) p.add({ seq, priority: 0, kind: 'sync' })
    await flush()
    expect(p.started).toEqual([])
    p.hold(false)
    await flush()
    expect(p.started).toEqual([1, 2, 3, 4, 5])
  })

  it('a lowered concurrency holds: a slot stops taking calls while p-queue runs more tasks than it allows', async () => {
    const p = pool(3)
    p.add({ seq: 1, priority: 0, kind: 'async' })
    p.add({ seq: 2, priority: 0, kind: 'async' })
    await flush()
    expect(p.pending.size).toBe(2)
    p.queue.concurrency = 1
    for (let seq = 3; seq <= 6; seq++) p.add({ seq, priority: 0, kind: 'sync' })
    await flush()
    // Two handlers still run on a limit of one: nothing else starts.
    expect(p.started).toEqual([1, 2])
    p.settle(1)
    await flush()
    expect(p.started).toEqual([1, 2])
    p.settle(2)
    await flush()
    expect(p.started).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('a limit lowered by a handler that answers at once stops its slot before the next call', async () => {
    const p = pool(2)
    p.add({ seq: 1, priority: 0, kind: 'async' })
    p.hold(true)
    p.add({ seq: 2, priority: 0, kind: 'sync', during: () => (p.queue.concurrency = 1) })
    for (let seq = 3; seq <= 5; seq++) p.add({ seq, priority: 0, kind: 'sync' })
    p.hold(false)
    await flush()
    // Call 1 still runs on a limit of one: call 2's slot took no further call.
    expect(p.started).toEqual([1, 2])
    p.settle(1)
    p.slots.fill() // the pool fills when a worker is freed
    await flush()
    expect(p.started).toEqual([1, 2, 3, 4, 5])
  })

  it('a slot goes on taking calls once its handler settled: 20 async calls on 2 workers are 3 p-queue tasks', async () => {
    const p = pool(2)
    for (let seq = 1; seq <= 20; seq++) p.add({ seq, priority: 0, kind: 'async' })
    await flush()
    expect(p.started).toEqual([1, 2])
    while (p.pending.size > 0) {
      for (const seq of [...p.pending.keys()]) p.settle(seq)
      await flush()
    }
    expect(p.started).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(p.peak).toBe(2)
    // The two slots that ran the calls, and the one added while both were busy (it found nothing left).
    expect(p.tasks).toBe(3)
    expect(p.queue.pending).toBe(0)
  })
})
