// The contract of state shared by the hosts of one workspace (types only). `memory` keeps it in this
// process (a host alone: today's behaviour), `local` in the root's `.toolhost/store/` (hosts on one
// machine); a remote store (Redis) implements the same interface.
import type { Claim } from './claims.js'

export type { Claim, ClaimTouch } from './claims.js'

/** One tool's duration estimate as hosts share it: ms per call (a moving average) and how many calls taught it. */
export interface SharedEstimate {
  readonly name: string
  readonly ms: number
  readonly samples: number
}

/** A call asking the store for its claim. */
export interface LeaseRequest {
  /** The call's id: other hosts' wait messages name it. */
  readonly call: string
  readonly claim: Claim
}

/** A granted claim, held until released or until its host's session expires. */
export interface Lease {
  readonly id: string
  /** Increases with every lease the store grants (a fencing token for stores that need one). */
  readonly token: number
}

/** What a waiting request waits for: another host's lease, an earlier waiter, or a host not yet joined. */
export interface ForeignWait {
  /** The other host's call id (or `host <pid>` for a host that has not joined yet). */
  readonly id: string
  /** The other host, as `host <pid>` (`host <pid> on <machine>` from another machine). */
  readonly host: string
  readonly reason: string
}

/** How `acquire` waits while other hosts hold what a request claims. */
export interface AcquireOptions {
  /** Aborting gives up the wait: the promise rejects and no lease is left behind. */
  readonly signal?: AbortSignal
  /** Called when the request first has to wait, and again when what it waits for changes. */
  readonly onWait?: (waits: readonly ForeignWait[]) => void
}

/** A `rate_limits` rule as the store counts it: at most `calls` starts per `per_ms` and `concurrency` at once, over every host. */
export interface SharedRateRule {
  readonly key: string
  readonly limit: Readonly<{ calls?: number; per_ms?: number; concurrency?: number }>
}

/** How `takeRateSlot` waits while other hosts' calls fill a shared rule. */
export interface RateOptions {
  readonly signal?: AbortSignal
  /** Called once when the slot is not free now: the other hosts' calls fill the rule. */
  readonly onWait?: (reason: string) => void
}

/** A call's place in a rule's shared count: given back (`releaseRateSlot`) when the call is released. */
export interface RateTicket {
  readonly id: string
  readonly key: string
}

/** A claim this host holds without having asked the store (it ran while alone), to publish when another host joins. */
export interface HeldClaim {
  readonly request: LeaseRequest
  /** Receives the lease the store made for it; the holder releases it like any other. */
  adopt(lease: Lease): void
}

/**
 * State shared by every host of one workspace: reservations as leases, never-parallel exclusivity
 * (a barrier's claim excludes every other claim), rate-limit slots per rule key, and single-use
 * tokens. Leases live as long as their host's session: a host renews it on a timer (every lease it
 * holds with it, so a long call keeps its lease); a host that dies stops renewing and its leases
 * lapse within the session's time to live (sooner where the store can see the process is gone).
 *
 * While no other host shares the store, `needsAsk` is false and the scheduler does not ask it: a
 * host alone pays nothing per call. When another host joins, the store first publishes what this
 * host holds (`onShare`), and lets the other host past only after that.
 *
 * @example
 * const store = host.services.store
 * console.log(store.scope) // 'process' (memory), 'machine' (local) or 'cluster' (Redis)
 */
export interface CoordinationStore {
  /** `memory`, `local`, or a remote store's scheme. */
  readonly kind: string
  /** Who can share it: this process only (`memory`: the scheduler need not ask it), this machine, or many machines. */
  readonly scope: 'process' | 'machine' | 'cluster'
  /** True while calls must ask the store before they start: another host shares it, or this host has not joined it yet. */
  readonly needsAsk: boolean
  /** Where the store keeps its state, for `doctor` and errors (a folder, a URL without credentials). */
  readonly where: string
  /**
   * Joins the store as a host of the workspace (createHost awaits it before the first call, so a
   * host alone starts its calls at once). A store that cannot be joined says so in the log and the
   * host runs as if alone; one that fails later fails the calls that need it.
   */
  open(): Promise<void>
  /**
   * Waits until `request` may start beside every other host's lease, then grants it; resolves
   * undefined when this host turns out to be alone (nothing to hold). Rejects with a
   * `ToolhostError` `E_STORE_UNAVAILABLE` when the store cannot be used, or with the signal's reason
   * when aborted. A host's own leases never make it wait: its scheduler orders its own calls.
   */
  acquire(request: LeaseRequest, options?: AcquireOptions): Promise<Lease | undefined>
  /** Gives a lease back. Never throws; a failure is logged and the lease lapses with the session. */
  release(lease: Lease): void
  /**
   * Takes a start (and a concurrency place) under `rule` across hosts: at once (a ticket, not a
   * promise) while `needsAsk` is false, else when the shared count allows (`onWait` says why it
   * waits, once). Rejects like `acquire`.
   */
  takeRateSlot(rule: SharedRateRule, options?: RateOptions): RateTicket | Promise<RateTicket>
  /** Gives back a ticket's concurrency place (its start stays counted in its window). Never throws. */
  releaseRateSlot(ticket: RateTicket): void
  /**
   * True the first time `id` is consumed within `ttlMs` on any host of this store, false after: a
   * single-use token (an MCP approval's request state).
   */
  consumeOnce(id: string, ttlMs: number): Promise<boolean>
  /**
   * Duration estimates the hosts of a cluster store share (a store whose hosts may not share a
   * workspace file, Redis): what they learned, read when this host joins. Absent: the hosts share
   * `dispatch.duration_estimates`, a file of the workspace, or nothing.
   */
  sharedEstimates?(): Promise<SharedEstimate[]>
  /** Adds what this host learned to the shared estimates (each tool weighted by its samples), as it leaves. */
  shareEstimates?(estimates: readonly SharedEstimate[]): Promise<void>
  /** The claims this host holds unasked (`HeldClaim`), collected the moment another host joins. */
  onShare(collect: () => Iterable<HeldClaim>): void
  /** Leaves the store: this host's leases, waiters and rate places go at once. */
  close(): Promise<void>
}
