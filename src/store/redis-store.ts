import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Redis } from 'ioredis'
import type { RateLimiterRedis } from 'rate-limiter-flexible'
import { ToolhostError, describeThrown } from '../contract/errors.js'
import type { Logger } from '../contract/types.js'
import { claimConflict, type Claim } from './claims.js'
import type { AcquireOptions, CoordinationStore, ForeignWait, HeldClaim, Lease, LeaseRequest, RateOptions, RateTicket, SharedEstimate, SharedRateRule } from './coordination-store.js'
import { script, SCRIPTS } from './redis-scripts.js'
import { readRedisUrl, type RedisTarget } from './redis-url.js'
import { newId } from './state-store.js'
import { WAITER_TTL_MS } from './store-state.js'
import { WakeUps } from './wake-ups.js'

/** The most tools the shared estimates keep, and the weight an estimate's history can reach. */
const MAX_SHARED_ESTIMATES = 500
const MAX_ESTIMATE_SAMPLES = 1000

/** A waiting request asks again at least this often, wake-up or not (another host's session lapsing publishes nothing). */
export const REDIS_POLL_MS = 250

/** A lease or waiter as kept in Redis. */
interface LeaseRecord {
  host: string
  call: string
  claim: Claim
  pid: number
  machine: string
}

/**
 * `store: redis://…`: hosts on any number of machines coordinate through one Redis (not a Redis
 * Cluster). Reservations are leases granted by one Lua script that checks and grants atomically
 * (with a fencing token from a counter); never-parallel calls are barrier claims in the same check.
 * A host's leases live as long as its session, which it renews on a timer: a killed host's leases
 * lapse within `lease_ms` (10 s by default) of its last renewal, on Redis's clock. Rate windows
 * (`calls` per `per_ms`) are counted by rate-limiter-flexible's `RateLimiterRedis` (fixed windows of
 * whole seconds: `per_ms` is rounded up); `concurrency` places are held like leases, so a killed
 * host's places lapse with its session. Single-use tokens are `SET NX PX`. Waiting requests wake on a
 * pub/sub message when anything is given back, and ask again every `REDIS_POLL_MS` regardless.
 *
 * While Redis cannot be reached every call that needs the store fails in its slot with
 * `E_STORE_UNAVAILABLE` (nothing runs unreserved), the host says so once in its log, and the client
 * reconnects by itself: the host joins again and serves as before.
 *
 * @example
 * const store = new RedisStore({ url: 'redis://cache:6379', log })
 * await store.open()
 * const lease = await store.acquire({ call: 'c1', claim })
 * store.release(lease!)
 */
export class RedisStore implements CoordinationStore {
  readonly kind = 'redis'
  readonly scope = 'cluster'
  readonly where: string
  /** This host's id in the store. */
  readonly hostId = `${process.pid}-${newId()}`
  readonly #target: RedisTarget
  readonly #log: Logger
  readonly #machine = os.hostname()
  readonly #channel: string
  readonly #keys: { hosts: string; leasesOf: string; leases: string; waiters: string; next: string; waitSeq: string; waitSeen: string }
  #client: Redis | undefined
  #subscriber: Redis | undefined
  #opening: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  #closed = false
  #reachable = true
  #joined = false
  readonly #wakeUps = new WakeUps()
  /** Leases granted and not given back (what a lapsed session loses). */
  readonly #held = new Set<string>()
  readonly #limiters = new Map<string, RateLimiterRedis>()
  readonly #places = new Map<string, { key: string; member: string }>()

  /** `url`: the setting (`where` names it in errors: config file and key, or the variable). */
  constructor(options: { url: string; where?: string; log: Logger }) {
    this.#target = readRedisUrl(options.url, options.where ?? 'store')
    this.where = this.#target.where
    this.#log = options.log
    const p = this.#target.prefix
    this.#channel = `${p}wake`
    this.#keys = { hosts: `${p}hosts`, leasesOf: `${p}leases:`, leases: `${p}leases:${this.hostId}`, waiters: `${p}waiters`, next: `${p}next`, waitSeq: `${p}waitseq`, waitSeen: `${p}waitseen` }
  }

  /** Always: the other hosts are elsewhere, so every call asks. */
  get needsAsk(): boolean {
    return true
  }

  /** How long this host's leases outlive its last renewal. */
  get leaseMs(): number {
    return this.#target.leaseMs
  }

  open(): Promise<void> {
    this.#opening ??= this.#connect()
    return this.#opening
  }

