import { describeThrown } from '../../contract/errors.js'
import type { ToolError } from '../../contract/types.js'
import { assignBottomLevels, raiseAncestors } from './critical-path.js'
import { CrossHostClaims, storeError } from './cross-host-claims.js'
import { createDeferred, type Deferred } from '../../contract/deferred.js'
import { DurationEstimates, type ToolProfile } from './duration-estimates.js'
import type { Execution, Outcome } from '../execute/execute-call.js'
import { PriorityRefresh } from './priority-refresh.js'
import { Reservations } from './reservations.js'
import { SchedulerEvents } from './scheduler-events.js'
import { Job, Submission } from './scheduler-job.js'
import type { JobOutcome, OutcomeSink, SchedulableCall, SchedulerOptions, SubmitOptions } from './scheduler-types.js'
import { WorkerPool } from './worker-pool.js'
import { CALL_ERRORS } from '../../contract/call-errors.js'

export type { JobOutcome, OutcomeSink, SchedulableCall, SchedulerEvent, SchedulerOptions, SubmitOptions, Wait } from './scheduler-types.js'

/**
 * The online conflict scheduler: calls arrive in order (as a batch or one by one); each starts once
 * every earlier, still-unfinished call it conflicts with has released its reservations, a worker is
 * free, and its approval (if any) came back. Barriers wait for all before them and hold all after.
 * A call whose waits are over goes to the worker pool (p-queue, `worker-pool.ts`), which gives free
 * workers to the waiting call with the longest estimated chain of work behind it (its bottom level,
 * from per-tool duration estimates learned from finished calls), then to the earliest arrival. A
 * handler that finishes without a promise is answered and released at once.
 *
 * @example
 * const scheduler = new Scheduler({ maxWorkers: 8, now: () => performance.now() })
 * const [outcome] = scheduler.submit([{ id: 'c1', footprint: { kind: 'free' }, start: () => executeCall(tool, args, makeContext, options) }])
 * await outcome // { ran: true, outcome: { ok: true, value }, startedAt, endedAt, waits: [] }
 */
export class Scheduler {
  readonly #pool: WorkerPool
  readonly #estimates: DurationEstimates
  readonly #refresh: PriorityRefresh
  readonly #criticalPath: boolean
  readonly #now: () => number
  readonly #events: SchedulerEvents
  readonly #onAnswer: ((outcome: Outcome) => void) | undefined
  readonly #reserved = new Reservations()
  readonly #crossHost: CrossHostClaims | undefined
  // Jobs whose waits are over, to be sorted out (skipped or queued) by #process.
  #arrivals: Job[] = []
  #arrivalHead = 0
  #processing = false
  #idle: Deferred<void> | undefined
  #seq = 0

