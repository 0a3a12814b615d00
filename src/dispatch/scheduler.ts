import type { ToolError } from '../types.js'
import { createDeferred, type Deferred } from './deferred.js'
import type { Execution, Outcome } from './execute-call.js'
import { conflictReason, type Footprint } from './footprint.js'
import { ReadyQueue } from './ready-queue.js'
import { Job, Submission } from './scheduler-job.js'

/** What the scheduler needs of a call that passed parse, lookup, validation and authorisation. */
export interface SchedulableCall {
  id: string
  footprint: Footprint
  /** Resolves with undefined to run, or with the error that stops it (a denied approval). */
  gate?: Promise<ToolError | undefined>
  /** Starts the handler; called at most once, when a worker is free and every wait is over. */
  start(): Execution
}

/** One wait of a call: the earlier call it waits for, and why. */
export interface Wait {
  id: string
  reason: string
}

export type SchedulerEvent =
  | { type: 'queued'; id: string; seq: number; at: number }
  | { type: 'waiting'; id: string; seq: number; at: number; on: Wait[] }
  | { type: 'started'; id: string; seq: number; at: number; running: number }
  | { type: 'finished'; id: string; seq: number; at: number; ok: boolean; code?: string }
  | { type: 'released'; id: string; seq: number; at: number; abandoned: boolean }

/** How a scheduled call ended, as the host shapes it into a result. */
export type JobOutcome =
  | { ran: true; outcome: Outcome; startedAt: number; endedAt: number; waits: Wait[] }
  | { ran: false; error: ToolError; waits: Wait[] }

export interface SchedulerOptions {
  maxWorkers: number
  now: () => number
  onEvent?: (event: SchedulerEvent) => void
  /** When given, events are built and sent only while it returns true (nobody listening: no event objects). */
  listening?: () => boolean
}

export interface SubmitOptions {
  /** Extra waits inside this submission (by index into `calls`), from the batch's mode. */
  modeWaits?: ReadonlyArray<ReadonlyArray<{ index: number; reason: string }>>
  signal?: AbortSignal
}

/**
 * The online conflict scheduler: calls arrive in order (as a batch or one by one); each starts once
 * every earlier, still-unfinished call it conflicts with has released its reservations, a worker is
 * free, and its approval (if any) came back. Barriers wait for all before them and hold all after.
 * A call that is ready waits for a worker in arrival order; a handler that finishes without a promise
 * is answered and released at once.
 *
 * The worker pool is its own (a heap of ready calls and a running count) rather than p-queue, which
 * the first version used: p-queue's queue bookkeeping was ~20% of a 1,000-call batch's cost, and a
 * slot here must be freed when the handler settles, not when its answer is sent (BENCHMARKS.md).
 *
 * @example
 * const scheduler = new Scheduler({ maxWorkers: 8, now: () => performance.now() })
 * const [outcome] = scheduler.submit([{ id: 'c1', footprint: { kind: 'free' }, start: () => executeCall(tool, args, makeContext, options) }])
 * await outcome // { ran: true, outcome: { ok: true, value }, startedAt, endedAt, waits: [] }
 */
export class Scheduler {
  readonly #maxWorkers: number
  readonly #now: () => number
  readonly #onEvent: ((event: SchedulerEvent) => void) | undefined
  readonly #listening: (() => boolean) | undefined
  // Unreleased jobs by footprint kind, in arrival order (Sets keep insertion order).
  readonly #barriers = new Set<Job>()
  readonly #scoped = new Set<Job>()
  readonly #free = new Set<Job>()
  // Jobs whose waits are over, to be sorted out (skipped or queued) by #process.
  #arrivals: Job[] = []
  #arrivalHead = 0
  // Jobs that wait only for a worker, earliest arrival first.
  readonly #ready = new ReadyQueue<Job>()
  #processing = false
  #idle: Deferred<void> | undefined
  #seq = 0
  #running = 0
  #peakRunning = 0

  constructor(options: SchedulerOptions) {
    if (!Number.isInteger(options.maxWorkers) || options.maxWorkers < 1) {
      throw new TypeError(`Expected \`maxWorkers\` to be an integer ≥ 1, got \`${String(options.maxWorkers)}\` (${typeof options.maxWorkers})`)
    }
    this.#maxWorkers = options.maxWorkers
    this.#now = options.now
    this.#onEvent = options.onEvent
    this.#listening = options.listening
  }

  /** Handlers running right now, and the most that ever ran at once. */
  get running(): number {
    return this.#running
  }

  get peakRunning(): number {
    return this.#peakRunning
  }

