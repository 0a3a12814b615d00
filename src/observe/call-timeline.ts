import type { HostEvent } from './host-events.js'
import type { ToolResult } from '../contract/types.js'
import { LaneAllocator } from './lanes.js'
import { describeRatePace, type RateLimit } from '../dispatch/schedule/rate-limits.js'

/**
 * Where a call is: refused before scheduling, held while its availability and permission checks are
 * decided, waiting for a person, for earlier calls, or for a rate slot, ready (waiting for a worker),
 * running, or done.
 */
export type CallState = 'refused' | 'checking' | 'approval' | 'waiting' | 'rate' | 'ready' | 'running' | 'done'

/** One wait of a call: the earlier call, why, and whether that call has released its reservations. */
export interface RecordedWait {
  id: string
  reason: string
  done: boolean
}

/**
 * One call as the host's events tell it, on the host's clock (ms). The same facts `run --trace`
 * shows, plus the worker lane it ran on.
 */
export interface CallRecord {
  /** Unique per timeline (call ids may repeat across batches). */
  key: number
  id: string
  name: string
  batch: number
  /** The scheduler's arrival number (absent for a call refused before scheduling). */
  seq: number | undefined
  footprint: string | undefined
  state: CallState
  queuedAt: number | undefined
  startedAt: number | undefined
  finishedAt: number | undefined
  releasedAt: number | undefined
  lane: number | undefined
  waits: RecordedWait[]
  /** A person's approval: asked, then given or refused (undefined when no one was asked). */
  approval: 'asked' | 'approved' | 'denied' | undefined
  /** A call held at arrival while its availability and permission checks were decided, and how they came out. */
  check: 'checking' | 'allowed' | 'refused' | undefined
  ok: boolean | undefined
  code: string | undefined
  /** Why it was refused before scheduling. */
  message: string | undefined
  /**
   * The worker pool's waits, from the scheduler's `waiting-worker` (the calls holding every worker)
   * and `waiting-rate` (the rate-limit group and its pace, `http_get, 2 per s`) events, when it
   * sends them; `last` is the latest.
   */
  pool: { worker?: string[]; rate?: string; last: 'worker' | 'rate' } | undefined
  /** The arguments as the timeline's `detail` wrote them (absent without one). */
  arguments: string | undefined
  /** The result the caller got, as the timeline's `detail` wrote it (absent without one, or not answered yet). */
  result: string | undefined
  /** Each hook's decision about the call, in order (before-hooks, then after-hooks). */
  hooks: RecordedHook[]
  /** The last progress message. */
  progress: string | undefined
  abandoned: boolean
  /** Events of types this version does not know (a newer scheduler's), as text, latest last. */
  notes: { type: string; at: number | undefined; text: string }[]
}

/** One hook's decision about a call, as its `hook` event told it. */
export interface RecordedHook {
  event: 'before_call' | 'after_call'
  hook: string
  decision: 'allow' | 'ask' | 'deny'
  reason: string
}

/** What a `CallTimeline` keeps, and whom it tells of each change. */
export interface CallTimelineOptions {
  /** Keep at most this many finished calls (the oldest go first); running ones are always kept. */
  limit?: number
  /** Called synchronously for every event that touched a call (so a listener sees the caller's context on 'admitted'). */
  onUpdate?: (record: CallRecord, event: HostEvent) => void
  /**
   * Keeps each call's arguments and result as text, written by these functions (the console's bound
   * their size and blank out secrets). Without it the records hold neither.
   */
  detail?: CallDetailWriter
}

/** How a timeline writes a call's arguments and result into its record. */
export interface CallDetailWriter {
  arguments(tool: string, args: Readonly<Record<string, unknown>>): string
  result(tool: string, result: ToolResult): string
}

const MAX_NOTES = 10
// Before-hook decisions of calls not admitted or refused yet, held for at most this many calls.
const MAX_EARLY_HOOKS = 1000

