// The scheduler's bookkeeping per call and per submission (see scheduler.ts).
import type { ToolError } from '../../contract/types.js'
import type { ToolProfile } from './duration-estimates.js'
import type { Execution } from '../execute/execute-call.js'
import type { JobOutcome, SchedulableCall, Wait } from './scheduler-types.js'
import type { PoolJob, PoolPlace, RateSlot } from './worker-pool.js'

type JobState = 'pending' | 'running' | 'done'

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
 * job.answer({ ran: false, error, waits: [] }) // job.outcome resolves with it
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
  rate: RateSlot | undefined = undefined
  startedAt = 0
  readonly waits: Wait[] = []
  readonly deps: Job[] = []
  /** Later jobs that wait for this one's release. */
  dependents: Job[] | undefined = undefined
  /** Unreleased deps, plus one while the approval gate is open. */
  blockers = 0
  /** Its gate has not settled yet: its availability, permission or approval is still being decided. */
  held = false
  gateError: ToolError | undefined = undefined
  execution: Execution | undefined = undefined
  /** The pool wait last announced to listeners (`waiting-worker` or `waiting-rate`). */
  poolWait: 'worker' | 'rate' | undefined = undefined
  /** An interrupt arrived while the job was starting (e.g. from a 'started' listener). */
  interruptPending = false
  /** Interrupted while running: its duration says nothing about the tool. */
  interrupted = false
  answered = false
  released = false
  submission: Submission | undefined = undefined
  readonly outcome: Promise<JobOutcome>
  #resolve!: (outcome: JobOutcome) => void

  constructor(seq: number, call: SchedulableCall) {
    this.seq = seq
    this.key = String(seq)
    this.call = call
    this.profile = call.profile
    this.outcome = new Promise<JobOutcome>((resolve) => {
      this.#resolve = resolve
    })
  }

  /** Waits for `earlier`'s release (`earlier` is unreleased: reserved, or of the same submission). */
  dependOn(earlier: Job, reason: string): void {
    this.deps.push(earlier)
    this.waits.push({ id: earlier.call.id, reason })
    ;(earlier.dependents ??= []).push(this)
    this.blockers++
  }

  isPending(): boolean {
    return this.state === 'pending'
  }

  answer(outcome: JobOutcome): void {
    this.answered = true
    this.#resolve(outcome)
  }
}

