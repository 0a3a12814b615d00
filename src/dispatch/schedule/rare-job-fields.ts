// A speed trick, kept here so scheduler-job.ts reads as the domain: the fields of a scheduled call
// that most calls never set (a rate slot, a gate's error, an interrupt, its submission, the store's
// lease, the outcome promise) live in one object made on first write, behind accessors that read
// as plain fields. What it saves: a Job is about a third smaller, and a batch of 1,000 allocates
// 1,000 fewer objects' worth of slots; BENCHMARKS.md's cost rows ("per call, batch of 1,000") and
// memory table show it. To undo it, move the fields back into Job: nothing else changes.
import type { ToolError } from '../../contract/types.js'
import type { Lease } from '../../store/coordination-store.js'
import type { RateSlot } from './pool-job.js'
import type { JobOutcome } from './scheduler-types.js'

/** A submission with a signal, as a job holds it (scheduler-job.ts's `Submission`). */
interface Submission {
  remaining: number
  readonly signal: AbortSignal
  readonly onAbort: () => void
}

class RareFields {
  rate: RateSlot | undefined = undefined
  gateError: ToolError | undefined = undefined
  interruptPending = false
  interrupted = false
  submission: Submission | undefined = undefined
  lease: Lease | undefined = undefined
  storeAbort: AbortController | undefined = undefined
  promise: Promise<JobOutcome> | undefined = undefined
  resolve: ((outcome: JobOutcome) => void) | undefined = undefined
  answer: JobOutcome | undefined = undefined
}

/** The base of `Job`: its rarely set fields, made on first write (a write of the default makes nothing). */
export class RareJobFields {
  #rare: RareFields | undefined = undefined

  /** Its hold on its `rate_limits` group (a rate-limited call). */
  get rate(): RateSlot | undefined {
    return this.#rare?.rate
  }

  set rate(value: RateSlot | undefined) {
    if (value !== undefined || this.#rare !== undefined) this.#more().rate = value
  }

  /** Why its gate refused it (an approval denied or failed). */
  get gateError(): ToolError | undefined {
    return this.#rare?.gateError
  }

  set gateError(value: ToolError | undefined) {
    if (value !== undefined || this.#rare !== undefined) this.#more().gateError = value
  }

  /** An interrupt arrived while the job was starting (e.g. from a 'started' listener). */
  get interruptPending(): boolean {
    return this.#rare?.interruptPending ?? false
  }

  set interruptPending(value: boolean) {
    if (value || this.#rare !== undefined) this.#more().interruptPending = value
  }

  /** Interrupted while running: its duration says nothing about the tool. */
  get interrupted(): boolean {
    return this.#rare?.interrupted ?? false
  }

  set interrupted(value: boolean) {
    if (value || this.#rare !== undefined) this.#more().interrupted = value
  }

  /** Its submission, when that has a signal (the abort listener goes once all its calls are released). */
  get submission(): Submission | undefined {
    return this.#rare?.submission
  }

  set submission(value: Submission | undefined) {
    if (value !== undefined || this.#rare !== undefined) this.#more().submission = value
  }

  /** The store's lease on this call's claim, given back on release. */
  get lease(): Lease | undefined {
    return this.#rare?.lease
  }

  set lease(value: Lease | undefined) {
    if (value !== undefined || this.#rare !== undefined) this.#more().lease = value
  }

  /** Gives up the store request while asking (the call was released first). */
  get storeAbort(): AbortController | undefined {
    return this.#rare?.storeAbort
  }

  set storeAbort(value: AbortController | undefined) {
    if (value !== undefined || this.#rare !== undefined) this.#more().storeAbort = value
  }

  /** The rare fields, made now if they were not. */
  protected rareFields(): RareFields {
    return this.#more()
  }

  /** The rare fields if a write made them. */
  protected rareFieldsIfAny(): RareFields | undefined {
    return this.#rare
  }

  #more(): RareFields {
    return (this.#rare ??= new RareFields())
  }
}
