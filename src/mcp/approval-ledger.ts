import type { CoordinationStore } from '../store/coordination-store.js'

/**
 * The host's record of answers already used: an MCP approval (a sealed `requestState`) is consumed
 * at most once, whichever process of a deployment sees the retry. The in-memory ledger serves one
 * process; a deployment of several hosts behind a load balancer backs this interface with a store
 * they share (SQLite, Redis: the coordination store).
 */
export interface ApprovalLedger {
  /**
   * Marks `id` consumed. Resolves true the first time, false when it was consumed before. The
   * ledger may forget `id` after `expiresAt` (ms since the epoch): a sealed state past its expiry
   * is refused before it reaches the ledger.
   */
  consumeOnce(id: string, expiresAt: number): Promise<boolean>
}

/**
 * An `ApprovalLedger` in this process's memory: ids are kept until they expire (expired ones are
 * dropped as new ones come), so its size is bounded by the approvals of one expiry period.
 *
 * @example
 * const ledger = new MemoryApprovalLedger()
 * await ledger.consumeOnce('a1', Date.now() + 60_000) // true
 * await ledger.consumeOnce('a1', Date.now() + 60_000) // false
 */
export class MemoryApprovalLedger implements ApprovalLedger {
  readonly #consumed = new Map<string, number>()
  readonly #now: () => number

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now
  }

  /** Ids held now (for tests and diagnostics). */
  get size(): number {
    return this.#consumed.size
  }

  async consumeOnce(id: string, expiresAt: number): Promise<boolean> {
    this.#prune()
    if (this.#consumed.has(id)) return false
    this.#consumed.set(id, expiresAt)
    return true
  }

  #prune(): void {
    const now = this.#now()
    // Insertion order is roughly expiry order (one expiry period for all): stop at the first live one.
    for (const [id, expiresAt] of this.#consumed) {
      if (expiresAt > now) break
      this.#consumed.delete(id)
    }
  }
}

/**
 * An `ApprovalLedger` over the host's coordination store (`consumeOnce`): on `store: redis://…` an
 * approval is consumed once across every instance behind the balancer; on `local`, across the hosts
 * of the machine's root. A store that cannot be used fails the retry with `E_STORE_UNAVAILABLE`
 * (the approval is never taken twice for want of a store).
 *
 * @example
 * const ledger = new StoreApprovalLedger(host.services.store)
 * await ledger.consumeOnce('a1', Date.now() + 60_000) // true on the first instance to see it
 */
export class StoreApprovalLedger implements ApprovalLedger {
  readonly #store: Pick<CoordinationStore, 'consumeOnce'>
  readonly #now: () => number

  constructor(store: Pick<CoordinationStore, 'consumeOnce'>, options: { now?: () => number } = {}) {
    this.#store = store
    this.#now = options.now ?? Date.now
  }

  consumeOnce(id: string, expiresAt: number): Promise<boolean> {
    // Remembered until it expires (a state past its expiry is refused before the ledger is asked).
    return this.#store.consumeOnce(`approval:${id}`, Math.max(1, Math.ceil(expiresAt - this.#now())))
  }
}

/**
 * The ledger for a host's store: in memory when the store is this process's alone (as before any
 * store existed), else the store's (`StoreApprovalLedger`).
 *
 * @example
 * approvalLedgerFor(host.services.store) // a StoreApprovalLedger on store: redis://…
 */
export function approvalLedgerFor(store: CoordinationStore): ApprovalLedger {
  return store.scope === 'process' ? new MemoryApprovalLedger() : new StoreApprovalLedger(store)
}