/**
 * Builds call records from a host's events (`host.onEvent`): one per call, with its tool, batch,
 * waits (and which of them are over), approval, worker lane and outcome. Shared by the console,
 * the trace file and OpenTelemetry, so each reads the same facts. Events of unknown types are kept
 * as notes on their call, never an error.
 *
 * @example
 * const timeline = new CallTimeline()
 * const stop = host.onEvent((event) => timeline.observe(event))
 * await host.run(calls)
 * timeline.records() // [{ id: 'c1', name: 'read_file', lane: 0, state: 'done', ... }, ...]
 */
export class CallTimeline {
  readonly #limit: number
  readonly #onUpdate: ((record: CallRecord, event: HostEvent) => void) | undefined
  readonly #detail: CallDetailWriter | undefined
  readonly #lanes = new LaneAllocator()
  // By key, in the order calls came (a Map: dropping one is O(1)).
  readonly #records = new Map<number, CallRecord>()
  #done = 0
  #unblocked: CallRecord[] = []
  #keys = 0
  readonly #bySeq = new Map<number, CallRecord>()
  // The latest record of each call id (events without a seq name the call by id).
  readonly #byId = new Map<string, CallRecord>()
  // Admitted calls whose 'queued' event (which brings the seq) has not come yet, by id, in order.
  readonly #admitted = new Map<string, CallRecord[]>()
  // Calls waiting for a call (by its record), to mark the wait done when it releases.
  readonly #waiters = new Map<CallRecord, CallRecord[]>()
  // Before-hook decisions come before their call's record (its 'admitted' or 'refused'), by call id.
  readonly #earlyHooks = new Map<string, RecordedHook[]>()

  constructor(options: CallTimelineOptions = {}) {
    this.#limit = options.limit ?? Number.POSITIVE_INFINITY
    this.#onUpdate = options.onUpdate
    this.#detail = options.detail
  }

