// A speed trick: p-queue runs every handler, but not one p-queue task per call. A slot is one
// p-queue task, so it holds one of p-queue's `concurrency` workers; it takes the waiting call that
// goes first (ready-queue.ts's order), and when that call's handler answers at once (returns no
// promise) it takes the next, in the same worker, until one returns a promise: that slot stays with
// the running handler until it settles (a new slot is added for the calls still waiting), then goes
// on taking calls.
//
// What it saves: p-queue's own work per task (an async `add` with its promises, an options copy,
// a Symbol, closures, a running-task entry, two `Date.now()`, a `queueMicrotask`, four events) for
// every call whose handler answers at once, and for every call that a slot takes after its handler
// settled (more calls waiting than workers). BENCHMARKS.md's cost rows show it (their no-op
// handlers answer at once); the row "batch of 8, async no-op handlers" is the case it cannot help:
// eight handlers that return a promise on eight workers are eight slots.
//
// What it keeps: p-queue is the only limit on how many handlers run at once (a handler runs only
// inside a slot, one at a time, and a slot stops taking calls when p-queue's `pending` is over its
// `concurrency`: a lowered `max_workers` holds); the call a worker takes is the best one waiting
// at that moment; nothing is taken while the pool is held or throttled.

import type PQueue from 'p-queue'
import type { ReadyQueue } from './ready-queue.js'

/**
 * The slots of a worker pool: `fill` after anything that may let a waiting call start (a call
 * queued, the pool let go, a worker freed, a higher limit).
 *
 * @example
 * const slots = new WorkerSlots(new PQueue({ concurrency: 8 }), ready, (job) => run(job), () => !held)
 * ready.enqueue(START, { id: job.key, priority: job.bottom, seq: job.seq, item: job })
 * slots.fill() // a slot takes the job now if a worker is free
 */
export class WorkerSlots<Job> {
  readonly #queue: PQueue
  readonly #ready: ReadyQueue
  readonly #start: (job: Job) => Promise<unknown> | undefined
  readonly #mayTake: () => boolean
  // Slots not running a handler: queued in p-queue for a worker, or between calls (at most one).
  #free = 0
  #filling = false

  /**
   * `queue` limits the workers; `ready` holds the waiting calls (each entry's `item` is the job);
   * `start` runs a job's handler (undefined when it answered at once); `mayTake` is false while
   * the pool holds starts off.
   */
  constructor(queue: PQueue, ready: ReadyQueue, start: (job: Job) => Promise<unknown> | undefined, mayTake: () => boolean) {
    this.#queue = queue
    this.#ready = ready
    this.#start = start
    this.#mayTake = mayTake
  }

  /** Adds a slot when calls wait and no slot is free (one loop: a slot p-queue starts at once may go async and need another). */
  fill(): void {
    if (this.#filling) return
    this.#filling = true
    try {
      while (this.#free === 0 && this.#ready.size > 0 && this.#mayTake()) {
        this.#free++
        void this.#queue.add(this.#slot)
      }
    } finally {
      this.#filling = false
    }
  }

  // One p-queue task: calls one after another, in one worker, while any may be taken. A handler that
  // returns a promise keeps the worker (another slot is added for the calls still waiting); once it
  // settles, this slot goes on taking calls. An async function with a loop, so a slot that runs many
  // such calls holds one promise, not a chain of them.
  readonly #slot = async (): Promise<void> => {
    for (let running = this.#takeUntilAsync(); running !== undefined; running = this.#takeUntilAsync()) {
      await running
      this.#free++
    }
  }

  // Starts calls while they answer at once; the first promise a handler returns, or nothing once no
  // call may be taken (this slot is then no longer free: it ends, or waits for that promise).
  #takeUntilAsync(): Promise<unknown> | undefined {
    const queue = this.#queue
    const ready = this.#ready
    while (ready.size > 0 && this.#mayTake() && queue.pending <= queue.concurrency) {
      const running = this.#start(ready.takeNext() as Job)
      if (running !== undefined) {
        this.#free--
        this.fill()
        return running
      }
    }
    this.#free--
    return undefined
  }
}
