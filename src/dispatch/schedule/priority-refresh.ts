import { refreshBottomLevels } from './critical-path.js'
import type { DurationEstimates } from './duration-estimates.js'
import type { Reservations } from './reservations.js'
import type { Job } from './scheduler-job.js'
import type { WorkerPool } from './worker-pool.js'

// See #isRefreshDue: a refresh of N unreleased calls waits for N / REFRESH_SPREAD answers.
const REFRESH_SPREAD = 32

/**
 * What finished calls teach the pool's priorities: each answer's duration goes into the per-tool
 * estimates, and once an estimate moved (under critical-path priority), every unreleased call's
 * bottom level is recomputed and the calls waiting in the pool re-ordered, at O(1) amortised cost
 * per call.
 *
 * @example
 * const refresh = new PriorityRefresh(estimates, pool, reserved, true)
 * refresh.learn(job, endedAt) // its duration recorded; priorities refreshed if due
 * refresh.refreshIfDue()      // after a round of arrivals joined the pool
 */
export class PriorityRefresh {
  readonly #estimates: DurationEstimates
  readonly #pool: WorkerPool
  readonly #reserved: Reservations
  readonly #criticalPath: boolean
  // An estimate moved while nothing waited for a worker: recompute bottom levels before the next wait.
  #stale = false
  #learnedSinceRefresh = 0

  constructor(estimates: DurationEstimates, pool: WorkerPool, reserved: Reservations, criticalPath: boolean) {
    this.#estimates = estimates
    this.#pool = pool
    this.#reserved = reserved
    this.#criticalPath = criticalPath
  }

  /** `job` ran from its `startedAt` to `endedAt` (not interrupted): its tool's estimate learns it. */
  learn(job: Job, endedAt: number): void {
    const profile = job.profile
    if (profile === undefined || job.interrupted) return
    this.#learnedSinceRefresh++
    if (this.#estimates.record(profile, endedAt - job.startedAt) && this.#criticalPath) this.#stale = true
    this.refreshIfDue()
  }

  /** Estimates moved, calls wait in the pool, and enough answers came since the last refresh: refresh. */
  refreshIfDue(): void {
    if (this.#stale && this.#pool.waiting > 0 && this.#isRefreshDue()) this.#refresh()
  }

  // A refresh walks every unreleased call: one is due only after as many answers as a
  // REFRESH_SPREAD-th of them, so refreshing costs O(1) amortised per call. (Refreshing after every
  // answer made a huge batch quadratic, and a refresh's own time, counted into the durations of
  // the calls running meanwhile, moved the estimates again: 60,000 echo calls took over a minute.)
  #isRefreshDue(): boolean {
    return this.#learnedSinceRefresh * REFRESH_SPREAD >= this.#reserved.size
  }

  // Estimates moved: every unreleased call's bottom level again, and waiting calls re-ordered.
  #refresh(): void {
    this.#stale = false
    this.#learnedSinceRefresh = 0
    const newestFirst = this.#reserved.inArrivalOrder().reverse()
    const changed: Job[] = []
    refreshBottomLevels(newestFirst, this.#estimates, (job) => changed.push(job))
    this.#pool.reprioritiseMany(changed)
  }
}
