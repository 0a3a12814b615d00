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
