import { conflictReason } from '../admit/footprint.js'
import type { Job } from './scheduler-job.js'

/**
 * The scheduler's unreleased calls, by footprint kind and in arrival order (Sets keep insertion
 * order): what a new call must wait for, found by checking it only against the kinds it can
 * conflict with (a barrier against all; a scoped call against barriers and scoped calls; a free
 * call against barriers).
 *
 * @example
 * const reserved = new Reservations()
 * reserved.collectConflicts(job) // job.dependOn(earlier, reason) for each conflict
 * reserved.add(job)
 * reserved.delete(job) // on release
 */
export class Reservations {
  readonly #barriers = new Set<Job>()
  readonly #scoped = new Set<Job>()
  readonly #free = new Set<Job>()

  /** Calls not yet released. */
  get size(): number {
    return this.#barriers.size + this.#scoped.size + this.#free.size
  }

  add(job: Job): void {
    const kind = job.call.footprint.kind
    ;(kind === 'barrier' ? this.#barriers : kind === 'scoped' ? this.#scoped : this.#free).add(job)
  }

  delete(job: Job): void {
    // A call's footprint is fixed from submission on: it is in the set of its kind alone.
    const kind = job.call.footprint.kind
    ;(kind === 'barrier' ? this.#barriers : kind === 'scoped' ? this.#scoped : this.#free).delete(job)
  }

  inArrivalOrder(): Job[] {
    return [...this.#barriers, ...this.#scoped, ...this.#free].sort((a, b) => a.seq - b.seq)
  }

  /** Makes `job` wait for every unreleased call it conflicts with, in arrival order for a barrier. */
  collectConflicts(job: Job): void {
    const kind = job.call.footprint.kind
    if (kind === 'barrier') {
      for (const earlier of this.inArrivalOrder()) this.#consider(job, earlier)
      return
    }
    for (const earlier of this.#barriers) this.#consider(job, earlier)
    if (kind === 'scoped') for (const earlier of this.#scoped) this.#consider(job, earlier)
  }

  // A method, not a closure made per call: under tsx a named closure costs a defineProperty.
  #consider(job: Job, earlier: Job): void {
    const reason = conflictReason(earlier.call.footprint, job.call.footprint, earlier.call.id)
    if (reason !== undefined) job.dependOn(earlier, reason)
  }
}
