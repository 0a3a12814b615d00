import { watch, type FSWatcher } from 'node:fs'
import path from 'node:path'
import { describeThrown } from '../contract/errors.js'
import type { Logger } from '../contract/types.js'
import { readStateFile } from '../workspace/state-files.js'
import type { AcquireOptions, Lease, LeaseRequest, RateOptions, RateTicket, SharedRateRule } from './coordination-store.js'
import { StateFile } from './state-file.js'
import { StateStore, newId } from './state-store.js'
import { addRateHistory, dropHost, RENEW_EVERY_MS, type StoreState } from './store-state.js'

/** Starts and places a host took under a rate rule while it was alone (published when another joins). */
interface AloneRate {
  window: number
  starts: number[]
  holders: Set<string>
}

/**
 * `store: local` (the default): hosts on one machine sharing a workspace root coordinate through its
 * `.toolhost/store/` (`StateFile`). A host joins as it starts (`open`); while no other host is there it
 * does not ask the store about its calls (`needsAsk` false: it pays nothing per call) and only renews
 * its entry once a second. When another host joins, this host publishes the claims it holds unasked
 * (`onShare`) in the same transaction that marks it shared; the other host waits until then. When
 * the others are gone it goes quiet again. A host whose process dies loses its leases at once (its
 * pid is gone), or when it stops renewing (`HOST_TTL_MS`).
 *
 * @example
 * const store = new LocalStore({ root: '/ws', log })
 * await store.acquire({ call: 'c1', claim }) // undefined while alone; a lease while shared
 */
export class LocalStore extends StateStore {
  readonly #file: StateFile
  readonly #stateFile: string
  #joining: Promise<void> | undefined
  #joined = false
  #shared = false
  #closed = false
  #timer: NodeJS.Timeout | undefined
  #watcher: FSWatcher | undefined
  #checking = false
  readonly #aloneRates = new Map<string, AloneRate>()

  constructor(options: { root: string; dir?: string; log: Logger }) {
    const dir = options.dir ?? path.join(options.root, '.toolhost', 'store')
    const file = new StateFile(options.root, dir, options.log)
    super({ kind: 'local', scope: 'machine', backend: file, log: options.log })
    this.#file = file
    this.#stateFile = path.join(dir, 'state.json')
  }

  /** True until this host has joined, and while another host shares the store. */
  override get needsAsk(): boolean {
    return !this.#joined || this.#shared
  }

  /** Whether another host shares the store now (as of this host's last look). */
  get shared(): boolean {
    return this.#shared
  }

  override open(): Promise<void> {
    return this.#join()
  }

  override async acquire(request: LeaseRequest, options: AcquireOptions = {}): Promise<Lease | undefined> {
    await this.#join()
    // Alone: the caller runs unasked. (Its claim is published by `onShare` when a host joins: that
    // happens in a later transaction, after the caller has seen this answer.)
    if (!this.#shared) return undefined
    return this.acquireShared(request, options)
  }

  override takeRateSlot(rule: SharedRateRule, options: RateOptions = {}): RateTicket | Promise<RateTicket> {
    if (this.#joined && !this.#shared) return this.#takeAlone(rule)
    return this.#join().then(() => (this.#shared ? this.takeSharedRate(rule, options) : this.#takeAlone(rule)))
  }

  override releaseRateSlot(ticket: RateTicket): void {
    // Taken alone and not published: nobody else ever counted it.
    if (this.#aloneRates.get(ticket.key)?.holders.delete(ticket.id)) return
    super.releaseRateSlot(ticket)
  }

  override async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#timer)
    this.#watcher?.close()
    if (!this.#joined) return
    try {
      await this.#file.leave((state) => dropHost(state, this.hostId))
    } catch (error) {
      this.log.warn(`leaving the coordination store at ${this.where} failed (this host's entry lapses by itself): ${describeThrown(error)}`)
    }
  }

  #join(): Promise<void> {
    this.#joining ??= this.run((state, now) => {
      const others = Object.keys(state.hosts).length
      state.hosts[this.hostId] = { pid: process.pid, machine: this.machine, beat: now, shared: false }
      // Nothing ran unasked yet: with others here, this host is shared from its first call.
      if (others > 0) this.#share(state)
      return { value: undefined, changed: true }
    }).then(
      () => {
        this.#joined = true
        this.#timer = setInterval(() => void this.#renew(), RENEW_EVERY_MS).unref()
        this.#watchForOthers()
      },
      (error: unknown) => {
        // A root where the host cannot keep its state (read-only, a planted link): no other host can
        // join through it either, so this one runs alone, as before there was a store, and says so.
        this.log.warn(`${describeThrown(error)}; this host runs as if alone on its workspace`)
        this.#joined = true
      },
    )
    return this.#joining
  }

