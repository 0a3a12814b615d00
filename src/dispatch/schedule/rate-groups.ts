import PQueue from 'p-queue'
import type { ToolProfile } from './duration-estimates.js'
import type { PoolJob, RateGroup, RateSlot } from './pool-job.js'
import { compileRateLimits, rateRuleFor, sameRateLimit, type RateLimit, type RateRule } from './rate-limits.js'
import { ReadyQueue, type ReadyOptions } from './ready-queue.js'
import type { CoordinationStore, RateTicket } from '../../store/coordination-store.js'

/** What the rate groups need of the worker pool that owns them. */
export interface PoolWorkers {
  /** A worker is free and new starts are not held off: a rate slot given now is used at once. */
  canStart(): boolean
  /** Every worker is busy, or promised to a rate-cleared call. */
  isSaturated(): boolean
  /** A call took its rate slot: a worker is promised to it (counted busy) until it starts or is released. */
  promiseWorker(): void
  /** The call's rate slot (and its place across hosts) is settled: it goes first in line for a worker. */
  queueFirst(job: PoolJob): void
}

/** Whom the rate groups tell about waits and store failures, and the store they count in across hosts. */
export interface RateGroupsOptions {
  /** Calls that waited for a worker in their group and, now that a worker is free, still wait: for their rate slot. */
  onRateWait?: (jobs: readonly PoolJob[]) => void
  /** The store other hosts share: a rate slot then also takes its place in its rule's count across hosts. */
  store?: CoordinationStore
  /** The store could not be asked for a call's place. */
  onStoreFailure?: (job: PoolJob, error: unknown) => void
}

const ignore = (): void => {}

/**
 * The worker pool's rate-limit groups, one per `rate_limits` key in use. A call under a rule first
 * waits in its group's own p-queue (`interval`/`intervalCap` in strict, sliding-window mode, and the
 * group's `concurrency`) without holding a worker; once its rate slot is given (and, with a shared
 * store, its place in the rule's count across hosts) it goes first in line for a worker, and holds
 * its group slot until it is released. Group queues are paused while no worker can be used (every
 * worker busy, or new starts held off), so a rate slot is only taken when a worker is free to use it.
 *
 * @example
 * const rates = new RateGroups(workers, { store })
 * rates.setLimits({ search: { calls: 5, per_ms: 1000 } })
 * if (!rates.admit(job)) queueForWorker(job) // no rule covers the call
 */
export class RateGroups {
  readonly #workers: PoolWorkers
  readonly #onRateWait: ((jobs: readonly PoolJob[]) => void) | undefined
  readonly #store: CoordinationStore | undefined
  readonly #onStoreFailure: ((job: PoolJob, error: unknown) => void) | undefined
  #rules: RateRule[] = []
  #rulesVersion = 0
  readonly #groups = new Map<string, RateGroup>()

  constructor(workers: PoolWorkers, options: RateGroupsOptions = {}) {
    this.#workers = workers
    this.#onRateWait = options.onRateWait
    this.#store = options.store
    this.#onStoreFailure = options.onStoreFailure
  }

  /** The rate rules in force (config order). */
  get rules(): readonly RateRule[] {
    return this.#rules
  }

