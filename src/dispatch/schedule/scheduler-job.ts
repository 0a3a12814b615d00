// The scheduler's bookkeeping per call and per submission (see scheduler.ts).
import type { ToolError } from '../../contract/types.js'
import type { ToolProfile } from './duration-estimates.js'
import type { Execution } from '../execute/execute-call.js'
import type { JobOutcome, OutcomeSink, SchedulableCall, Wait } from './scheduler-types.js'
import type { PoolJob, PoolPlace, RateSlot } from './pool-job.js'
import type { Lease } from '../../store/coordination-store.js'

type JobState = 'pending' | 'running' | 'done'

// Shared by every job with no dep; frozen, so a stray push fails loudly instead of giving every
// such job a wait.
const NO_WAITS = Object.freeze([]) as unknown as Wait[]
const NO_DEPS = Object.freeze([]) as unknown as Job[]

/**
 * Where a call stands with the coordination store: not asked yet, asking (waiting for other hosts),
 * holding a lease, or passed unasked while this host was alone (its claim is published if another
 * host joins while it is held).
 */
export type StoreStanding = 'none' | 'asking' | 'leased' | 'alone'

/**
 * The calls of one submission with a signal: its abort listener goes once all are released.
 *
 * @example
 * const submission = new Submission(jobs.length, signal, () => interruptAll(jobs))
 */
export class Submission {
  remaining: number
  readonly signal: AbortSignal
  readonly onAbort: () => void

  constructor(remaining: number, signal: AbortSignal, onAbort: () => void) {
    this.remaining = remaining
    this.signal = signal
    this.onAbort = onAbort
  }
}

/**
 * One call inside the scheduler: its waits, who waits for it, its state, and its one outcome.
 *
 * @example
 * const job = new Job(1, call)
 * job.answer({ ran: false, error, waits: [] }) // job.outcome resolves with it (or its sink is told)
 */
export class Job implements PoolJob {
  readonly seq: number
  readonly key: string
  readonly call: SchedulableCall
  readonly profile: ToolProfile | undefined
  state: JobState = 'pending'
  /** Estimated ms of work on the longest chain starting here (its priority for a worker). */
  bottom = 0
  place: PoolPlace = 'none'
  startedAt = 0
  /** Its waits, one per dep (the same empty array, frozen, until it has one: most calls wait for nothing). */
  waits: Wait[] = NO_WAITS
  deps: Job[] = NO_DEPS
  /** Later jobs that wait for this one's release. */
  dependents: Job[] | undefined = undefined
  /** Unreleased deps, plus one while the approval gate is open. */
  blockers = 0
  /** Its gate has not settled yet: its availability, permission or approval is still being decided. */
  held = false
  execution: Execution | undefined = undefined
  /** The pool wait last announced to listeners (`waiting-worker` or `waiting-rate`). */
  poolWait: 'worker' | 'rate' | undefined = undefined
  answered = false
  released = false
  /** Ended without starting (its approval refused, or interrupted first): it was nobody's wait. */
  skipped = false
  storeStanding: StoreStanding = 'none'
  /** In the scheduler's reservations (unreleased), and its neighbours in their list (reservations.ts). */
  reserved = false
  reservedPrev: Job | undefined = undefined
  reservedNext: Job | undefined = undefined
  /** Told the outcome when the call is answered, with `slot` (`Scheduler.submitTo`): no promise per call. */
  sink: OutcomeSink | undefined = undefined
  /** The call's index in its submission, for the sink. */
  slot = 0
  // What most calls never set (a rate slot, a gate's error, an interrupt, the store's lease, the
  // outcome promise), in an object made on first write: a job is a third smaller without them.
  #rare: RareJobFields | undefined = undefined

  constructor(seq: number, call: SchedulableCall) {
    this.seq = seq
    this.key = String(seq)
    this.call = call
    this.profile = call.profile
  }

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

  /**
   * Resolves with the call's one outcome (made on first use; `Scheduler.submit` asks for it at once).
   * A job submitted with a sink has none: its sink is told instead.
   */
  get outcome(): Promise<JobOutcome> {
    if (this.sink !== undefined) throw new Error(`scheduler: call ${this.call.id} reports to a sink; it has no outcome promise`)
    const rare = this.#more()
    if (rare.promise === undefined) {
      const answered = rare.answer
      rare.promise = answered !== undefined ? Promise.resolve(answered) : new Promise<JobOutcome>((resolve) => {
        rare.resolve = resolve
      })
    }
    return rare.promise
  }

  /** Waits for `earlier`'s release (`earlier` is unreleased: reserved, or of the same submission). */
  dependOn(earlier: Job, reason: string): void {
    if (this.deps === NO_DEPS) {
      this.deps = []
      this.waits = []
    }
    this.deps.push(earlier)
    this.waits.push({ id: earlier.call.id, reason })
    ;(earlier.dependents ??= []).push(this)
    this.blockers++
  }

  /**
   * The waits that held this call up: on earlier calls that ran (or still may), not on those skipped
   * without running, which held nothing for it (a denied call is nobody's wait, as `explain` says).
   */
  heldBy(): Wait[] {
    const deps = this.deps
    let skipped = false
    for (let i = 0; i < deps.length; i++) if (deps[i]!.skipped) skipped = true
    return skipped ? this.waits.filter((_, i) => !deps[i]!.skipped) : this.waits
  }

  isPending(): boolean {
    return this.state === 'pending'
  }

  answer(outcome: JobOutcome): void {
    this.answered = true
    if (this.sink !== undefined) {
      this.sink.answer(this.slot, outcome)
      return
    }
    const resolve = this.#rare?.resolve
    if (resolve !== undefined) resolve(outcome)
    else this.#more().answer = outcome
  }

  #more(): RareJobFields {
    return (this.#rare ??= new RareJobFields())
  }
}

// The fields of a job that most calls never set (see `Job`).
class RareJobFields {
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