  /** Every call kept, in the order the host admitted or refused them. */
  records(): CallRecord[] {
    return [...this.#records.values()]
  }

  /** The most worker lanes used at once. */
  get peakLanes(): number {
    return this.#lanes.peak
  }

  /** Takes one host event into the records; returns the call it touched, if any. */
  observe(event: HostEvent): CallRecord | undefined {
    const record = this.#apply(event)
    if (record) this.#onUpdate?.(record, event)
    // A release also changes the calls that waited for it (their wait is over).
    if (this.#unblocked.length > 0) {
      const unblocked = this.#unblocked
      this.#unblocked = []
      for (const waiter of unblocked) this.#onUpdate?.(waiter, event)
    }
    return record
  }

  #apply(event: HostEvent): CallRecord | undefined {
    switch (event.type) {
      case 'admitted': {
        const record = this.#create(event.id, event.name, event.batch)
        record.footprint = event.footprint
        if (this.#detail) record.arguments = this.#detail.arguments(event.name, event.arguments)
        if (event.permission === 'ask') record.approval = 'asked'
        else if (event.permission === 'check') record.check = 'checking'
        record.state = stateOf(record)
        const queue = this.#admitted.get(event.id)
        if (queue) queue.push(record)
        else this.#admitted.set(event.id, [record])
        return record
      }
      case 'refused': {
        const record = this.#create(event.id, event.name, event.batch)
        Object.assign(record, { state: 'refused', ok: false, code: event.code, message: event.message, finishedAt: event.at })
        this.#finishRecord(record)
        return record
      }
      case 'queued': {
        const queue = this.#admitted.get(event.id)
        const record = queue?.shift()
        if (queue?.length === 0) this.#admitted.delete(event.id)
        if (!record) return undefined // scheduled before this timeline listened
        record.seq = event.seq
        record.queuedAt = event.at
        this.#bySeq.set(event.seq, record)
        return record
      }
      case 'checked': {
        const record = this.#byId.get(event.id)
        if (!record) return undefined
        record.check = event.outcome === 'refused' ? 'refused' : 'allowed'
        if (event.outcome === 'asking') record.approval = 'asked'
        return this.#restate(record)
      }
      case 'approval': {
        const record = this.#byId.get(event.id)
        if (!record) return undefined
        record.approval = event.outcome
        return this.#restate(record)
      }
      case 'answered': {
        const record = this.#byId.get(event.id)
        if (!record || !this.#detail) return undefined
        record.result = this.#detail.result(record.name, event.result)
        return record
      }
      case 'hook': {
        const decision: RecordedHook = { event: event.event, hook: event.hook, decision: event.decision, reason: event.reason }
        const record = event.event === 'after_call' ? this.#byId.get(event.id) : undefined
        if (record) {
          record.hooks.push(decision)
          return record
        }
        const early = this.#earlyHooks.get(event.id)
        if (early) early.push(decision)
        else {
          if (this.#earlyHooks.size >= MAX_EARLY_HOOKS) this.#earlyHooks.delete(this.#earlyHooks.keys().next().value!)
          this.#earlyHooks.set(event.id, [decision])
        }
        return undefined
      }
      case 'progress': {
        const record = this.#byId.get(event.id)
        if (!record) return undefined
        record.progress = event.message
        return record
      }
      default:
        return this.#applyScheduling(event)
    }
  }

  #applyScheduling(event: HostEvent): CallRecord | undefined {
    const seq = (event as { seq?: unknown }).seq
    const record = typeof seq === 'number' ? this.#bySeq.get(seq) : this.#byId.get(String((event as { id?: unknown }).id))
    if (!record) return undefined
    switch (event.type) {
      case 'waiting':
        for (const wait of event.on) {
          // A call of another host sharing the root: this host never sees it released; the wait
          // is over when this call starts.
          if (wait.host !== undefined) {
            record.waits.push({ id: `${wait.id} on ${wait.host}`, reason: wait.reason, done: false })
            continue
          }
          const earlier = this.#byId.get(wait.id)
          const done = earlier === undefined || earlier.releasedAt !== undefined
          record.waits.push({ id: wait.id, reason: wait.reason, done })
          if (!done) {
            const list = this.#waiters.get(earlier)
            if (list) list.push(record)
            else this.#waiters.set(earlier, [record])
          }
        }
        return this.#restate(record)
      case 'started':
        for (const wait of record.waits) wait.done = true
        record.startedAt = event.at
        record.lane = this.#lanes.take()
        return this.#restate(record)
      case 'finished':
        record.finishedAt = event.at
        record.ok = event.ok
        record.code = event.code
        return this.#restate(record)
      case 'released':
        record.releasedAt = event.at
        record.abandoned = event.abandoned
        record.finishedAt ??= event.at
        if (record.lane !== undefined) this.#lanes.free(record.lane)
        this.#releaseWaiters(record)
        this.#bySeq.delete(record.seq!)
        this.#restate(record)
        this.#finishRecord(record)
        return record
      default: {
        const type = String((event as { type: unknown }).type)
        const fields = event as unknown as Record<string, unknown>
        // The pool's waits (the scheduling engineer's events), read structurally.
        if (type === 'waiting-worker' || type === 'waiting-rate') {
          const pool = (record.pool ??= { last: 'worker' })
          if (type === 'waiting-worker') {
            pool.worker = Array.isArray(fields.behind) ? fields.behind.map(String) : []
            pool.last = 'worker'
          } else {
            const limit = isRateLimit(fields.limit) ? describeRatePace(fields.limit) : ''
            pool.rate = `${String(fields.group)}${limit === '' ? '' : `, ${limit}`}`
            pool.last = 'rate'
          }
          return this.#restate(record)
        }
        // Any other event type this version does not know: kept as a note.
        const at = (event as { at?: unknown }).at
        record.notes.push({ type, at: typeof at === 'number' ? at : undefined, text: describeUnknown(event as unknown as Record<string, unknown>) })
        if (record.notes.length > MAX_NOTES) record.notes.shift()
        return record
      }
    }
  }

  #create(id: string, name: string, batch: number): CallRecord {
    const record: CallRecord = {
      key: ++this.#keys, id, name, batch, seq: undefined, footprint: undefined, state: 'ready',
      queuedAt: undefined, startedAt: undefined, finishedAt: undefined, releasedAt: undefined, lane: undefined,
      waits: [], approval: undefined, check: undefined, ok: undefined, code: undefined, message: undefined, pool: undefined, arguments: undefined, result: undefined, hooks: this.#earlyHooks.get(id) ?? [], progress: undefined, abandoned: false, notes: [],
    }
    this.#earlyHooks.delete(id)
    this.#records.set(record.key, record)
    this.#byId.set(id, record)
    return record
  }

  #releaseWaiters(record: CallRecord): void {
    const waiters = this.#waiters.get(record)
    if (!waiters) return
    this.#waiters.delete(record)
    // A call released without starting (its approval refused, or interrupted) held nothing up: it
    // is nobody's wait, as the scheduler's outcomes and `explain` say.
    const ran = record.startedAt !== undefined
    for (const waiter of waiters) {
      if (ran) for (const wait of waiter.waits) if (wait.id === record.id) wait.done = true
      if (!ran) waiter.waits = waiter.waits.filter((wait) => wait.id !== record.id)
      this.#restate(waiter)
      this.#unblocked.push(waiter)
    }
  }

