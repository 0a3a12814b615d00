// The events a host emits about its calls (`host.onEvent`): the scheduler's, the host's own about
// admission and approvals, and a handler's progress and log lines. Observers (this folder, otel/,
// the console, MCP) read them; the host sits above and emits them.
import type { Footprint } from '../dispatch/admit/footprint.js'
import type { SchedulerEvent } from '../dispatch/schedule/scheduler-types.js'
import type { LogLevel, ToolResult } from '../contract/types.js'

/**
 * The host's own events about calls, around the scheduler's: each call it schedules (with its tool,
 * its batch, its footprint kind and its permission: allowed, waiting for a person's approval, or
 * held while its availability and permission checks are decided), each call refused before
 * scheduling (parse, lookup, validation or permission), how a held call's checks came out
 * (`checked`: allowed, refused, or asking a person), each approval a person gave or refused, and
 * each scheduled call's result once its caller has it (`answered`), and each hook's decision (`hook`). `admitted` carries the
 * validated arguments (the object itself: a listener must not change it).
 * Like every event, built only while someone listens.
 */
export type CallEvent =
  | { type: 'admitted'; id: string; name: string; batch: number; at: number; footprint: Footprint['kind']; permission: 'allow' | 'ask' | 'check'; arguments: Readonly<Record<string, unknown>> }
  | { type: 'refused'; id: string; name: string; batch: number; at: number; code: string; message: string }
  | { type: 'checked'; id: string; at: number; outcome: 'allowed' | 'asking' | 'refused'; code?: string }
  | { type: 'approval'; id: string; at: number; outcome: 'approved' | 'denied'; code?: string }
  /** A scheduled call's result as its caller gets it (shaped, after-hooks applied). */
  | { type: 'answered'; id: string; at: number; result: ToolResult }
  /**
   * One hook's decision about a call (config.yaml's, the embedding's or a plugin's): a before-hook's
   * comes before the call's `admitted` or `refused`, an after-hook's before its `answered`.
   */
  | { type: 'hook'; id: string; name: string; at: number; event: 'before_call' | 'after_call'; hook: string; decision: 'allow' | 'ask' | 'deny'; reason: string }

/** What `host.onEvent` reports: the scheduler's events, the host's own about calls, and a handler's progress and log lines. */
export type HostEvent =
  | SchedulerEvent
  | CallEvent
  | { type: 'progress'; id: string; message: string; progress?: number; total?: number }
  /** A line a handler wrote with `ctx.report.log` (it is in the host's log too). */
  | { type: 'log'; id: string; level: LogLevel; message: string; fields?: Record<string, unknown> }
