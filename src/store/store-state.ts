import { claimConflict, type Claim } from './claims.js'
import type { ForeignWait } from './coordination-store.js'

// The shared state of a store as plain data, and every decision over it as a function of it: the
// memory store keeps one in this process, the local store reads and rewrites one in a file under a
// lock. Every function runs inside one transaction (the caller holds the state alone).

/** A host of the store. `shared`: it asks the store for every call (it has published what it held alone). */
export interface HostEntry {
  pid: number
  machine: string
  /** Date.now() of its last renewal. */
  beat: number
  shared: boolean
}

export interface LeaseEntry {
  id: string
  host: string
  call: string
  claim: Claim
  token: number
}

/** A request that had to wait: later requests of other hosts that conflict with it wait behind it (no starving). */
export interface WaiterEntry {
  id: string
  host: string
  call: string
  claim: Claim
  seq: number
  /** Date.now() of its last attempt: a waiter that stops asking lapses. */
  seen: number
}

export interface RateEntry {
  /** The rule's window (ms; 0 without one): starts older than it are forgotten. */
  window: number
  /** Starts within the window (Date.now()). */
  starts: number[]
  /** Tickets holding a concurrency place. */
  holders: Array<{ id: string; host: string }>
}

export interface StoreState {
  version: 1
  /** The next fencing token and waiter sequence number. */
  next: number
  hosts: Record<string, HostEntry>
  leases: LeaseEntry[]
  waiters: WaiterEntry[]
  rates: Record<string, RateEntry>
  /** Single-use tokens consumed, with when they may be forgotten. */
  tokens: Record<string, number>
}

/** How long a host that stops renewing keeps its leases (it renews every `RENEW_EVERY_MS`). */
export const HOST_TTL_MS = 10_000
export const RENEW_EVERY_MS = 1000
/** A waiter not seen for this long gave up (its host polls far more often). */
export const WAITER_TTL_MS = 3000

/**
 * Whether a parsed state has the shape hosts write: every field of the right type, so a state
 * from elsewhere (a repository's) cannot crash a transaction half-way.
 */
export function isStoreState(value: unknown): value is StoreState {
  if (typeof value !== 'object' || value === null) return false
  const s = value as Partial<StoreState>
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
  return s.version === 1 && typeof s.next === 'number' && isObject(s.hosts) && Array.isArray(s.leases) && Array.isArray(s.waiters) && isObject(s.rates) && isObject(s.tokens)
    && Object.values(s.hosts).every((h) => isObject(h) && typeof h.beat === 'number' && typeof h.pid === 'number' && typeof h.machine === 'string')
    && s.leases.every((l) => isObject(l) && typeof l.host === 'string' && isObject(l.claim))
    && s.waiters.every((w) => isObject(w) && typeof w.host === 'string' && typeof w.seen === 'number' && isObject(w.claim))
    && Object.values(s.rates).every((r) => isObject(r) && Array.isArray(r.starts) && Array.isArray(r.holders))
}

export function emptyState(): StoreState {
  return { version: 1, next: 1, hosts: {}, leases: [], waiters: [], rates: {}, tokens: {} }
}

/**
 * Drops what lapsed: hosts that stopped renewing (or whose process is gone, by `isGone`), with their
 * leases, waiters and rate places; waiters that stopped asking; expired tokens. True when anything went.
 */
export function pruneState(state: StoreState, now: number, isGone: (host: HostEntry) => boolean): boolean {
  let changed = false
  for (const [id, host] of Object.entries(state.hosts)) {
    // A beat far in the future was never a renewal (a state shipped in a repository: "renewed in
    // 2100" held every call for ever); the few ms of clocks between hosts of one root are nothing.
    // (The memory store's hosts beat at Infinity, which no JSON file can hold: they end by close().)
    if (now - host.beat > HOST_TTL_MS || (Number.isFinite(host.beat) && host.beat - now > HOST_TTL_MS) || isGone(host)) {
      dropHost(state, id)
      changed = true
    }
  }
  // A lease whose host is not there (it lapsed and came back, or left mid-request) holds nothing.
  const leases = state.leases.filter((l) => state.hosts[l.host] !== undefined)
  if (leases.length !== state.leases.length) {
    state.leases = leases
    changed = true
  }
  const waiters = state.waiters.filter((w) => now - w.seen <= WAITER_TTL_MS && w.seen - now <= WAITER_TTL_MS && state.hosts[w.host] !== undefined)
  if (waiters.length !== state.waiters.length) {
    state.waiters = waiters
    changed = true
  }
  for (const [id, until] of Object.entries(state.tokens)) {
    if (until <= now) {
      delete state.tokens[id]
      changed = true
    }
  }
  return pruneRates(state, now) || changed
}

/** Removes a host and everything it held. */
export function dropHost(state: StoreState, host: string): void {
  delete state.hosts[host]
  state.leases = state.leases.filter((l) => l.host !== host)
  state.waiters = state.waiters.filter((w) => w.host !== host)
  for (const entry of Object.values(state.rates)) entry.holders = entry.holders.filter((h) => h.host !== host)
}

/** The hosts other than `self`, as `host <pid>` words. */
export function otherHosts(state: StoreState, self: string): string[] {
  return Object.keys(state.hosts).filter((id) => id !== self)
}

export function describeHost(entry: HostEntry | undefined, machine: string): string {
  if (entry === undefined) return 'a host that has left'
  return entry.machine === machine ? `host ${entry.pid}` : `host ${entry.pid} on ${entry.machine}`
}

