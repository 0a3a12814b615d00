import PQueue from 'p-queue'
import type { ToolProfile } from './duration-estimates.js'
import { compileRateLimits, rateRuleFor, sameRateLimit, type RateLimit, type RateRule } from './rate-limits.js'
import { ReadyQueue, type ReadyOptions } from './ready-queue.js'
import type { CoordinationStore, RateTicket } from '../../store/coordination-store.js'

/** Where a call stands in the pool: not in it, waiting for a worker, waiting for its rate slot, rate slot taken and first in line for a worker, or running. */
export type PoolPlace = 'none' | 'worker' | 'rate' | 'cleared' | 'started'

/** What the pool needs of a scheduled call (the scheduler's Job). */
export interface PoolJob {
  readonly seq: number
  /** p-queue's task id: unique per call, for `setPriority`. */
  readonly key: string
  readonly profile: ToolProfile | undefined
  /** The priority: the estimated chain of work still behind this call (its bottom level). */
  bottom: number
  place: PoolPlace
  rate: RateSlot | undefined
  isPending(): boolean
}

/** A rate-limited call's hold on its group. */
export interface RateSlot {
  readonly group: RateGroup
  readonly abort: AbortController
  /** Resolves the group's task: its group slot is free again. */
  done: (() => void) | undefined
  /** The call's place in its rule's count across hosts (the coordination store), given back on release. */
  ticket: RateTicket | undefined
  /** Gives up waiting for that place (the call was released first). */
  ticketWait: AbortController | undefined
}

/** The calls of one `rate_limits` key: a p-queue with the group's `interval`/`intervalCap`/`concurrency`. */
export interface RateGroup {
  readonly rule: RateRule
  readonly queue: PQueue<ReadyQueue, ReadyOptions>
  /** The instance p-queue made of the queue class (for `reorder`). */
  readonly ready: ReadyQueue
  /** Calls in the group's queue, not yet given their rate slot (moved if the limits change). */
  readonly waiting: Set<PoolJob>
}

// Rate-cleared calls go first for the next free worker (they have already waited for their slot).
const FIRST = Number.MAX_VALUE
// Up to this many changed priorities are set one by one (a scan each); more, and the queues are reordered.
const FEW_CHANGES = 16
const ignore = (): void => {}

/**
 * The worker pool: p-queue runs every handler, `max_workers` at once (its `concurrency`, settable
 * while running). The scheduler hands it a call once nothing the call conflicts with is unreleased;
 * the pool decides which waiting call gets the next free worker: the highest priority (the longest
 * estimated chain of work behind it), then the earliest arrival.
 *
 * A call under a `rate_limits` rule first waits in its group's own p-queue (`interval`/`intervalCap`
 * in strict, sliding-window mode, and the group's `concurrency`) without holding a worker; once its
 * rate slot is given it goes first in line for a worker. Group queues are paused while every worker
 * is busy (or new starts are held off, `throttle`), so a rate slot is only taken when a worker is
 * free to use it at once.
 *
 * The scheduler reports each handler's start (`started`) and the moment its slot frees (`freed`:
 * when the handler settles or is abandoned), and every call's release (`released`).
 *
 * @example
 * const pool = new WorkerPool({ concurrency: 8, run: (job) => startHandler(job) })
 * pool.enqueue(job) // starts now if a worker is free, else waits by priority
 */
export class WorkerPool {
  readonly #queue: PQueue<ReadyQueue, ReadyOptions>
  // p-queue's queue of calls waiting for a worker (the instance p-queue made of our queue class).
  #ready: ReadyQueue | undefined
  readonly #run: (job: PoolJob) => Promise<unknown> | undefined
  readonly #onMoved: ((jobs: readonly PoolJob[]) => void) | undefined
  readonly #onRateWait: ((jobs: readonly PoolJob[]) => void) | undefined
  readonly #store: CoordinationStore | undefined
  readonly #onStoreFailure: ((job: PoolJob, error: unknown) => void) | undefined
  #running = 0
  #peak = 0
  // Rate-cleared calls handed to the worker queue and not yet started: they count as busy workers.
  #cleared = 0
  #throttled = false
  #rules: RateRule[] = []
  #rulesVersion = 0
  readonly #groups = new Map<string, RateGroup>()
  readonly #addOptions: { priority: number; id: string; seq: number; item: unknown } = { priority: 0, id: '', seq: 0, item: undefined }