  // Never rejects: a Redis that cannot be reached now is reported, and calls fail until it can.
  async #connect(): Promise<void> {
    const { Redis } = await import('ioredis')
    const options = {
      lazyConnect: true,
      // Fail at once while disconnected (the call fails in its slot) rather than queue behind it.
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      commandTimeout: 5000,
      retryStrategy: (times: number) => Math.min(100 * times, 1000),
    }
    const client = (this.#client = new Redis(this.#target.url, options))
    // Sent once and run by their SHA after (ioredis loads a script again when Redis lost it).
    for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(name, { lua })
    // Subscribed on every 'ready' by this code, not by ioredis's autoResubscribe (whose subscribe
    // rejects unhandled when the connection drops again at once).
    const subscriber = (this.#subscriber = new Redis(this.#target.url, { ...options, autoResubscribe: false }))
    client.on('error', (error: Error) => this.#lost(error))
    client.on('close', () => this.#lost(undefined))
    client.on('ready', () => void this.#found())
    subscriber.on('error', () => {}) // the command client reports the outage
    subscriber.on('message', () => this.#wakeUps.wakeAll())
    subscriber.on('ready', () => void subscriber.subscribe(this.#channel).catch(() => {}))
    this.#timer = setInterval(() => void this.#renew(), Math.max(200, Math.floor(this.#target.leaseMs / 4))).unref()
    try {
      // The subscriber connects (and reconnects) on its own: without it waits fall back to polling.
      subscriber.connect().catch(() => {})
      await client.connect()
      await this.#renew()
    } catch (error) {
      this.#lost(error)
    }
  }

  // The connection went (or never came): said once until it is back.
  #lost(error: unknown): void {
    if (this.#closed || !this.#reachable) return
    this.#reachable = false
    this.#log.error(`the coordination store at ${this.where} cannot be reached${error === undefined ? '' : ` (${describeThrown(error)})`}; calls that need it fail with E_STORE_UNAVAILABLE until it is back`)
    this.#wakeUps.wakeAll()
  }

  async #found(): Promise<void> {
    if (this.#closed) return
    await this.#renew()
  }

  // Joins, or renews this host's session (and with it every lease and place it holds).
  async #renew(): Promise<void> {
    const client = this.#client
    if (this.#closed || client === undefined || client.status !== 'ready') return
    try {
      const fresh = (await script(client, 'toolhostRenew', 1, this.#keys.hosts, this.hostId, String(this.#target.leaseMs))) as number
      // Rejoined with leases out: they went with the lapsed session (Redis emptied, or this process starved).
      if (fresh === 1 && this.#joined && this.#held.size > 0) this.#log.warn(`this host's session in the coordination store at ${this.where} had lapsed (Redis was away or emptied, or this process was starved); it joined again, and the ${this.#held.size} call(s) it had running are no longer reserved`)
      this.#joined = true
      if (!this.#reachable) {
        this.#reachable = true
        // At warn, as loud as the outage it ends: a log read at warn sees both.
        this.#log.warn(`the coordination store at ${this.where} is reachable again; calls that need it run again`)
      }
    } catch (error) {
      this.#lost(error)
    }
  }

  onShare(_collect: () => Iterable<HeldClaim>): void {
    // Never alone (every call asks from the first): nothing is ever held unasked.
  }

  async acquire(request: LeaseRequest, options: AcquireOptions = {}): Promise<Lease> {
    await this.open()
    const { signal, onWait } = options
    const leaseId = newId()
    const record = JSON.stringify({ host: this.hostId, call: request.call, claim: request.claim, pid: process.pid, machine: this.#machine } satisfies LeaseRecord)
    const k = this.#keys
    let told = ''
    try {
      for (;;) {
        signal?.throwIfAborted()
        // Listening before asking: a release between the answer and the wait still wakes it.
        const woken = this.#wakeUps.take()
        const reply = (await this.#command((c) => script(c, 'toolhostGrant', 5, k.hosts, k.waiters, k.next, k.waitSeq, k.waitSeen, this.hostId, leaseId, record, String(WAITER_TTL_MS), k.leasesOf))) as Array<string | number>
        if (reply[0] === 'granted') {
          this.#held.add(leaseId)
          return { id: leaseId, token: Number(reply[1]) }
        }
        if (reply[0] === 'lapsed') {
          await this.#renew()
          if (!this.#joined || !this.#reachable) throw this.#unavailable(new Error('this host has not joined the store'))
          continue
        }
        const waits = reply.slice(1).map((text) => this.#describeWait(String(text), request.claim))
        const tell = waits.map((w) => `${w.host}/${w.id}`).join('\n')
        if (tell !== told) {
          told = tell
          tellSafely(() => onWait?.(waits))
        }
        await woken.wait(REDIS_POLL_MS, signal)
      }
    } catch (error) {
      // Given up (aborted, or Redis failed): leave no waiter behind (or, if Redis is away, let it lapse).
      this.release({ id: leaseId, token: 0 })
      throw error
    }
  }

  release(lease: Lease): void {
    this.#held.delete(lease.id)
    const k = this.#keys
    this.#command((c) => script(c, 'toolhostRelease', 4, k.leases, k.waiters, k.waitSeq, k.waitSeen, lease.id, this.#channel)).catch((error: unknown) => this.#giveBackFailed(`lease ${lease.id}`, error))
  }

  takeRateSlot(rule: SharedRateRule, options: RateOptions = {}): Promise<RateTicket> {
    return this.#takeRate(rule, options)
  }

  async #takeRate(rule: SharedRateRule, options: RateOptions): Promise<RateTicket> {
    await this.open()
    const { signal, onWait } = options
    const ticket: RateTicket = { id: newId(), key: rule.key }
    const { calls, per_ms: perMs, concurrency } = rule.limit
    let told = false
    const tell = (reason: string): void => {
      if (told) return
      told = true
      tellSafely(() => onWait?.(reason))
    }
    try {
      if (concurrency !== undefined) {
        const member = `${this.hostId}|${ticket.id}`
        for (;;) {
          signal?.throwIfAborted()
          const woken = this.#wakeUps.take()
          const held = (await this.#command((c) => script(c, 'toolhostTakePlace', 2, this.#keys.hosts, this.#placesKey(rule.key), this.hostId, ticket.id, String(concurrency)))) as number
          if (held === 0) break
          tell(`${held} of ${concurrency} at once are running on the hosts sharing ${this.where}`)
          await woken.wait(REDIS_POLL_MS, signal)
        }
        this.#places.set(ticket.id, { key: rule.key, member })
      }
      if (calls !== undefined && perMs !== undefined) {
        const limiter = await this.#limiter(calls, perMs)
        for (;;) {
          signal?.throwIfAborted()
          const wait = await this.#consume(limiter, rule.key)
          if (wait === 0) break
          tell(`${calls} calls per ${perMs} ms reached across the hosts sharing ${this.where}`)
          await sleep(Math.min(wait, REDIS_POLL_MS * 4), undefined, signal ? { signal } : undefined)
        }
      }
      return ticket
    } catch (error) {
      this.releaseRateSlot(ticket)
      throw error
    }
  }

  releaseRateSlot(ticket: RateTicket): void {
    const place = this.#places.get(ticket.id)
    if (place === undefined) return
    this.#places.delete(ticket.id)
    const { member } = place
    this.#command((c) => script(c, 'toolhostReleasePlace', 1, this.#placesKey(ticket.key), member, this.#channel)).catch((error: unknown) => this.#giveBackFailed(`a ${ticket.key} rate place`, error))
  }

  async consumeOnce(id: string, ttlMs: number): Promise<boolean> {
    if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new TypeError(`Expected \`ttlMs\` to be an integer ≥ 1, got \`${String(ttlMs)}\` (${typeof ttlMs})`)
    await this.open()
    const reply = await this.#command((c) => c.set(`${this.#target.prefix}once:${id}`, '1', 'PX', ttlMs, 'NX'))
    return reply === 'OK'
  }

  async sharedEstimates(): Promise<SharedEstimate[]> {
    await this.open()
    const all = await this.#command((c) => c.hgetall(this.#estimatesKey()))
    const estimates: SharedEstimate[] = []
    for (const [name, value] of Object.entries(all).slice(0, MAX_SHARED_ESTIMATES)) {
      const [ms, samples] = value.split(' ').map(Number)
      if (Number.isFinite(ms) && ms! >= 0 && Number.isInteger(samples) && samples! > 0) estimates.push({ name, ms: ms!, samples: samples! })
    }
    return estimates
  }

  async shareEstimates(estimates: readonly SharedEstimate[]): Promise<void> {
    const valid = estimates.filter((e) => Number.isFinite(e.ms) && e.ms >= 0 && Number.isInteger(e.samples) && e.samples > 0).slice(0, MAX_SHARED_ESTIMATES)
    if (valid.length === 0) return
    const args = valid.flatMap((e) => [e.name, String(e.ms), String(e.samples)])
    await this.#command((c) => script(c, 'toolhostShareEstimates', 1, this.#estimatesKey(), String(MAX_ESTIMATE_SAMPLES), String(MAX_SHARED_ESTIMATES), ...args))
  }

  #estimatesKey(): string {
    return `${this.#target.prefix}estimates`
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#timer)
    this.#wakeUps.close()
    await this.#opening
    const client = this.#client
    const k = this.#keys
    if (client !== undefined && client.status === 'ready') {
      try {
        for (const { key, member } of this.#places.values()) await script(client, 'toolhostReleasePlace', 1, this.#placesKey(key), member, this.#channel).catch(() => undefined)
        await script(client, 'toolhostLeave', 5, k.hosts, k.leases, k.waiters, k.waitSeq, k.waitSeen, this.hostId, this.#channel)
      } catch (error) {
        this.#log.warn(`leaving the coordination store at ${this.where} failed (this host's session lapses by itself): ${describeThrown(error)}`)
      }
    }
    client?.disconnect()
    this.#subscriber?.disconnect()
  }

  // While Redis is away the outage was said once: what could not be given back lapses with the session.
  #giveBackFailed(what: string, error: unknown): void {
    const line = `the coordination store did not take ${what} back (it lapses with this host's session): ${describeThrown(error)}`
    if (this.#reachable) this.#log.warn(line)
    else this.#log.debug(line)
  }

  #placesKey(rule: string): string {
    return `${this.#target.prefix}conc:${rule}`
  }

  // The rule's limiter: one per window shape, all counting in this deployment's keys.
  async #limiter(calls: number, perMs: number): Promise<RateLimiterRedis> {
    const seconds = Math.max(1, Math.ceil(perMs / 1000))
    const shape = `${calls}/${seconds}`
    let limiter = this.#limiters.get(shape)
    if (limiter === undefined) {
      const { RateLimiterRedis } = await import('rate-limiter-flexible')
      limiter = new RateLimiterRedis({ storeClient: this.#client, points: calls, duration: seconds, keyPrefix: `${this.#target.prefix}rate:${shape}`, rejectIfRedisNotReady: true })
      this.#limiters.set(shape, limiter)
    }
    return limiter
  }

  // 0 when a start was counted; else ms until the window has room.
  async #consume(limiter: RateLimiterRedis, key: string): Promise<number> {
    try {
      await limiter.consume(key)
      return 0
    } catch (rejected) {
      if (rejected instanceof Error) throw this.#unavailable(rejected)
      return Math.max(1, (rejected as { msBeforeNext: number }).msBeforeNext)
    }
  }

  async #command<T>(run: (client: Redis) => Promise<T>): Promise<T> {
    const client = this.#client
    if (this.#closed) throw new ToolhostError('E_STORE_UNAVAILABLE', `the coordination store at ${this.where} is closed (the host is shutting down); the call did not run`)
    if (client === undefined || client.status !== 'ready' || !this.#joined) {
      const why = new Error(client === undefined ? 'not opened' : `connection ${client.status}`)
      this.#lost(why)
      throw this.#unavailable(why)
    }
    try {
      return await run(client)
    } catch (error) {
      // A reply error (a script's fault) is not an outage; a dropped connection is, and so is a
      // socket that stopped taking writes before the client's status says so ("Stream isn't
      // writeable"): that failure is the first to know, so it is the one said (once).
      if (client.status !== 'ready' || !isReplyError(error)) this.#lost(error)
      throw this.#unavailable(error)
    }
  }

  #unavailable(cause: unknown): ToolhostError {
    if (cause instanceof ToolhostError) return cause
    return new ToolhostError('E_STORE_UNAVAILABLE', `the coordination store at ${this.where} cannot be used (${describeThrown(cause)}); the call did not run. Check that Redis is up and reachable from this host`, { cause })
  }

  #describeWait(text: string, wanted: Claim): ForeignWait {
    const waiting = text.startsWith('~')
    const held = JSON.parse(waiting ? text.slice(1) : text) as LeaseRecord
    const host = held.machine === this.#machine ? `host ${held.pid}` : `host ${held.pid} on ${held.machine}`
    const reason = claimConflict(held.claim, wanted, held.call, host) ?? `${held.call} on ${host} holds what this call touches`
    return { id: held.call, host, reason: waiting ? `${reason} (waiting before this call)` : reason }
  }
}

function tellSafely(tell: () => void): void {
  try {
    tell()
  } catch {
    // an observer's fault costs the request nothing
  }
}

// An error Redis answered with (a script's or a command's fault), as ioredis names it.
function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError'
}