/**
 * Grants `request` (lease id `leaseId`) to `host` when no other host's lease, earlier waiter or
 * not-yet-joined host stands in its way; else records it as a waiter and says what it waits for.
 */
export function tryGrant(state: StoreState, host: string, leaseId: string, call: string, claim: Claim, now: number, machine: string): { lease: LeaseEntry } | { waits: ForeignWait[] } {
  const waits: ForeignWait[] = []
  for (const [id, entry] of Object.entries(state.hosts)) {
    if (id !== host && !entry.shared) {
      const name = describeHost(entry, machine)
      waits.push({ id: name, host: name, reason: `${name} shares this workspace and has not published its reservations yet` })
    }
  }
  for (const lease of state.leases) {
    if (lease.host === host) continue
    const name = describeHost(state.hosts[lease.host], machine)
    const reason = claimConflict(lease.claim, claim, lease.call, name)
    if (reason !== undefined) waits.push({ id: lease.call, host: name, reason })
  }
  const own = state.waiters.find((w) => w.id === leaseId)
  const seq = own?.seq ?? Number.POSITIVE_INFINITY
  for (const waiter of state.waiters) {
    if (waiter.host === host || waiter.seq >= seq) continue
    const name = describeHost(state.hosts[waiter.host], machine)
    const reason = claimConflict(waiter.claim, claim, waiter.call, name)
    if (reason !== undefined) waits.push({ id: waiter.call, host: name, reason: `${reason} (waiting before this call)` })
  }
  if (waits.length === 0) {
    if (own !== undefined) state.waiters = state.waiters.filter((w) => w !== own)
    const lease: LeaseEntry = { id: leaseId, host, call, claim, token: state.next++ }
    state.leases.push(lease)
    return { lease }
  }
  if (own === undefined) state.waiters.push({ id: leaseId, host, call, claim, seq: state.next++, seen: now })
  else own.seen = now
  return { waits }
}

export function dropLease(state: StoreState, leaseId: string): boolean {
  const before = state.leases.length + state.waiters.length
  state.leases = state.leases.filter((l) => l.id !== leaseId)
  state.waiters = state.waiters.filter((w) => w.id !== leaseId)
  return state.leases.length + state.waiters.length !== before
}

/**
 * Takes a start and a concurrency place under a rate rule for `ticketId`, or says how long to wait
 * (ms; for a concurrency place, a short poll).
 */
export function tryTakeRate(state: StoreState, host: string, ticketId: string, key: string, limit: { calls?: number; per_ms?: number; concurrency?: number }, now: number): { taken: true } | { retryInMs: number; reason: string } {
  const entry = (state.rates[key] ??= { window: 0, starts: [], holders: [] })
  entry.window = limit.per_ms ?? 0
  if (limit.concurrency !== undefined && entry.holders.length >= limit.concurrency) {
    return { retryInMs: 20, reason: `${entry.holders.length} of ${limit.concurrency} at once are running on the hosts of this workspace` }
  }
  if (limit.calls !== undefined && limit.per_ms !== undefined) {
    entry.starts = entry.starts.filter((at) => now - at < limit.per_ms!)
    if (entry.starts.length >= limit.calls) {
      const oldest = Math.min(...entry.starts)
      return { retryInMs: Math.max(1, oldest + limit.per_ms - now), reason: `${limit.calls} calls per ${limit.per_ms} ms reached across the hosts of this workspace` }
    }
    entry.starts.push(now)
  }
  entry.holders.push({ id: ticketId, host })
  return { taken: true }
}

/** Records starts and places taken while the host was alone (published when another host joins). */
export function addRateHistory(state: StoreState, host: string, key: string, window: number, starts: readonly number[], holders: readonly string[]): void {
  const entry = (state.rates[key] ??= { window, starts: [], holders: [] })
  entry.starts.push(...starts)
  for (const id of holders) entry.holders.push({ id, host })
}

export function dropRate(state: StoreState, key: string, ticketId: string): boolean {
  const entry = state.rates[key]
  if (entry === undefined) return false
  const before = entry.holders.length
  entry.holders = entry.holders.filter((h) => h.id !== ticketId)
  return entry.holders.length !== before
}

/** Forgets starts older than their window, and rate entries with nothing left in them. True when anything went. */
export function pruneRates(state: StoreState, now: number): boolean {
  let changed = false
  for (const [key, entry] of Object.entries(state.rates)) {
    // A start in the future (beyond a window) is none a host made: it would hold a slot for ever.
    const starts = entry.starts.filter((at) => now - at < entry.window && at - now < Math.max(entry.window, HOST_TTL_MS))
    if (starts.length !== entry.starts.length) {
      entry.starts = starts
      changed = true
    }
    if (entry.starts.length === 0 && entry.holders.length === 0) {
      delete state.rates[key]
      changed = true
    }
  }
  return changed
}

/** True the first time `id` is consumed while it is remembered (`ttlMs`). */
export function consumeToken(state: StoreState, id: string, ttlMs: number, now: number): boolean {
  const until = state.tokens[id]
  if (until !== undefined && until > now) return false
  state.tokens[id] = now + ttlMs
  return true
}

/** True when the state holds nothing worth keeping (no host, no token): its file can go. */
export function isEmptyState(state: StoreState): boolean {
  return Object.keys(state.hosts).length === 0 && Object.keys(state.tokens).length === 0
}
