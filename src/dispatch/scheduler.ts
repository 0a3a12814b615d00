import PQueue from 'p-queue'
import type { ToolError } from '../types.js'
import { createDeferred, type Deferred } from './deferred.js'
import type { Execution, Outcome } from './execute-call.js'
import { conflictReason, type Footprint } from './footprint.js'

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
}

export interface SubmitOptions {
  /** Extra waits inside this submission (by index into `calls`), from the batch's mode. */
  modeWaits?: ReadonlyArray<ReadonlyArray<{ index: number; reason: string }>>
  signal?: AbortSignal
}

type JobState = 'pending' | 'running' | 'done'

interface Job {
  seq: number
  call: SchedulableCall
  state: JobState
  waits: Wait[]
  deps: Job[]
  execution: Execution | undefined
  /** An interrupt arrived while the job was starting (e.g. from a 'started' listener). */
  interruptPending: boolean
  answered: Deferred<JobOutcome>
  released: Deferred<void>
}

/**
 * The online conflict scheduler: calls arrive in order (as a batch or one by one); each starts once
 * every earlier, still-unfinished call it conflicts with has released its reservations, a worker is
 * free, and its approval (if any) came back. Barriers wait for all before them and hold all after.
 *
 * @example
 * const scheduler = new Scheduler({ maxWorkers: 8, now: () => performance.now() })
 * const [outcome] = scheduler.submit([{ id: 'c1', footprint: { kind: 'free' }, start: () => executeCall(tool, args, makeContext, options) }])
 * await outcome // { ran: true, outcome: { ok: true, value }, startedAt, endedAt, waits: [] }
 */
export class Scheduler {
  readonly #pool: PQueue
  readonly #now: () => number
  readonly #onEvent: ((event: SchedulerEvent) => void) | undefined
  // Unreleased jobs by footprint kind, in arrival order (Sets keep insertion order).
  readonly #barriers = new Set<Job>()
  readonly #scoped = new Set<Job>()
  readonly #free = new Set<Job>()
  #seq = 0
  #running = 0
  #peakRunning = 0

  constructor(options: SchedulerOptions) {
    if (!Number.isInteger(options.maxWorkers) || options.maxWorkers < 1) {
      throw new TypeError(`Expected \`maxWorkers\` to be an integer ≥ 1, got \`${String(options.maxWorkers)}\` (${typeof options.maxWorkers})`)
    }
    this.#pool = new PQueue({ concurrency: options.maxWorkers })
    this.#now = options.now
    this.#onEvent = options.onEvent
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
    const jobs: Job[] = []
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!
      const job: Job = {
        seq: ++this.#seq,
        call,
        state: 'pending',
        waits: [],
        deps: [],
        execution: undefined,
        interruptPending: false,
        answered: createDeferred<JobOutcome>(),
        released: createDeferred<void>(),
      }
      this.#collectConflicts(job)
      for (const wait of options.modeWaits?.[i] ?? []) {
        const dep = jobs[wait.index]
        if (dep && !job.deps.includes(dep)) {
          job.deps.push(dep)
          job.waits.push({ id: dep.call.id, reason: wait.reason })
        }
      }
      this.#reserve(job)
      jobs.push(job)
      this.#emit({ type: 'queued', id: call.id, seq: job.seq, at: this.#now() })
      if (job.waits.length > 0) this.#emit({ type: 'waiting', id: call.id, seq: job.seq, at: this.#now(), on: job.waits })
    }
    const outcomes = jobs.map((job) => job.answered.promise)
    const signal = options.signal
    if (signal?.aborted) {
      // Interrupted before anything could start: every call is skipped. (Checked before driving,
      // because p-queue starts a task synchronously when a worker is free.)
      for (const job of jobs) {
        void job.call.gate?.catch(() => undefined) // never awaited now; keep a rejection handled
        this.#interrupt(job)
      }
      return outcomes
    }
    if (signal) {
      const onAbort = (): void => {
        for (const job of jobs) this.#interrupt(job)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      void Promise.all(jobs.map((j) => j.released.promise)).then(() => signal.removeEventListener('abort', onAbort))
    }
    for (const job of jobs) void this.#drive(job)
    return outcomes
  }

  /** Resolves when every submitted call has been released. */
  async onIdle(): Promise<void> {
    await this.#pool.onIdle()
    while (this.pending > 0) {
      await Promise.all([...this.#barriers, ...this.#scoped, ...this.#free].map((j) => j.released.promise))
      await this.#pool.onIdle()
    }
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
    if (reason !== undefined) {
      job.deps.push(earlier)
      job.waits.push({ id: earlier.call.id, reason })
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
    if (job.released.settled) return
    this.#barriers.delete(job)
    this.#scoped.delete(job)
    this.#free.delete(job)
    job.state = 'done'
    job.released.resolve()
    this.#emit({ type: 'released', id: job.call.id, seq: job.seq, at: this.#now(), abandoned })
  }

  async #drive(job: Job): Promise<void> {
    const waits: Promise<unknown>[] = job.deps.map((d) => d.released.promise)
    let gateError: ToolError | undefined
    if (job.call.gate) {
      waits.push(
        job.call.gate.then(
          (error) => {
            gateError = error
          },
          (error: unknown) => {
            gateError = { code: 'E_DENIED', message: `the approval failed: ${String((error as Error)?.message ?? error)}` }
          },
        ),
      )
    }
    if (waits.length > 0) await Promise.all(waits)
    if (job.state !== 'pending') return // interrupted while waiting
    if (gateError) {
      this.#skip(job, gateError)
      return
    }
    await this.#pool.add(() => this.#runJob(job), { priority: -job.seq })
  }

  async #runJob(job: Job): Promise<void> {
    if (job.state !== 'pending') return // interrupted while queued for a worker
    job.state = 'running'
    const startedAt = this.#now()
    this.#running++
    if (this.#running > this.#peakRunning) this.#peakRunning = this.#running
    this.#emit({ type: 'started', id: job.call.id, seq: job.seq, at: startedAt, running: this.#running })
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
    void execution.answered.then((outcome) => this.#finish(job, { ran: true, outcome, startedAt, endedAt: this.#now(), waits: job.waits }))
    const { abandoned } = await execution.settled
    this.#running--
    this.#release(job, abandoned)
  }

  #finish(job: Job, outcome: JobOutcome): void {
    if (job.answered.settled) return
    job.answered.resolve(outcome)
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

  #emit(event: SchedulerEvent): void {
    // An observer's fault must not stop a call from being answered and released (invariants 1, 8).
    try {
      this.#onEvent?.(event)
    } catch {
      // The host's listener reports its own faults; nothing to do here.
    }
  }
}