  /**
   * `onMoved`: calls that new rate limits moved (into a rate group, or out of one), to announce their
   * new wait. `onRateWait`: calls that waited for a worker in their rate group and, now that a worker
   * is free, still wait, for their rate slot.
   */
  /**
   * `store`: the coordination store other hosts share; a call's rate slot then also takes its place
   * in its rule's count across hosts (`onStoreFailure` when the store cannot be asked).
   */
  constructor(options: { concurrency: number; run: (job: PoolJob) => Promise<unknown> | undefined; rateLimits?: Readonly<Record<string, RateLimit>>; onMoved?: (jobs: readonly PoolJob[]) => void; onRateWait?: (jobs: readonly PoolJob[]) => void; store?: CoordinationStore; onStoreFailure?: (job: PoolJob, error: unknown) => void }) {
    // The queue class hands each instance p-queue makes of it back to this pool (see `setRateLimits`).
    const pool = this
    this.#queue = new PQueue<ReadyQueue, ReadyOptions>({
      concurrency: options.concurrency,
      queueClass: class WorkerQueue extends ReadyQueue {
        constructor() {
          super()
          pool.#ready = this
        }
      },
    })
    this.#run = options.run
    this.#onMoved = options.onMoved
    this.#onRateWait = options.onRateWait
    this.#store = options.store
    this.#onStoreFailure = options.onStoreFailure
    if (options.rateLimits) this.setRateLimits(options.rateLimits)
  }

  /** Handlers running now, and the most that ever ran at once. */
  get running(): number {
    return this.#running
  }

  get peakRunning(): number {
    return this.#peak
  }

  get concurrency(): number {
    return this.#queue.concurrency
  }

  /** A new worker limit: calls already running go on; calls not yet started see the new limit. */
  set concurrency(workers: number) {
    this.#queue.concurrency = workers
    this.#balance()
  }

  /** Calls waiting for a worker or for a rate slot. */
  get waiting(): number {
    let waiting = this.#queue.size
    for (const group of this.#groups.values()) waiting += group.waiting.size
    return waiting
  }

  /** Holds starting off while the scheduler hands over calls that became ready together. */
  hold(): void {
    this.#queue.pause()
  }

  /** Starts waiting calls by priority while workers are free (unless throttled). */
  go(): void {
    if (!this.#throttled) this.#queue.start()
  }

  /**
   * Holds new starts off while `on` (calls already running go on): the host throttles the pool while
   * too much result text waits to be saved, so huge results do not pile up in memory.
   */
  throttle(on: boolean): void {
    if (on === this.#throttled) return
    this.#throttled = on
    if (on) {
      this.#queue.pause()
      // No worker can be used now: rate groups give no slot either (it would be spent waiting).
      this.#pauseGroups()
    } else {
      this.#queue.start()
      this.#balance()
    }
  }

  /** The rate rules in force (config order). */
  get rateRules(): readonly RateRule[] {
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

  /**
   * New rate limits, for every call not yet started. Groups whose limits are unchanged keep their
   * queue (and window); a group whose `concurrency` alone changed takes it at once. Every other
   * waiting call goes wherever the new rules put it: a call of a changed or removed group, a call
   * whose tool a different rule now covers, and a call waiting for a worker that a rule now covers
   * (it leaves the worker queue for its group). Calls already running, or already given their rate
   * slot, are not touched.
   */
  setRateLimits(limits: Readonly<Record<string, RateLimit>>): void {
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
    if (this.#rules.length > 0) {
      const covered = this.#ready?.take((job) => isPoolJob(job) && job.place === 'worker' && job.profile !== undefined && this.ruleOf(job.profile) !== undefined) ?? []
      for (const job of covered as PoolJob[]) {
        job.place = 'none'
        moved.push(job)
      }
    }
    moved.sort((a, b) => a.seq - b.seq)
    for (const job of moved) this.enqueue(job)
    this.#balance()
    if (moved.length > 0) this.#onMoved?.(moved)
  }

  /** Hands the pool a call whose waits are over; it starts at once when a worker (and its rate slot) is free. */
  enqueue(job: PoolJob): void {
    const rule = this.#rules.length === 0 || job.profile === undefined ? undefined : this.ruleOf(job.profile)
    if (rule === undefined) this.#toWorkers(job, job.bottom)
    else this.#toGroup(job, this.#group(rule))
  }

  /** The call's priority changed while it waits: p-queue's `setPriority` on its waiting task. */
  reprioritise(job: PoolJob): void {
    if (job.place === 'worker') this.#queue.setPriority(job.key, job.bottom)
    else if (job.place === 'rate') job.rate!.group.queue.setPriority(job.key, job.bottom)
  }

  /**
   * Many calls' priorities changed at once: a few are set one by one, more by reordering each queue
   * once (O(n)), so a refresh over a huge batch costs linear, not quadratic, time.
   */
  reprioritiseMany(jobs: readonly PoolJob[]): void {
    if (jobs.length <= FEW_CHANGES) {
      for (const job of jobs) this.reprioritise(job)
      return
    }
    const priorityOf = (item: unknown): number => {
      const job = item as PoolJob
      return job.place === 'cleared' ? FIRST : job.bottom
    }
    this.#ready?.reorder(priorityOf)
    for (const group of this.#groups.values()) group.ready.reorder(priorityOf)
  }

  /** The group a waiting call waits in for its rate slot. */
  groupOf(job: PoolJob): RateGroup | undefined {
    return job.rate?.group
  }

  /** True when every worker is busy (or promised to a rate-cleared call). */
  isSaturated(): boolean {
    return this.#running + this.#cleared >= this.#queue.concurrency
  }

  started(): void {
    if (++this.#running > this.#peak) this.#peak = this.#running
  }

  freed(): void {
    this.#running--
    if (this.#groups.size > 0) this.#balance()
  }

  /** The call was released (ran, or was skipped): give back its group slot, or leave its group's queue. */
  released(job: PoolJob): void {
    const slot = job.rate
    if (slot === undefined) {
      job.place = 'none'
      return
    }
    job.rate = undefined
    if (job.place === 'rate') {
      slot.group.waiting.delete(job)
      slot.abort.abort() // p-queue drops the waiting task; no rate slot is used
    } else if (job.place === 'cleared') {
      this.#cleared--
    }
    job.place = 'none'
    if (slot.ticket !== undefined) this.#store!.releaseRateSlot(slot.ticket)
    else slot.ticketWait?.abort()
    slot.done?.()
  }

  #toWorkers(job: PoolJob, priority: number): void {
    job.place = priority === FIRST ? 'cleared' : 'worker'
    // No `signal`, no timeout, no listener: p-queue adds no abort plumbing per call. The returned
    // promise is dropped: the task never throws (the scheduler turns every failure into an outcome).
    // p-queue copies the options first thing in `add` (before the task can start and hand the pool
    // another call), so one options object serves every add.
    const options = this.#addOptions
    options.priority = priority
    options.id = job.key
    options.seq = job.seq
    options.item = job
    void this.#queue.add<unknown>(() => this.#start(job), options)
    options.item = undefined
  }

  #start(job: PoolJob): Promise<unknown> | undefined {
    if (job.place === 'cleared') this.#cleared--
    if (job.place !== 'none') job.place = 'started'
    return this.#run(job)
  }

  #toGroup(job: PoolJob, group: RateGroup): void {
    const slot: RateSlot = { group, abort: new AbortController(), done: undefined, ticket: undefined, ticketWait: undefined }
    job.rate = slot
    job.place = 'rate'
    group.waiting.add(job)
    if (group.queue.isPaused && this.#canStart()) group.queue.start()
    group.queue.add<unknown>(() => this.#rateCleared(job, slot), { priority: job.bottom, id: job.key, seq: job.seq, signal: slot.abort.signal }).catch(ignore)
  }

  // The group gave the call its rate slot: it goes first in line for a worker, and holds its group
  // slot until the call is released.
  #rateCleared(job: PoolJob, slot: RateSlot): Promise<void> | undefined {
    slot.group.waiting.delete(job)
    if (job.rate !== slot || !job.isPending()) return undefined
    const done = new Promise<void>((resolve) => {
      slot.done = resolve
    })
    this.#cleared++
    const store = this.#store
    if (store === undefined) {
      this.#toWorkers(job, FIRST)
    } else if (!store.needsAsk) {
      // Alone: the store only notes the start (to publish if another host joins); no wait.
      slot.ticket = store.takeRateSlot(slot.group.rule) as RateTicket
      this.#toWorkers(job, FIRST)
    } else {
      this.#awaitTicket(job, slot, store)
    }
    if (this.isSaturated()) this.#pauseGroups()
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
        this.#toWorkers(job, FIRST)
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
        autoStart: this.#canStart(),
      })
      group = { rule, queue, ready: ready!, waiting: new Set() }
      this.#groups.set(rule.key, group)
    }
    return group
  }

  // A worker is free and new starts are not held off: a rate slot given now is used at once.
  #canStart(): boolean {
    return !this.#throttled && !this.isSaturated()
  }

  #pauseGroups(): void {
    for (const group of this.#groups.values()) if (!group.queue.isPaused) group.queue.pause()
  }

  // Group queues run only while a worker is free: a rate slot is then used the moment it is given.
  #balance(): void {
    if (!this.#canStart()) {
      this.#pauseGroups()
      return
    }
    let waitingForRate: PoolJob[] | undefined
    for (const group of this.#groups.values()) {
      if (!this.#canStart()) break
      if (!group.queue.isPaused) continue
      // p-queue gives free rate slots at once; the calls still waiting now wait for their rate.
      group.queue.start()
      if (group.waiting.size > 0 && this.#onRateWait) (waitingForRate ??= []).push(...group.waiting)
    }
    if (waitingForRate) this.#onRateWait!(waitingForRate)
  }
}

function isPoolJob(item: unknown): item is PoolJob {
  return typeof item === 'object' && item !== null && 'place' in item
}
