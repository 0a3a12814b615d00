// A speed trick: one options object for every `PQueue.add` of a pool, refilled per call, instead of
// a new object literal per call. It is safe because p-queue copies the options first thing in
// `add`, before the task can start and hand the pool another call (test/dispatch/schedule/
// scheduler.test.ts's priority order would break if it did not). What it saves: one allocation per call,
// seen in BENCHMARKS.md's cost rows ("per call, batch of 1,000").

/** What the pool hands p-queue with each call: its priority, and the job for the queue's ordering. */
export interface AddOptions {
  priority: number
  id: string
  seq: number
  item: unknown
}

/** One reusable `AddOptions`: `fill` before an add, `clear` after (so the object keeps no job alive). */
export class ReusedAddOptions {
  readonly #options: AddOptions = { priority: 0, id: '', seq: 0, item: undefined }

  fill(priority: number, id: string, seq: number, item: unknown): AddOptions {
    const options = this.#options
    options.priority = priority
    options.id = id
    options.seq = seq
    options.item = item
    return options
  }

  clear(): void {
    this.#options.item = undefined
  }
}
