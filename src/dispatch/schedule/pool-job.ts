// What the worker pool and its rate groups know of a call (types only; see worker-pool.ts and
// rate-groups.ts): its place in the pool and its hold on a rate group.
import type PQueue from 'p-queue'
import type { ToolProfile } from './duration-estimates.js'
import type { RateRule } from './rate-limits.js'
import type { ReadyQueue, ReadyOptions } from './ready-queue.js'
import type { RateTicket } from '../../store/coordination-store.js'

/** Where a call stands in the pool: not in it, waiting for a worker, waiting for its rate slot, rate slot taken and first in line for a worker, or running. */
export type PoolPlace = 'none' | 'worker' | 'rate' | 'cleared' | 'started'

/** What the pool needs of a scheduled call (the scheduler's Job). */
export interface PoolJob {
  readonly seq: number
  /** The call's id in the queue it waits in: unique per call, for `setPriority`. */
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