  // Once a second: renew this host's entry (and with it every lease it holds), see who else is here.
  async #renew(): Promise<void> {
    if (this.#closed) return
    try {
      await this.run((state, now) => {
        let own = state.hosts[this.hostId]
        if (own === undefined) {
          // Dropped as lapsed (this process was stopped or starved for longer than HOST_TTL_MS).
          this.log.warn(`this host's entry in the coordination store at ${this.where} had lapsed; it joins again`)
          own = state.hosts[this.hostId] = { pid: process.pid, machine: this.machine, beat: now, shared: false }
          this.#shared = false
        }
        own.beat = now
        const others = Object.keys(state.hosts).length - 1
        if (others > 0 && !this.#shared) this.#share(state)
        else if (others === 0 && this.#shared) this.#shared = false
        own.shared = this.#shared
        return { value: undefined, changed: true }
      })
    } catch (error) {
      this.log.warn(`renewing this host in the coordination store at ${this.where} failed: ${describeThrown(error)}`)
    }
  }

  // Inside a transaction: publish every claim held unasked and every rate start and place taken
  // alone, then mark this host shared: from now on every call asks (the flag turns in the same
  // synchronous step as the collection, so no call slips between them).
  #share(state: StoreState): void {
    const own = state.hosts[this.hostId]!
    for (const held of this.collect?.() ?? []) {
      const lease = { id: newId(), host: this.hostId, call: held.request.call, claim: held.request.claim, token: state.next++ }
      state.leases.push(lease)
      held.adopt({ id: lease.id, token: lease.token })
    }
    for (const [key, alone] of this.#aloneRates) {
      const now = Date.now()
      const starts = alone.starts.filter((at) => now - at < alone.window)
      addRateHistory(state, this.hostId, key, alone.window, starts, [...alone.holders])
    }
    this.#aloneRates.clear()
    own.shared = true
    this.#shared = true
  }

  #takeAlone(rule: SharedRateRule): RateTicket {
    const ticket = { id: newId(), key: rule.key }
    let alone = this.#aloneRates.get(rule.key)
    if (alone === undefined) this.#aloneRates.set(rule.key, (alone = { window: rule.limit.per_ms ?? 0, starts: [], holders: new Set() }))
    if (alone.window > 0) {
      const now = Date.now()
      while (alone.starts.length > 0 && now - alone.starts[0]! >= alone.window) alone.starts.shift()
      alone.starts.push(now)
    }
    alone.holders.add(ticket.id)
    return ticket
  }

  // While alone, another host's arrival is seen at once (its write to the state file) rather than at
  // the next renewal: a look at the file without the lock, then a renewal if someone else is there.
  #watchForOthers(): void {
    try {
      this.#watcher = watch(path.dirname(this.#stateFile), { persistent: false }, () => {
        if (this.#shared || this.#checking || this.#closed) return
        this.#checking = true
        setImmediate(() => {
          this.#checking = false
          const read = readStateFile(this.#stateFile, 1 << 20)
          if (read === undefined || 'problem' in read) return
          try {
            const hosts = (JSON.parse(read.text) as StoreState).hosts
            if (Object.keys(hosts).some((id) => id !== this.hostId)) void this.#renew()
          } catch {
            // half-read or garbled: the renewal will look properly
          }
        })
      })
      this.#watcher.on('error', () => this.#watcher?.close())
    } catch {
      // no watching here (some file systems): renewals alone see other hosts, within a second
    }
  }
}
