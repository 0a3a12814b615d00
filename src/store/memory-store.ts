import type { Logger } from '../contract/types.js'
import { StateStore, type StateBackend } from './state-store.js'
import { dropHost, emptyState, pruneState, type StoreState } from './store-state.js'

/**
 * The state of memory stores in one process. Stores made over the same one behave as hosts sharing
 * a workspace (tests, and several hosts embedded in one program).
 *
 * @example
 * const shared = new MemoryState()
 * const a = new MemoryStore({ state: shared }), b = new MemoryStore({ state: shared })
 */
export class MemoryState implements StateBackend {
  readonly where = 'memory (this process)'
  readonly state: StoreState = emptyState()

  transact<T>(fn: (state: StoreState, now: number) => { value: T; changed: boolean }): Promise<T> {
    const now = Date.now()
    // Hosts in this process end only by close(): nothing lapses but waiters, tokens and windows.
    pruneState(this.state, now, () => false)
    try {
      return Promise.resolve(fn(this.state, now).value)
    } catch (error) {
      return Promise.reject(error)
    }
  }
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} }

/**
 * `store: memory`: coordination within this process only, today's behaviour. The scheduler never
 * asks it about a call (its own reservations, worker pool and rate groups are the memory store's
 * reservations and rate slots), so a host on it pays nothing; what it offers beyond that,
 * single-use tokens (`consumeOnce`), holds within the process.
 *
 * @example
 * const store = new MemoryStore()
 * await store.consumeOnce('approval-1', 60_000) // true
 * await store.consumeOnce('approval-1', 60_000) // false
 */
export class MemoryStore extends StateStore {
  readonly #state: MemoryState

  constructor(options: { state?: MemoryState; log?: Logger } = {}) {
    const state = options.state ?? new MemoryState()
    super({ kind: 'memory', scope: 'process', backend: state, log: options.log ?? silent })
    this.#state = state
    state.state.hosts[this.hostId] = { pid: process.pid, machine: this.machine, beat: Number.POSITIVE_INFINITY, shared: true }
  }

  /** Never: calls in one process are ordered by the scheduler alone. */
  override get needsAsk(): boolean {
    return false
  }

  override async close(): Promise<void> {
    dropHost(this.#state.state, this.hostId)
  }
}
