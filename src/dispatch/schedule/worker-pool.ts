import PQueue from 'p-queue'
import type { ToolProfile } from './duration-estimates.js'
import type { PoolJob, RateGroup } from './pool-job.js'
import { RateGroups, type PoolWorkers, type RateGroupsOptions } from './rate-groups.js'
import type { RateLimit, RateRule } from './rate-limits.js'
import { ReadyQueue } from './ready-queue.js'
import { WorkerSlots } from './worker-slots.js'

// Rate-cleared calls go first for the next free worker (they have already waited for their slot).
const FIRST = Number.MAX_VALUE
// Up to this many changed priorities are set one by one (a scan each); more, and the queues are reordered.
const FEW_CHANGES = 16
// The worker queue's entries stand for calls (their `item`); a slot starts each (worker-slots.ts).
const NOT_A_TASK = (): Promise<unknown> => Promise.resolve()

/**
 * The worker pool: p-queue runs every handler, `max_workers` at once (its `concurrency`, settable
 * while running). The scheduler hands it a call once nothing the call conflicts with is unreleased;
 * the pool decides which waiting call gets the next free worker: the highest priority (the longest
 * estimated chain of work behind it), then the earliest arrival. The calls wait in the pool's
 * `ReadyQueue`; p-queue's tasks are slots that take them one after another (worker-slots.ts: a
 * slot takes the next call as soon as its handler answers at once or settles).
 *
 * A call under a `rate_limits` rule first waits in its rate group (`rate-groups.ts`) without holding
 * a worker; once its rate slot is given it goes first in line for a worker. The groups run only while
 * a worker is free and new starts are not held off (`throttle`).
 *
 * The scheduler reports each handler's start (`started`) and the moment its slot frees (`freed`:
 * when the handler settles or is abandoned), and every call's release (`released`).
 *
 * @example
 * const pool = new WorkerPool({ concurrency: 8, run: (job) => startHandler(job) })
 * pool.enqueue(job) // starts now if a worker is free, else waits by priority
 */
export class WorkerPool {
  readonly #queue: PQueue
  // The calls waiting for a worker, best first.
  readonly #ready = new ReadyQueue()
  readonly #slots: WorkerSlots<PoolJob>
  readonly #run: (job: PoolJob) => Promise<unknown> | undefined
  readonly #onMoved: ((jobs: readonly PoolJob[]) => void) | undefined
  readonly #rates: RateGroups
  #running = 0
  #peak = 0
  // Rate-cleared calls handed to the worker queue and not yet started: they count as busy workers.
  #cleared = 0
  #throttled = false
  #held = false

  /**
   * `onMoved`: calls that new rate limits moved (into a rate group, or out of one), to announce their
   * new wait. `onRateWait`, `store`, `onStoreFailure`: the rate groups' (`RateGroupsOptions`).
   */
  constructor(options: RateGroupsOptions & { concurrency: number; run: (job: PoolJob) => Promise<unknown> | undefined; rateLimits?: Readonly<Record<string, RateLimit>>; onMoved?: (jobs: readonly PoolJob[]) => void }) {
    this.#queue = new PQueue({ concurrency: options.concurrency })
    this.#slots = new WorkerSlots<PoolJob>(this.#queue, this.#ready, (job) => this.#start(job), () => !this.#held && !this.#throttled)
    this.#run = options.run
    this.#onMoved = options.onMoved
    // Made once: the rate groups' only way to the workers (nothing per call).
    const workers: PoolWorkers = {
      canStart: () => this.#canStart(),
      isSaturated: () => this.isSaturated(),
      promiseWorker: () => {
        this.#cleared++
      },
      queueFirst: (job: PoolJob) => this.#toWorkers(job, FIRST),
    }
    this.#rates = new RateGroups(workers, options)
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
    this.#slots.fill()
    this.#rates.balance()
  }

  /** Calls waiting for a worker or for a rate slot. */
  get waiting(): number {
    return this.#ready.size + this.#rates.waiting
  }

  /**
   * Holds starting off while the scheduler hands over calls that became ready together (the slots
   * take no call while held, so p-queue itself is never paused).
   */
  hold(): void {
    this.#held = true
  }

  /** Starts waiting calls by priority while workers are free (unless throttled). */
  go(): void {
    this.#held = false
    this.#slots.fill()
  }

  /**
   * Holds new starts off while `on` (calls already running go on): the host throttles the pool while
   * too much result text waits to be saved, so huge results do not pile up in memory.
   */
  throttle(on: boolean): void {
    if (on === this.#throttled) return
    this.#throttled = on
    if (on) {
      // No worker can be used now: rate groups give no slot either (it would be spent waiting).
      this.#rates.pause()
    } else {
      this.#slots.fill()
      this.#rates.balance()
    }
  }

  /** The rate rules in force (config order). */
  get rateRules(): readonly RateRule[] {
    return this.#rates.rules
  }

  /** The rule a tool's calls fall under now, if any. */
  ruleOf(profile: ToolProfile): RateRule | undefined {
    return this.#rates.ruleOf(profile)
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
    const moved = this.#rates.setLimits(limits)
    if (this.#rates.rules.length > 0) {
      // Every entry of the pool's own queue is a job.
      const covered = this.#ready.take((item) => {
        const job = item as PoolJob
        return job.place === 'worker' && job.profile !== undefined && this.#rates.ruleOf(job.profile) !== undefined
      }) as PoolJob[]
      for (const job of covered) {
        job.place = 'none'
        moved.push(job)
      }
    }
    moved.sort((a, b) => a.seq - b.seq)
    for (const job of moved) this.enqueue(job)
    this.#rates.balance()
    if (moved.length > 0) this.#onMoved?.(moved)
  }

  /** Hands the pool a call whose waits are over; it starts at once when a worker (and its rate slot) is free. */
  enqueue(job: PoolJob): void {
    if (!this.#rates.admit(job)) this.#toWorkers(job, job.bottom)
  }

  /** The call's priority changed while it waits: `setPriority` in the queue it waits in. */
  reprioritise(job: PoolJob): void {
    if (job.place === 'worker') this.#ready.setPriority(job.key, job.bottom)
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
    this.#ready.reorder(priorityOf)
    this.#rates.reorder(priorityOf)
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
    this.#slots.fill()
    this.#rates.balance()
  }

  /** The call was released (ran, or was skipped): give back its group slot, or leave its group's queue. */
  released(job: PoolJob): void {
    if (job.rate === undefined) {
      job.place = 'none'
      return
    }
    if (job.place === 'cleared') this.#cleared--
    this.#rates.release(job)
  }

  #toWorkers(job: PoolJob, priority: number): void {
    job.place = priority === FIRST ? 'cleared' : 'worker'
    // The entry object is the queue's heap entry itself (ready-queue.ts): one object per call.
    this.#ready.enqueue(NOT_A_TASK, { id: job.key, priority, seq: job.seq, item: job })
    this.#slots.fill()
  }

  #start(job: PoolJob): Promise<unknown> | undefined {
    if (job.place === 'cleared') this.#cleared--
    if (job.place !== 'none') job.place = 'started'
    return this.#run(job)
  }

  // A worker is free and new starts are not held off: a rate slot given now is used at once.
  #canStart(): boolean {
    return !this.#throttled && !this.isSaturated()
  }
}
