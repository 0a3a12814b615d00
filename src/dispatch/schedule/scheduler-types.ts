// The scheduler's public types (types only), kept apart so scheduler.ts holds behaviour.
import type { ToolError } from '../../contract/types.js'
import type { DurationEstimates, ToolProfile } from './duration-estimates.js'
import type { Execution, Outcome } from '../execute/execute-call.js'
import type { Footprint } from '../admit/footprint.js'
import type { RateLimit } from './rate-limits.js'
import type { CoordinationStore } from '../../store/coordination-store.js'

/** What the scheduler needs of a call that passed parse, lookup, validation and authorisation. */
export interface SchedulableCall {
  id: string
  footprint: Footprint
  /** Resolves with undefined to run, or with the error that stops it (a denied approval). */
  gate?: Promise<ToolError | undefined>
  /** Starts the handler; called at most once, when a worker is free and every wait is over. */
  start(): Execution
  /** The tool's profile (`scheduler.profileOf`): its duration estimate and rate rule. */
  profile?: ToolProfile
  /** False: the call claims nothing from the store shared with other hosts (it delegates to a server that does). */
  crossHost?: boolean
}

/** One wait of a call: the earlier call it waits for, and why. */
export interface Wait {
  id: string
  reason: string
  /** Set when the call waits for another host sharing the workspace (`host <pid>`): `id` is that host's call. */
  host?: string
}

/** The scheduler's events about a call, in order: queued, waiting (on earlier calls, a worker, a rate slot), started, finished, released. */
export type SchedulerEvent =
  | { type: 'queued'; id: string; seq: number; at: number }
  | { type: 'waiting'; id: string; seq: number; at: number; on: Wait[] }
  /** Every wait on earlier calls is over, but every worker is busy: `behind` holds them (the calls running now). */
  | { type: 'waiting-worker'; id: string; seq: number; at: number; behind: string[] }
  /** Every wait on earlier calls is over, but its `rate_limits` group has no slot free now. */
  | { type: 'waiting-rate'; id: string; seq: number; at: number; group: string; limit: RateLimit }
  | { type: 'started'; id: string; seq: number; at: number; running: number }
  | { type: 'finished'; id: string; seq: number; at: number; ok: boolean; code?: string }
  | { type: 'released'; id: string; seq: number; at: number; abandoned: boolean }

/** How a scheduled call ended, as the host shapes it into a result. */
export type JobOutcome =
  | { ran: true; outcome: Outcome; startedAt: number; endedAt: number; waits: Wait[] }
  | { ran: false; error: ToolError; waits: Wait[] }

/**
 * Takes each call's outcome the moment it is answered, by the call's index in its submission
 * (`Scheduler.submitTo`): one object per batch instead of a promise per call. It is called inside
 * the scheduler, so it must not throw and must not submit or interrupt calls itself.
 */
export interface OutcomeSink {
  answer(index: number, outcome: JobOutcome): void
}

export interface SchedulerOptions {
  maxWorkers: number
  now: () => number
  onEvent?: (event: SchedulerEvent) => void
  /** Called with each handler's outcome as it is answered, before its worker is freed (the host weighs huge results here). */
  onAnswer?: (outcome: Outcome) => void
  /** When given, events are built and sent only while it returns true (nobody listening: no event objects). */
  listening?: () => boolean
  /** `rate_limits` from config: per tool name, toolset or glob. */
  rateLimits?: Readonly<Record<string, RateLimit>>
  /** `call-order`: every ready call has priority 0, so free workers go to the earliest (default: critical-path). */
  priority?: 'critical-path' | 'call-order'
  /** Per-tool duration estimates (e.g. loaded from a previous run); default: start with none. */
  estimates?: DurationEstimates
  /**
   * The store this host shares with other hosts of its workspace (not a `process`-scoped one): a
   * call asks it once its waits in this host are over, and a rate-limited call asks it for its rate
   * slot. Undefined: this host coordinates with no one.
   */
  store?: CoordinationStore
}

export interface SubmitOptions {
  /** Extra waits inside this submission (by index into `calls`), from the batch's mode. */
  modeWaits?: ReadonlyArray<ReadonlyArray<{ index: number; reason: string }>>
  signal?: AbortSignal
}

