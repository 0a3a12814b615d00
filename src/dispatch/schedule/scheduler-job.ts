// The scheduler's bookkeeping per call and per submission (see scheduler.ts).
import type { ToolProfile } from './duration-estimates.js'
import type { Execution } from '../execute/execute-call.js'
import type { JobOutcome, OutcomeSink, SchedulableCall, Wait } from './scheduler-types.js'
import type { PoolJob, PoolPlace } from './pool-job.js'
import { RareJobFields } from './rare-job-fields.js'
import { sharedEmpty } from './shared-empty.js'

type JobState = 'pending' | 'running' | 'done'

// Shared by every job with no dep (see shared-empty.ts).
const NO_WAITS = sharedEmpty<Wait>()
const NO_DEPS = sharedEmpty<Job>()

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
export class Job extends RareJobFields implements PoolJob {
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
  constructor(seq: number, call: SchedulableCall) {
    super()
    this.seq = seq
    this.key = String(seq)
    this.call = call
    this.profile = call.profile
  }

  /**
   * Resolves with the call's one outcome (made on first use; `Scheduler.submit` asks for it at once).
   * A job submitted with a sink has none: its sink is told instead.
   */
  get outcome(): Promise<JobOutcome> {
    if (this.sink !== undefined) throw new Error(`scheduler: call ${this.call.id} reports to a sink; it has no outcome promise`)
    const rare = this.rareFields()
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
    const resolve = this.rareFieldsIfAny()?.resolve
    if (resolve !== undefined) resolve(outcome)
    else this.rareFields().answer = outcome
  }
}