  /** The rule a tool's calls fall under now, if any. */
  ruleOf(profile: ToolProfile): RateRule | undefined {
    if (profile.ruleVersion !== this.#rulesVersion) {
      profile.rule = rateRuleFor(this.#rules, profile.name, profile.toolset)
      profile.ruleVersion = this.#rulesVersion
    }
    return profile.rule
  }

  /** Calls waiting for their rate slot. */
  get waiting(): number {
    let waiting = 0
    for (const group of this.#groups.values()) waiting += group.waiting.size
    return waiting
  }

  /**
   * New rate limits. Groups whose limits are unchanged keep their queue (and window); a group whose
   * `concurrency` alone changed takes it at once. Returns the waiting calls that leave their group
   * (it changed or went, or their tool now falls under another rule), out of the pool (`none`) and
   * to be handed to it again; calls already given their rate slot are not touched.
   */
  setLimits(limits: Readonly<Record<string, RateLimit>>): PoolJob[] {
    this.#rules = compileRateLimits(limits)
    this.#rulesVersion++
    const moved: PoolJob[] = []
    const leave = (job: PoolJob): void => {
      job.rate!.abort.abort() // p-queue drops the waiting task; no rate slot is used
      job.rate = undefined
      job.place = 'none'
      moved.push(job)
    }
    for (const [key, group] of this.#groups) {
      const rule = this.#rules.find((r) => r.key === key)
      const kept = rule !== undefined && rule.limit.calls === group.rule.limit.calls && rule.limit.per_ms === group.rule.limit.per_ms
      if (!kept) {
        this.#groups.delete(key)
        for (const job of group.waiting) leave(job)
        group.waiting.clear()
        continue
      }
      if (!sameRateLimit(rule.limit, group.rule.limit)) {
        this.#groups.set(key, { ...group, rule })
        group.queue.concurrency = rule.limit.concurrency ?? Number.POSITIVE_INFINITY
      }
      for (const job of group.waiting) {
        if (job.profile !== undefined && this.ruleOf(job.profile)?.key === key) continue
        group.waiting.delete(job)
        leave(job)
      }
    }
    return moved
  }

  /** Takes `job` into its rule's group to wait for its rate slot; false (nothing done) when no rule covers it. */
  admit(job: PoolJob): boolean {
    const rule = this.#rules.length === 0 || job.profile === undefined ? undefined : this.ruleOf(job.profile)
    if (rule === undefined) return false
    const group = this.#group(rule)
    const slot: RateSlot = { group, abort: new AbortController(), done: undefined, ticket: undefined, ticketWait: undefined }
    job.rate = slot
    job.place = 'rate'
    group.waiting.add(job)
    if (group.queue.isPaused && this.#workers.canStart()) group.queue.start()
    group.queue.add<unknown>(() => this.#rateCleared(job, slot), { priority: job.bottom, id: job.key, seq: job.seq, signal: slot.abort.signal }).catch(ignore)
    return true
  }

  /** `job` (holding a rate slot or waiting for one) was released: it leaves its group's queue, or gives its slot back. */
  release(job: PoolJob): void {
    const slot = job.rate!
    job.rate = undefined
    if (job.place === 'rate') {
      slot.group.waiting.delete(job)
      slot.abort.abort() // p-queue drops the waiting task; no rate slot is used
    }
    job.place = 'none'
    if (slot.ticket !== undefined) this.#store!.releaseRateSlot(slot.ticket)
    else slot.ticketWait?.abort()
    slot.done?.()
  }

  /** Every group's waiting calls re-ordered by `priorityOf` (O(n) per group). */
  reorder(priorityOf: (item: unknown) => number): void {
    for (const group of this.#groups.values()) group.ready.reorder(priorityOf)
  }

  /** No worker can be used now: the groups give no slot (it would be spent waiting). */
  pause(): void {
    for (const group of this.#groups.values()) if (!group.queue.isPaused) group.queue.pause()
  }

  /** Group queues run only while a worker is free: a rate slot is then used the moment it is given. */
  balance(): void {
    if (this.#groups.size === 0) return
    if (!this.#workers.canStart()) {
      this.pause()
      return
    }
    let waitingForRate: PoolJob[] | undefined
    for (const group of this.#groups.values()) {
      if (!this.#workers.canStart()) break
      if (!group.queue.isPaused) continue
      // p-queue gives free rate slots at once; the calls still waiting now wait for their rate.
      group.queue.start()
      if (group.waiting.size > 0 && this.#onRateWait) (waitingForRate ??= []).push(...group.waiting)
    }
    if (waitingForRate) this.#onRateWait!(waitingForRate)
  }

  // The group gave the call its rate slot: it goes first in line for a worker, and holds its group
  // slot until the call is released.
  #rateCleared(job: PoolJob, slot: RateSlot): Promise<void> | undefined {
    slot.group.waiting.delete(job)
    if (job.rate !== slot || !job.isPending()) return undefined
    const done = new Promise<void>((resolve) => {
      slot.done = resolve
    })
    this.#workers.promiseWorker()
    const store = this.#store
    if (store === undefined) {
      this.#workers.queueFirst(job)
    } else if (!store.needsAsk) {
      // Alone: the store only notes the start (to publish if another host joins); no wait.
      slot.ticket = store.takeRateSlot(slot.group.rule) as RateTicket
      this.#workers.queueFirst(job)
    } else {
      this.#awaitTicket(job, slot, store)
    }
    if (this.#workers.isSaturated()) this.pause()
    return done
  }

  // Other hosts count under the same rule: the call keeps its worker (counted as cleared) while the
  // store finds it a place, then goes first in line.
  #awaitTicket(job: PoolJob, slot: RateSlot, store: CoordinationStore): void {
    job.place = 'cleared'
    const wait = new AbortController()
    slot.ticketWait = wait
    const onWait = this.#onRateWait === undefined ? undefined : () => {
      // Announced like a wait in its group: the other hosts' calls fill the rule now.
      if (job.rate === slot && job.isPending()) this.#onRateWait!([job])
    }
    Promise.resolve(store.takeRateSlot(slot.group.rule, { signal: wait.signal, ...(onWait ? { onWait } : {}) })).then(
      (taken) => {
        slot.ticketWait = undefined
        if (job.rate !== slot || !job.isPending()) {
          store.releaseRateSlot(taken)
          return
        }
        slot.ticket = taken
        this.#workers.queueFirst(job)
      },
      (error: unknown) => {
        slot.ticketWait = undefined
        if (job.rate === slot && job.isPending()) this.#onStoreFailure?.(job, error)
      },
    )
  }

  #group(rule: RateRule): RateGroup {
    let group = this.#groups.get(rule.key)
    if (group === undefined) {
      const { calls, per_ms: perMs, concurrency } = rule.limit
      const timed = calls !== undefined && perMs !== undefined
      let ready: ReadyQueue | undefined
      const queue = new PQueue<ReadyQueue, ReadyOptions>({
        queueClass: class GroupQueue extends ReadyQueue {
          constructor() {
            super()
            ready = this
          }
        },
        concurrency: concurrency ?? Number.POSITIVE_INFINITY,
        ...(timed ? { intervalCap: calls, interval: perMs, strict: true } : {}),
        autoStart: this.#workers.canStart(),
      })
      group = { rule, queue, ready: ready!, waiting: new Set() }
      this.#groups.set(rule.key, group)
    }
    return group
  }
}
