import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { ToolhostError, describeThrown } from '../contract/errors.js'
import type { Logger } from '../contract/types.js'
import type { AcquireOptions, CoordinationStore, ForeignWait, HeldClaim, Lease, LeaseRequest, RateOptions, RateTicket, SharedRateRule } from './coordination-store.js'
import { consumeToken, dropLease, dropRate, tryGrant, tryTakeRate, type StoreState } from './store-state.js'

/** Where a store's state lives: `transact` runs `fn` on it alone and keeps what `fn` changed. */
export interface StateBackend {
  readonly where: string
  /** `fn` returns its value and whether it changed the state (pruning lapsed entries counts too). */
  transact<T>(fn: (state: StoreState, now: number) => { value: T; changed: boolean }): Promise<T>
}

// A waiting request asks again after this long, doubling up to the most (another host's release
// is seen within that).
const FIRST_POLL_MS = 4
const MOST_POLL_MS = 64

/**
 * A coordination store over a `StateBackend`: every request is a transaction over the shared state
 * (`store-state.ts` decides). The memory store is one over a state in this process; the local store
 * adds membership (joining, renewing, going quiet while alone) over a state file.
 *
 * @example
 * const store = new StateStore({ kind: 'memory', backend, log })
 * const lease = await store.acquire({ call: 'c1', claim: { kind: 'free' } })
 */
export class StateStore implements CoordinationStore {
  readonly kind: string
  readonly scope: 'process' | 'machine' | 'cluster'
  /** This host's id in the shared state. */
  readonly hostId: string
  protected readonly backend: StateBackend
  protected readonly log: Logger
  protected readonly machine = os.hostname()
  protected collect: (() => Iterable<HeldClaim>) | undefined = undefined

  constructor(options: { kind: string; scope: StateStore['scope']; backend: StateBackend; log: Logger; hostId?: string }) {
    this.kind = options.kind
    this.scope = options.scope
    this.backend = options.backend
    this.log = options.log
    this.hostId = options.hostId ?? `${process.pid}-${randomBytes(4).toString('hex')}`
  }

  get where(): string {
    return this.backend.where
  }

  /** A store over a state every host of it sees asks for every call (the local store overrides). */
  get needsAsk(): boolean {
    return true
  }

  async open(): Promise<void> {}

  onShare(collect: () => Iterable<HeldClaim>): void {
    this.collect = collect
  }

  async acquire(request: LeaseRequest, options: AcquireOptions = {}): Promise<Lease | undefined> {
    return this.acquireShared(request, options)
  }

  protected async acquireShared(request: LeaseRequest, options: AcquireOptions): Promise<Lease> {
    const { signal, onWait } = options
    const leaseId = newId()
    let delay = FIRST_POLL_MS
    let told = ''
    try {
      for (;;) {
        signal?.throwIfAborted()
        const result = await this.run((state, now) => ({ value: tryGrant(state, this.hostId, leaseId, request.call, request.claim, now, this.machine), changed: true }))
        if ('lease' in result) return { id: leaseId, token: result.lease.token }
        const tell = result.waits.map((w) => `${w.host}/${w.id}`).join('\n')
        if (tell !== told) {
          told = tell
          this.tell(onWait, result.waits)
        }
        await sleep(delay, undefined, signal ? { signal } : undefined)
        delay = Math.min(delay * 2, MOST_POLL_MS)
      }
    } catch (error) {
      // Given up (aborted, or the store failed): leave no waiter (or lease) behind.
      this.release({ id: leaseId, token: 0 })
      throw error
    }
  }

  release(lease: Lease): void {
    this.run((state) => ({ value: undefined, changed: dropLease(state, lease.id) })).catch((error: unknown) => this.log.warn(`the coordination store did not take lease ${lease.id} back (it lapses with this host's session): ${describeThrown(error)}`))
  }

  takeRateSlot(rule: SharedRateRule, options: RateOptions = {}): RateTicket | Promise<RateTicket> {
    return this.takeSharedRate(rule, options)
  }

  protected async takeSharedRate(rule: SharedRateRule, options: RateOptions): Promise<RateTicket> {
    const { signal, onWait } = options
    const ticket: RateTicket = { id: newId(), key: rule.key }
    let told = false
    for (;;) {
      signal?.throwIfAborted()
      const result = await this.run((state, now) => {
        const taken = tryTakeRate(state, this.hostId, ticket.id, rule.key, rule.limit, now)
        return { value: taken, changed: 'taken' in taken }
      })
      if ('taken' in result) return ticket
      if (!told) {
        told = true
        try {
          onWait?.(result.reason)
        } catch {
          // an observer's fault costs the request nothing
        }
      }
      await sleep(Math.min(result.retryInMs, 250), undefined, signal ? { signal } : undefined)
    }
  }

  releaseRateSlot(ticket: RateTicket): void {
    this.run((state) => ({ value: undefined, changed: dropRate(state, ticket.key, ticket.id) })).catch((error: unknown) => this.log.warn(`the coordination store did not take a ${ticket.key} rate place back (it lapses with this host's session): ${describeThrown(error)}`))
  }

  consumeOnce(id: string, ttlMs: number): Promise<boolean> {
    if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new TypeError(`Expected \`ttlMs\` to be an integer ≥ 1, got \`${String(ttlMs)}\` (${typeof ttlMs})`)
    return this.run((state, now) => {
      const first = consumeToken(state, id, ttlMs, now)
      return { value: first, changed: first }
    })
  }

  async close(): Promise<void> {}

  /** One transaction; a store failure becomes `E_STORE_UNAVAILABLE` naming where the store is. */
  protected async run<T>(fn: (state: StoreState, now: number) => { value: T; changed: boolean }): Promise<T> {
    try {
      return await this.backend.transact(fn)
    } catch (error) {
      if (error instanceof ToolhostError) throw error
      throw new ToolhostError('E_STORE_UNAVAILABLE', `the coordination store at ${this.where} cannot be used (${describeThrown(error)}); the call did not run. Check that the folder is writable and not a link, or set store: memory in config.yaml if this host never shares its workspace`, { cause: error })
    }
  }

  private tell(onWait: AcquireOptions['onWait'], waits: readonly ForeignWait[]): void {
    try {
      onWait?.(waits)
    } catch {
      // an observer's fault costs the request nothing
    }
  }
}

/** A fresh lease, waiter or ticket id. */
export function newId(): string {
  return randomBytes(8).toString('hex')
}