  constructor(options: SchedulerOptions) {
    if (!Number.isInteger(options.maxWorkers) || options.maxWorkers < 1) {
      throw new TypeError(`Expected \`maxWorkers\` to be an integer ≥ 1, got \`${String(options.maxWorkers)}\` (${typeof options.maxWorkers})`)
    }
    const store = options.store
    this.#crossHost = store && new CrossHostClaims(store, {
      granted: (job) => this.#unblock(job),
      failed: (job, error) => this.#holding(() => this.#skip(job, error)),
      waiting: (job, waits) => this.#events.waitingForeign(job, waits),
    })
    this.#pool = new WorkerPool({
      concurrency: options.maxWorkers,
      run: (job) => this.#runJob(job as Job),
      ...(store ? { store, onStoreFailure: (job, error) => this.#holding(() => this.#skip(job as Job, storeError(error))) } : {}),
      ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
      // New rate limits moved waiting calls: their new wait is announced like an arrival's.
      onMoved: (jobs) => this.#events.announceWaits(jobs as Job[], 0),
      onRateWait: (jobs) => this.#events.announceRateWaits(jobs as Job[]),
    })
    this.#events = new SchedulerEvents(options, this.#pool, this.#reserved)
    this.#estimates = options.estimates ?? new DurationEstimates()
    this.#criticalPath = options.priority !== 'call-order'
    this.#refresh = new PriorityRefresh(this.#estimates, this.#pool, this.#reserved, this.#criticalPath)
    this.#now = options.now
    this.#onAnswer = options.onAnswer
    store?.onShare(() => this.#crossHost!.heldAlone(this.#reserved.inArrivalOrder()))
  }

  /** Handlers running right now, and the most that ever ran at once. */
  get running(): number {
    return this.#pool.running
  }

  get peakRunning(): number {
    return this.#pool.peakRunning
  }

  /** The worker pool: its limit (settable while running), rate rules and waiting calls. */
  get pool(): WorkerPool {
    return this.#pool
  }

  get estimates(): DurationEstimates {
    return this.#estimates
  }

  /** The profile of a tool (duration estimate, rate rule) to put on its calls. */
  profileOf(name: string, toolset: string): ToolProfile {
    return this.#estimates.profileOf(name, toolset)
  }

  /** Calls not yet released (waiting, queued or running). */
  get pending(): number {
    return this.#reserved.size
  }

  /**
   * Schedules calls in the order given; returns one promise per call, each resolving exactly once.
   * Never rejects: every way a call can end is an outcome.
   */
  submit(calls: readonly SchedulableCall[], options: SubmitOptions = {}): Promise<JobOutcome>[] {
    const jobs = this.#enter(calls, options, undefined)
    const outcomes: Promise<JobOutcome>[] = new Array(jobs.length)
    for (let i = 0; i < jobs.length; i++) outcomes[i] = jobs[i]!.outcome
    this.#drive(jobs, options)
    return outcomes
  }

  /**
   * Schedules calls like `submit`, telling `sink` each call's outcome (with its index in `calls`)
   * the moment it is answered, instead of a promise per call.
   */
  submitTo(calls: readonly SchedulableCall[], sink: OutcomeSink, options: SubmitOptions = {}): void {
    this.#drive(this.#enter(calls, options, sink), options)
  }

  // The calls take their places: a job each, its waits on unreleased calls, its priority.
  #enter(calls: readonly SchedulableCall[], options: SubmitOptions, sink: OutcomeSink | undefined): Job[] {
    const jobs: Job[] = new Array(calls.length)
    const modeWaits = options.modeWaits
    const firstSeq = this.#seq + 1
    let waitsOnOlder = false
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!
      const job = new Job(++this.#seq, call)
      this.#reserved.collectConflicts(job)
      const extra = modeWaits?.[i]
      if (extra !== undefined) {
        for (const wait of extra) {
          const dep = wait.index < i ? jobs[wait.index] : undefined
          if (dep && !job.deps.includes(dep)) job.dependOn(dep, wait.reason)
        }
      }
      if (!waitsOnOlder) for (let d = 0; d < job.deps.length; d++) if (job.deps[d]!.seq < firstSeq) waitsOnOlder = true
      this.#reserved.add(job)
      if (sink !== undefined) {
        job.sink = sink
        job.slot = i
      }
      jobs[i] = job
      this.#events.queued(job)
    }
    if (this.#criticalPath) {
      assignBottomLevels(jobs, this.#estimates)
      if (waitsOnOlder) {
        const raised: Job[] = []
        raiseAncestors(jobs, firstSeq, this.#estimates, (job) => raised.push(job))
        this.#pool.reprioritiseMany(raised)
      }
    }
    return jobs
  }

  // The jobs' gates are watched and those with nothing to wait for start (or are skipped at once
  // when the submission was interrupted before it arrived).
  #drive(jobs: Job[], options: SubmitOptions): void {
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
      return
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
  }

  /** Resolves when every submitted call has been released. */
  async onIdle(): Promise<void> {
    while (this.pending > 0) await (this.#idle ??= createDeferred<void>()).promise
  }

  /**
   * The host is closing: resolves once every call is released. A call still held behind its gate
   * (its availability, permission or approval not decided) gets `graceMs` to be decided, then is
   * answered E_ABORTED and released, so a check that never answers cannot hold the close open.
   * Calls already decided run as usual (a running handler is waited for, as `onIdle` does).
   */
  async close(graceMs: number): Promise<void> {
    if (!this.#hasHeld()) return this.onIdle()
    let timer: NodeJS.Timeout | undefined
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs)
    })
    await Promise.race([grace, this.onIdle()]).finally(() => clearTimeout(timer))
    const closed: ToolError = CALL_ERRORS.closedUndecided(graceMs)
    this.#holding(() => {
      for (const job of this.#reserved.inArrivalOrder()) if (job.held && job.state === 'pending') this.#skip(job, closed)
    })
    return this.onIdle()
  }

  #hasHeld(): boolean {
    for (const job of this.#reserved.inArrivalOrder()) if (job.held) return true
    return false
  }

  #openGate(job: Job, gate: Promise<ToolError | undefined>): void {
    job.blockers++
    job.held = true
    gate.then(
      (error) => {
        job.held = false
        job.gateError = error
        this.#unblock(job)
      },
      (error: unknown) => {
        job.held = false
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

  #release(job: Job, abandoned: boolean): void {
    if (job.released) return
    job.released = true
    this.#reserved.delete(job)
    job.state = 'done'
    // Every call leaves the pool's books, not only a rate-limited one: a call skipped while it waited
    // for a worker stays in p-queue's queue until a worker drains it, and with its place still
    // 'worker' new rate limits would move it into a rate group, where it took a rate slot and a
    // place in the group's queue (with p-queue's abort listener) for a call already answered.
    this.#pool.released(job)
    this.#crossHost?.release(job)
    this.#events.released(job, abandoned)
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

  // One loop (never recursion) sorts out arrived jobs: skipped (a refused approval) or handed to the
  // pool. The pool holds starting off while a round is handed over, so calls that become ready
  // together compete by priority; a handler that finishes at once may make more calls arrive.
  #process(): void {
    if (this.#processing) return
    this.#processing = true
    try {
      while (this.#arrivalHead < this.#arrivals.length) {
        const arrivals = this.#arrivals
        const from = this.#arrivalHead
        this.#arrivals = []
        this.#arrivalHead = 0
        // One arrival competes with nobody new: no need to hold starting off for it.
        const compete = arrivals.length - from > 1
        if (compete) this.#pool.hold()
        for (let i = from; i < arrivals.length; i++) {
          const job = arrivals[i]!
          if (job.state !== 'pending') continue // interrupted while waiting
          if (job.gateError) this.#skip(job, job.gateError)
          else if (this.#crossHost?.mustAsk(job) === true) this.#crossHost.ask(job)
          else this.#pool.enqueue(job)
        }
        this.#refresh.refreshIfDue()
        if (compete) this.#pool.go()
        this.#events.announceWaits(arrivals, from)
      }
    } finally {
      this.#processing = false
    }
  }

  // Called by the pool with a worker for the job; returns what p-queue waits on before it frees the
  // worker (nothing when the handler finished at once or the job was skipped while it waited).
  #runJob(job: Job): Promise<void> | undefined {
    if (job.state !== 'pending') return undefined // interrupted while it waited for a worker
    job.state = 'running'
    const startedAt = this.#now()
    job.startedAt = startedAt
    this.#pool.started()
    this.#events.started(job)
    let execution: Execution
    try {
      execution = job.call.start()
    } catch (error) {
      this.#pool.freed()
      const outcome: Outcome = { ok: false, error: { code: 'E_TOOL_FAILED', message: `the call could not start: ${describeThrown(error)}` } }
      this.#finish(job, { ran: true, outcome, startedAt, endedAt: this.#now(), waits: job.heldBy() })
      this.#release(job, false)
      return undefined
    }
    job.execution = execution
    if (job.interruptPending) execution.interrupt()
    const done = execution.done
    if (done !== undefined) {
      // The handler returned without a promise: it has finished, answer and release now.
      const endedAt = this.#now()
      this.#finish(job, { ran: true, outcome: done, startedAt, endedAt, waits: job.heldBy() })
      this.#pool.freed()
      this.#refresh.learn(job, endedAt)
      this.#release(job, false)
      return undefined
    }
    void execution.answered.then((outcome) => this.#finish(job, { ran: true, outcome, startedAt, endedAt: this.#now(), waits: job.heldBy() }))
    return execution.settled.then(({ abandoned }) => {
      this.#pool.freed()
      if (!abandoned) this.#refresh.learn(job, this.#now())
      this.#release(job, abandoned)
    })
  }

  #finish(job: Job, outcome: JobOutcome): void {
    if (job.answered) return
    if (outcome.ran) this.#onAnswer?.(outcome.outcome)
    job.answer(outcome)
    this.#events.finished(job, outcome)
  }

  #skip(job: Job, error: ToolError): void {
    job.skipped = true
    this.#finish(job, { ran: false, error, waits: job.heldBy() })
    this.#release(job, false)
  }

  #interrupt(job: Job): void {
    if (job.state === 'pending') {
      this.#skip(job, CALL_ERRORS.skipped())
    } else if (job.state === 'running') {
      job.interrupted = true
      if (job.execution) job.execution.interrupt()
      else job.interruptPending = true
    }
  }
}
