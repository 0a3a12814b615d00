// The scheduler's dealings with the coordination store (see scheduler.ts): asking for a call's claim
// once its waits inside this host are over, giving the lease back on release, and the claims of the
// calls that passed unasked while this host was alone.
import { describeThrown, isToolhostError } from '../../contract/errors.js'
import type { ToolError } from '../../contract/types.js'
import type { CoordinationStore, ForeignWait, HeldClaim } from '../../store/coordination-store.js'
import type { Job } from './scheduler-job.js'

/** What the scheduler does when the store answers. */
export interface CrossHostHooks {
  /** The claim is granted (or this host turned out to be alone): the job's blocker is lifted. */
  granted(job: Job): void
  /** The store could not be asked: the job is answered with `error` (E_STORE_UNAVAILABLE) and released. */
  failed(job: Job, error: ToolError): void
  /** Other hosts hold what the job touches (when it first waits, and when that changes). */
  waiting(job: Job, waits: readonly ForeignWait[]): void
}

/**
 * A scheduler's claims in the store other hosts share. A call asks only while another host shares
 * it (`needsAsk`); a host alone passes its calls unasked and publishes their claims when a host joins.
 *
 * @example
 * const claims = new CrossHostClaims(store, { granted: (job) => unblock(job), failed: (job, error) => skip(job, error), waiting: (job, waits) => emit(job, waits) })
 * if (claims.mustAsk(job)) claims.ask(job)
 */
export class CrossHostClaims {
  readonly store: CoordinationStore
  readonly #hooks: CrossHostHooks

  constructor(store: CoordinationStore, hooks: CrossHostHooks) {
    this.store = store
    this.#hooks = hooks
  }

  /** True when `job` must ask the store before it may start; a job that need not is marked as passed alone. */
  mustAsk(job: Job): boolean {
    if (job.storeStanding !== 'none') return false
    if (this.store.needsAsk && job.call.crossHost !== false) return true
    job.storeStanding = 'alone'
    return false
  }

  // Its waits in this host are over: other hosts sharing the store may still hold what it touches.
  // It waits (a blocker, like an approval) until the store grants its claim, then arrives again.
  ask(job: Job): void {
    const store = this.store
    job.storeStanding = 'asking'
    job.blockers++
    const abort = new AbortController()
    job.storeAbort = abort
    store.acquire({ call: job.call.id, claim: job.call.footprint }, { signal: abort.signal, onWait: (waits) => this.#hooks.waiting(job, waits) }).then(
      (lease) => {
        job.storeAbort = undefined
        if (job.state !== 'pending') {
          if (lease !== undefined) store.release(lease)
          return
        }
        job.lease = lease
        job.storeStanding = lease === undefined ? 'alone' : 'leased'
        this.#hooks.granted(job)
      },
      (error: unknown) => {
        job.storeAbort = undefined
        if (job.state !== 'pending') return // released while it asked: the abort's own rejection
        job.blockers--
        this.#hooks.failed(job, storeError(error))
      },
    )
  }

  /** `job` is released: its lease goes back, or its question is withdrawn. */
  release(job: Job): void {
    if (job.lease !== undefined) this.store.release(job.lease)
    else if (job.storeAbort !== undefined) job.storeAbort.abort()
  }

  /** Another host joined the store: the claims of every unreleased call of `jobs` that passed unasked. */
  *heldAlone(jobs: Iterable<Job>): Generator<HeldClaim> {
    for (const job of jobs) {
      if (job.storeStanding !== 'alone' || job.released || job.call.crossHost === false) continue
      yield {
        request: { call: job.call.id, claim: job.call.footprint },
        adopt: (lease) => {
          job.lease = lease
          job.storeStanding = 'leased'
        },
      }
    }
  }
}

/** The answer of a call the store could not be asked for: it fails in its slot, and nothing runs unreserved. */
export function storeError(error: unknown): ToolError {
  const message = isToolhostError(error) ? error.message : `the coordination store failed: ${describeThrown(error)}; the call did not run`
  return { code: 'E_STORE_UNAVAILABLE', message }
}
