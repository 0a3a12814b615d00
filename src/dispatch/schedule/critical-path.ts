// Critical-path priority: each waiting call's bottom level, the estimated work on the longest chain
// of calls that starts with it in the conflict graph (its own estimate plus its longest dependent's).
import type { DurationEstimates } from './duration-estimates.js'
import type { Job } from './scheduler-job.js'

/**
 * Bottom levels of a submission's calls, last to first (a call's dependents arrive after it, so
 * theirs are known when it is reached). Released dependents (skipped) no longer count.
 *
 * @example
 * assignBottomLevels(jobs, estimates) // jobs[0].bottom = est(jobs[0]) + max(bottom of its dependents)
 */
export function assignBottomLevels(jobs: readonly Job[], estimates: DurationEstimates): void {
  for (let i = jobs.length - 1; i >= 0; i--) {
    const job = jobs[i]!
    job.bottom = estimates.estimate(job.profile) + longestTail(job)
  }
}

/**
 * A new submission's calls may wait for older, unreleased calls: their chains grew. Raises the
 * bottom level of every older call upstream (iteratively; chains can be long) and reports each
 * raised one, so a call already waiting for a worker can be moved up (`setPriority`).
 *
 * @example
 * raiseAncestors(jobs, jobs[0].seq, estimates, (job) => pool.reprioritise(job))
 */
export function raiseAncestors(jobs: readonly Job[], firstSeq: number, estimates: DurationEstimates, onRaise: (job: Job) => void): void {
  let work: Job[] | undefined
  for (const job of jobs) {
    for (const dep of job.deps) {
      if (dep.seq < firstSeq && raise(dep, job.bottom, estimates)) {
        onRaise(dep)
        ;(work ??= []).push(dep)
      }
    }
  }
  while (work !== undefined && work.length > 0) {
    const job = work.pop()!
    for (const dep of job.deps) {
      if (raise(dep, job.bottom, estimates)) {
        onRaise(dep)
        work.push(dep)
      }
    }
  }
}

/**
 * Recomputes every unreleased call's bottom level from the current estimates (after an estimate
 * moved enough to matter) and reports each call whose level changed.
 *
 * @example
 * refreshBottomLevels(pendingNewestFirst, estimates, (job) => pool.reprioritise(job))
 */
export function refreshBottomLevels(newestFirst: readonly Job[], estimates: DurationEstimates, onChange: (job: Job) => void): void {
  for (const job of newestFirst) {
    const bottom = estimates.estimate(job.profile) + longestTail(job)
    if (bottom !== job.bottom) {
      job.bottom = bottom
      onChange(job)
    }
  }
}

function longestTail(job: Job): number {
  let tail = 0
  const dependents = job.dependents
  if (dependents !== undefined) {
    for (const d of dependents) if (d.state !== 'done' && d.bottom > tail) tail = d.bottom
  }
  return tail
}

function raise(job: Job, tail: number, estimates: DurationEstimates): boolean {
  if (job.state === 'done') return false
  const bottom = estimates.estimate(job.profile) + tail
  if (bottom <= job.bottom) return false
  job.bottom = bottom
  return true
}