  /** Calls not yet released (waiting, queued or running). */
  get pending(): number {
    return this.#barriers.size + this.#scoped.size + this.#free.size
  }

  /**
   * Schedules calls in the order given; returns one promise per call, each resolving exactly once.
   * Never rejects: every way a call can end is an outcome.
   */
  submit(calls: readonly SchedulableCall[], options: SubmitOptions = {}): Promise<JobOutcome>[] {
    const jobs: Job[] = new Array(calls.length)
    const outcomes: Promise<JobOutcome>[] = new Array(calls.length)
    const modeWaits = options.modeWaits
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!
      const job = new Job(++this.#seq, call)
      this.#collectConflicts(job)
      const extra = modeWaits?.[i]
      if (extra !== undefined) {
        for (const wait of extra) {
          const dep = wait.index < i ? jobs[wait.index] : undefined
          if (dep && !job.deps.includes(dep)) this.#dependOn(job, dep, wait.reason)
        }
      }
      this.#reserve(job)
      jobs[i] = job
      outcomes[i] = job.outcome
      if (this.#wantsEvents()) {
        this.#emit({ type: 'queued', id: call.id, seq: job.seq, at: this.#now() })
        if (job.waits.length > 0) this.#emit({ type: 'waiting', id: call.id, seq: job.seq, at: this.#now(), on: job.waits })
      }
    }
    const signal = options.signal
    if (signal?.aborted) {
      // Interrupted before anything could start: every call is skipped. (Checked before driving,
      // because a call starts synchronously when a worker is free.)
      this.#holding(() => {
        for (const job of jobs) {
          void job.call.gate?.catch(() => undefined) // never awaited now; keep a rejection handled
          this.#interrupt(job)
        }
      })
      return outcomes
    }
    if (signal && jobs.length > 0) {
      const submission = new Submission(jobs.length, signal, () => this.#holding(() => {
        for (const job of jobs) this.#interrupt(job)
      }))
      for (const job of jobs) job.submission = submission
      signal.addEventListener('abort', submission.onAbort, { once: true })
    }
    for (const job of jobs) {
      if (job.call.gate) this.#openGate(job, job.call.gate)
      if (job.blockers === 0) this.#arrive(job)
    }
    this.#process()
    return outcomes
  }

  /** Resolves when every submitted call has been released. */
  async onIdle(): Promise<void> {
    while (this.pending > 0) await (this.#idle ??= createDeferred<void>()).promise
  }

  #collectConflicts(job: Job): void {
    const fp = job.call.footprint
    if (fp.kind === 'barrier') {
      // Everything unreleased, in arrival order.
      for (const earlier of this.#inArrivalOrder()) this.#consider(job, earlier)
      return
    }
    for (const earlier of this.#barriers) this.#consider(job, earlier)
    if (fp.kind === 'scoped') for (const earlier of this.#scoped) this.#consider(job, earlier)
  }

  // A method, not a closure made per call: under tsx a named closure costs a defineProperty.
  #consider(job: Job, earlier: Job): void {
    const reason = conflictReason(earlier.call.footprint, job.call.footprint, earlier.call.id)
    if (reason !== undefined) this.#dependOn(job, earlier, reason)
  }

  // `earlier` is unreleased here (it is reserved, or of the same submission and not yet driven).
  #dependOn(job: Job, earlier: Job, reason: string): void {
    job.deps.push(earlier)
    job.waits.push({ id: earlier.call.id, reason })
    ;(earlier.dependents ??= []).push(job)
    job.blockers++
  }

  #openGate(job: Job, gate: Promise<ToolError | undefined>): void {
    job.blockers++
    gate.then(
      (error) => {
        job.gateError = error
        this.#unblock(job)
      },
      (error: unknown) => {
        job.gateError = { code: 'E_DENIED', message: `the approval failed: ${String((error as Error)?.message ?? error)}` }
        this.#unblock(job)
      },
    )
  }

  #unblock(job: Job): void {
    if (--job.blockers === 0) {
      this.#arrive(job)
      this.#process()
    }
  }

  #inArrivalOrder(): Job[] {
    return [...this.#barriers, ...this.#scoped, ...this.#free].sort((a, b) => a.seq - b.seq)
  }

  #reserve(job: Job): void {
    const kind = job.call.footprint.kind
    ;(kind === 'barrier' ? this.#barriers : kind === 'scoped' ? this.#scoped : this.#free).add(job)
  }

  #release(job: Job, abandoned: boolean): void {
    if (job.released) return
    job.released = true
    this.#barriers.delete(job)
    this.#scoped.delete(job)
    this.#free.delete(job)
    job.state = 'done'
    if (this.#wantsEvents()) this.#emit({ type: 'released', id: job.call.id, seq: job.seq, at: this.#now(), abandoned })
    const submission = job.submission
    if (submission !== undefined && --submission.remaining === 0) submission.signal.removeEventListener('abort', submission.onAbort)
    if (job.dependents !== undefined) {
      for (const dependent of job.dependents) if (--dependent.blockers === 0) this.#arrive(dependent)
    }
    if (this.#idle !== undefined && this.pending === 0) {
      const idle = this.#idle
      this.#idle = undefined
      idle.resolve()
    }
    this.#process()
  }

  #arrive(job: Job): void {
    this.#arrivals.push(job)
  }

  // Runs `body` with starting held off, then starts what can start: an interrupt skips every
  // pending call of its submission before any of them (made ready by another's skip) could start.
  #holding(body: () => void): void {
    if (this.#processing) {
      body()
      return
    }
    this.#processing = true
    try {
      body()
    } finally {
      this.#processing = false
    }
    this.#process()
  }

  // One loop (never recursion) sorts out arrived jobs and starts ready ones while a worker is free,
  // so long chains of calls that finish at once, or of refused approvals, cannot grow the stack.
  #process(): void {
    if (this.#processing) return
    this.#processing = true
    try {
      for (;;) {
        if (this.#arrivalHead < this.#arrivals.length) {
          const job = this.#arrivals[this.#arrivalHead++]!
          if (this.#arrivalHead === this.#arrivals.length) {
            this.#arrivals = []
            this.#arrivalHead = 0
          }
          if (job.state !== 'pending') continue // interrupted while waiting
          if (job.gateError) this.#skip(job, job.gateError)
          else this.#ready.push(job)
          continue
        }
        if (this.#running >= this.#maxWorkers) break
        const next = this.#ready.pop()
        if (next === undefined) break
        if (next.state === 'pending') this.#runJob(next) // else: interrupted while queued for a worker
      }
    } finally {
      this.#processing = false
    }
  }

  #runJob(job: Job): void {
    job.state = 'running'
    const startedAt = this.#now()
    this.#running++
    if (this.#running > this.#peakRunning) this.#peakRunning = this.#running
    if (this.#wantsEvents()) this.#emit({ type: 'started', id: job.call.id, seq: job.seq, at: startedAt, running: this.#running })
    let execution: Execution
    try {
      execution = job.call.start()
    } catch (error) {
      this.#running--
      const outcome: Outcome = { ok: false, error: { code: 'E_TOOL_FAILED', message: `the call could not start: ${(error as Error).message}` } }
      this.#finish(job, { ran: true, outcome, startedAt, endedAt: this.#now(), waits: job.waits })
      this.#release(job, false)
      return
    }
    job.execution = execution
    if (job.interruptPending) execution.interrupt()
    const done = execution.done
    if (done !== undefined) {
      // The handler returned without a promise: it has finished, answer and release now.
      this.#finish(job, { ran: true, outcome: done, startedAt, endedAt: this.#now(), waits: job.waits })
      this.#running--
      this.#release(job, false)
      return
    }
    void execution.answered.then((outcome) => this.#finish(job, { ran: true, outcome, startedAt, endedAt: this.#now(), waits: job.waits }))
    void execution.settled.then(({ abandoned }) => {
      this.#running--
      this.#release(job, abandoned)
    })
  }

  #finish(job: Job, outcome: JobOutcome): void {
    if (job.answered) return
    job.answer(outcome)
    if (!this.#wantsEvents()) return
    const ok = outcome.ran && outcome.outcome.ok
    const code = outcome.ran ? (outcome.outcome.ok ? undefined : outcome.outcome.error.code) : outcome.error.code
    this.#emit({ type: 'finished', id: job.call.id, seq: job.seq, at: this.#now(), ok, ...(code ? { code } : {}) })
  }

  #skip(job: Job, error: ToolError): void {
    this.#finish(job, { ran: false, error, waits: job.waits })
    this.#release(job, false)
  }

  #interrupt(job: Job): void {
    if (job.state === 'pending') {
      this.#skip(job, { code: 'E_ABORTED', message: 'skipped: interrupted before it started; it did not run' })
    } else if (job.state === 'running') {
      if (job.execution) job.execution.interrupt()
      else job.interruptPending = true
    }
  }

  #wantsEvents(): boolean {
    return this.#onEvent !== undefined && (this.#listening === undefined || this.#listening())
  }

  #emit(event: SchedulerEvent): void {
    // An observer's fault must not stop a call from being answered and released (invariants 1, 8).
    try {
      this.#onEvent?.(event)
    } catch {
      // The host's listener reports its own faults; nothing to do here.
    }
  }
}
