import { conflictReason } from '../admit/footprint.js'
import type { Job } from './scheduler-job.js'

/**
 * The scheduler's unreleased calls, by footprint kind and in arrival order: what a new call must
 * wait for, found by checking it only against the kinds it can conflict with (a barrier against
 * all; a scoped call against barriers and scoped calls; a free call against barriers).
 *
 * Each kind is a list threaded through the jobs themselves (`Job.reservedPrev`/`reservedNext`):
 * adding and releasing a call costs two links, not a hash-set entry, and a free call, the common
 * kind, walks nothing when no barrier is unreleased.
 *
 * @example
 * const reserved = new Reservations()
 * reserved.collectConflicts(job) // job.dependOn(earlier, reason) for each conflict
 * reserved.add(job)
 * reserved.delete(job) // on release
 */
export class Reservations {
  readonly #barriers = new JobList()
  readonly #scoped = new JobList()
  readonly #free = new JobList()

  /** Calls not yet released. */
  get size(): number {
    return this.#barriers.size + this.#scoped.size + this.#free.size
  }

  add(job: Job): void {
    this.#listOf(job).append(job)
  }

  delete(job: Job): void {
    // A call's footprint is fixed from submission on: it is in the list of its kind alone.
    this.#listOf(job).remove(job)
  }

  inArrivalOrder(): Job[] {
    const all: Job[] = []
    this.#barriers.copyInto(all)
    this.#scoped.copyInto(all)
    this.#free.copyInto(all)
    return all.sort((a, b) => a.seq - b.seq)
  }

  /** Makes `job` wait for every unreleased call it conflicts with, in arrival order for a barrier. */
  collectConflicts(job: Job): void {
    const kind = job.call.footprint.kind
    if (kind === 'barrier') {
      for (const earlier of this.inArrivalOrder()) this.#consider(job, earlier)
      return
    }
    for (let earlier = this.#barriers.head; earlier !== undefined; earlier = earlier.reservedNext) this.#consider(job, earlier)
    if (kind === 'scoped') for (let earlier = this.#scoped.head; earlier !== undefined; earlier = earlier.reservedNext) this.#consider(job, earlier)
  }

  #listOf(job: Job): JobList {
    const kind = job.call.footprint.kind
    return kind === 'barrier' ? this.#barriers : kind === 'scoped' ? this.#scoped : this.#free
  }

  // A method, not a closure made per call: under tsx a named closure costs a defineProperty.
  #consider(job: Job, earlier: Job): void {
    const reason = conflictReason(earlier.call.footprint, job.call.footprint, earlier.call.id)
    if (reason !== undefined) job.dependOn(earlier, reason)
  }
}

// A doubly linked list of jobs in the order they were appended, linked through the jobs.
class JobList {
  head: Job | undefined = undefined
  #tail: Job | undefined = undefined
  size = 0

  append(job: Job): void {
    if (job.reserved) throw new Error(`scheduler: call ${job.call.id} is reserved already`)
    job.reserved = true
    job.reservedPrev = this.#tail
    job.reservedNext = undefined
    if (this.#tail === undefined) this.head = job
    else this.#tail.reservedNext = job
    this.#tail = job
    this.size++
  }

  remove(job: Job): void {
    if (!job.reserved) return
    job.reserved = false
    const prev = job.reservedPrev
    const next = job.reservedNext
    if (prev === undefined) this.head = next
    else prev.reservedNext = next
    if (next === undefined) this.#tail = prev
    else next.reservedPrev = prev
    job.reservedPrev = undefined
    job.reservedNext = undefined
    this.size--
  }

  copyInto(into: Job[]): void {
    for (let job = this.head; job !== undefined; job = job.reservedNext) into.push(job)
  }
}