  #restate(record: CallRecord): CallRecord {
    record.state = stateOf(record)
    return record
  }

  // A call is over (released or refused). With limit 0 it is forgotten at once; otherwise the
  // oldest finished calls go once there are too many. The scan from the oldest runs only when it
  // drops at least as many calls as are still running and a quarter of the limit, so its cost
  // per call stays constant however many calls are in flight.
  #finishRecord(record: CallRecord): void {
    if (this.#limit === 0) return this.#forget(record)
    this.#done++
    const active = this.#records.size - this.#done
    if (this.#done - this.#limit < Math.max(16, this.#limit / 4, active)) return
    let excess = this.#done - this.#limit
    for (const r of this.#records.values()) {
      if (excess === 0) break
      if (r.state !== 'refused' && r.releasedAt === undefined) continue
      this.#forget(r)
      this.#done--
      excess--
    }
  }

  #forget(record: CallRecord): void {
    this.#records.delete(record.key)
    if (this.#byId.get(record.id) === record) this.#byId.delete(record.id)
  }
}

function isRateLimit(value: unknown): value is RateLimit {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A record's state from its facts. */
export function stateOf(record: CallRecord): CallState {
  if (record.state === 'refused') return 'refused'
  if (record.finishedAt !== undefined) return 'done'
  if (record.startedAt !== undefined) return 'running'
  if (record.check === 'checking') return 'checking'
  if (record.approval === 'asked') return 'approval'
  if (record.waits.some((w) => !w.done)) return 'waiting'
  return record.pool?.last === 'rate' ? 'rate' : 'ready'
}

// An unknown event as "field value, …" (its type, call and clock are shown apart).
function describeUnknown(event: Record<string, unknown>): string {
  const parts: string[] = []
  for (const [key, value] of Object.entries(event)) {
    if (key === 'type' || key === 'id' || key === 'seq' || key === 'at') continue
    if (Array.isArray(value)) {
      parts.push(`${key} ${value.map((v) => (typeof v === 'object' && v !== null && 'id' in v ? `${String(v.id)}${'reason' in v ? ` (${String(v.reason)})` : ''}` : String(v))).join(', ')}`)
    } else if (typeof value === 'object' && value !== null) {
      parts.push(`${key} ${JSON.stringify(value).slice(0, 200)}`)
    } else {
      parts.push(`${key} ${String(value)}`)
    }
  }
  return parts.join('; ')
}
