import type { ForeignWait } from '../../store/coordination-store.js'
import type { Reservations } from './reservations.js'
import type { Job } from './scheduler-job.js'
import type { JobOutcome, SchedulerEvent, SchedulerOptions } from './scheduler-types.js'
import type { WorkerPool } from './worker-pool.js'

/**
 * The scheduler's events (`SchedulerEvent`), each built only while someone listens (`onEvent`, and
 * `listening` when given): a call's arrival and waits, the worker or rate slot it waits for, its
 * start, answer and release. Every method does nothing when nobody listens, so the per-call path
 * builds no event object then; an observer's fault never stops a call.
 *
 * @example
 * const events = new SchedulerEvents(options, pool, reserved)
 * events.queued(job) // 'queued', then 'waiting' if the call waits for earlier ones
 */
export class SchedulerEvents {
  readonly #onEvent: ((event: SchedulerEvent) => void) | undefined
  readonly #listening: (() => boolean) | undefined
  readonly #now: () => number
  readonly #pool: WorkerPool
  readonly #reserved: Reservations

  constructor(options: Pick<SchedulerOptions, 'onEvent' | 'listening' | 'now'>, pool: WorkerPool, reserved: Reservations) {
    this.#onEvent = options.onEvent
    this.#listening = options.listening
    this.#now = options.now
    this.#pool = pool
    this.#reserved = reserved
  }

  /** True while an event would reach someone. */
  isWanted(): boolean {
    return this.#onEvent !== undefined && (this.#listening === undefined || this.#listening())
  }

  /** A call was submitted: it is queued, and waits for the earlier calls it conflicts with (if any). */
  queued(job: Job): void {
    if (!this.isWanted()) return
    this.#emit({ type: 'queued', id: job.call.id, seq: job.seq, at: this.#now() })
    if (job.waits.length > 0) this.#emit({ type: 'waiting', id: job.call.id, seq: job.seq, at: this.#now(), on: job.waits })
  }

  /** Other hosts hold what a pending call touches. */
  waitingForeign(job: Job, waits: readonly ForeignWait[]): void {
    if (this.isWanted() && job.state === 'pending') this.#emit({ type: 'waiting', id: job.call.id, seq: job.seq, at: this.#now(), on: waits.map((w) => ({ id: w.id, reason: w.reason, host: w.host })) })
  }

  /** The calls of a round (`arrivals` from `from` on) that did not get a worker (or a rate slot) at once. */
  announceWaits(arrivals: readonly Job[], from: number): void {
    if (!this.isWanted()) return
    let behind: string[] | undefined
    for (let i = from; i < arrivals.length; i++) {
      const job = arrivals[i]!
      if (job.place === 'worker' || (job.place === 'rate' && this.#pool.isSaturated())) {
        behind ??= this.#runningIds()
        job.poolWait = 'worker'
        this.#emit({ type: 'waiting-worker', id: job.call.id, seq: job.seq, at: this.#now(), behind })
      } else if (job.place === 'rate') {
        this.#announceRateWait(job)
      }
    }
  }

  /** Calls announced as waiting for a worker: a worker is free now and they still wait, for their rate slot. */
  announceRateWaits(jobs: readonly Job[]): void {
    if (!this.isWanted()) return
    for (const job of jobs) if (job.poolWait !== 'rate' && job.state === 'pending') this.#announceRateWait(job)
  }

  started(job: Job): void {
    if (this.isWanted()) this.#emit({ type: 'started', id: job.call.id, seq: job.seq, at: job.startedAt, running: this.#pool.running })
  }

  finished(job: Job, outcome: JobOutcome): void {
    if (!this.isWanted()) return
    const ok = outcome.ran && outcome.outcome.ok
    const code = outcome.ran ? (outcome.outcome.ok ? undefined : outcome.outcome.error.code) : outcome.error.code
    this.#emit({ type: 'finished', id: job.call.id, seq: job.seq, at: this.#now(), ok, ...(code ? { code } : {}) })
  }

  released(job: Job, abandoned: boolean): void {
    if (this.isWanted()) this.#emit({ type: 'released', id: job.call.id, seq: job.seq, at: this.#now(), abandoned })
  }

  #announceRateWait(job: Job): void {
    const group = this.#pool.groupOf(job)
    if (group === undefined) return
    job.poolWait = 'rate'
    this.#emit({ type: 'waiting-rate', id: job.call.id, seq: job.seq, at: this.#now(), group: group.rule.key, limit: group.rule.limit })
  }

  #runningIds(): string[] {
    const ids: string[] = []
    for (const job of this.#reserved.inArrivalOrder()) if (job.state === 'running') ids.push(job.call.id)
    return ids
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
