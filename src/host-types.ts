/** The host's option and stage types (types only), kept apart so host.ts holds behaviour. */
import type { DispatchMode, PermissionMode } from './config/types.js'
import type { ExplainedCall } from './dispatch/explain-plan.js'
import type { Footprint, FootprintOrigin } from './dispatch/footprint.js'
import type { SchedulerEvent } from './dispatch/scheduler.js'
import type { ConfigSource } from './host-setup.js'
import type { Host } from './host.js'
import type { ApproveHandler } from './permissions/approvals.js'
import type { ToolRegistry } from './registry.js'
import type { AnyTool, AskHandler, Logger, ToolCall, ToolError } from './types.js'

/** One call handed to the authorisation stage. */
export interface AuthoriseItem {
  index: number
  call: ToolCall
  tool: AnyTool
  args: Record<string, unknown>
}

/** Run (with possibly updated arguments, maybe after an approval `gate`), or refuse with an error. */
export type AuthoriseDecision =
  | { run: true; args: Record<string, unknown>; gate?: Promise<ToolError | undefined> }
  | { run: false; error: ToolError }

/** The authorisation stage: sees a whole batch at once, so approvals can be asked together. */
export interface Authoriser {
  authorise(items: readonly AuthoriseItem[], context: { signal?: AbortSignal; host: Host }): Promise<AuthoriseDecision[]>
  /** The host is closing: stop waiting for people (refuse calls still waiting for an approval). */
  shutdown?(): void
  /** What it would decide for each call, with no side effects (for `explain`). */
  preview?(items: readonly AuthoriseItem[], context: { host: Host }): Promise<Array<{ outcome: 'allow' | 'ask' | 'deny'; by: string; reason: string }>>
}

export type HostEvent = SchedulerEvent | { type: 'progress'; id: string; message: string; progress?: number; total?: number }

export interface HostOptions extends ConfigSource {
  /** Extra plugin folders, added to `plugins.dirs` (relative to the process cwd). */
  plugins?: string[]
  /** Load the plugin folders (default true). */
  loadPlugins?: boolean
  /** Hot reload: re-import plugin files when they change (also `plugins.watch`). */
  watch?: boolean
  registry?: ToolRegistry
  /** How the host asks a person (clarify, approvals). */
  ask?: AskHandler
  /** Who approves calls the permission system asks about; without one they are denied (E_DENIED). */
  approve?: ApproveHandler
  /** Permission mode override (CLI `--permission-mode`); wins over `permissions.mode`. */
  permissionMode?: PermissionMode
  /** Replaces the permission system (default: a `PermissionGate` built from `permissions.*`). */
  authoriser?: Authoriser
  /** Mode override (CLI `--mode`). */
  mode?: DispatchMode
  log?: Logger
  /** Log every scheduling event at debug level (default: when `TOOLHOST_LOG=debug`). */
  logEvents?: boolean
  /** Monotonic clock in ms (benchmarks inject a virtual one). */
  now?: () => number
  env?: NodeJS.ProcessEnv
}

export interface RunOptions {
  signal?: AbortSignal
  mode?: DispatchMode
  /** Add startedAt/endedAt/waitedFor to each result. */
  trace?: boolean
}

/**
 * One call of a plan, as `explain` shows it. A call the permission system would deny is left out of
 * the wait graph (it would never run); a wait on a call that asks a person carries `ifAllowed`.
 */
export interface PlannedCall extends Partial<Omit<ExplainedCall, 'waitsFor'>> {
  id: string
  name: string
  /** Present when the call would fail before running. */
  error?: ToolError
  footprint?: Footprint
  /** Who decided the kind of footprint: the tool's declarations, config `dispatch.*`, or the default. */
  footprintFrom?: FootprintOrigin
  /** What the permission system would decide (allow, ask or deny), by whom and why. */
  permission?: { outcome: 'allow' | 'ask' | 'deny'; by: string; reason: string }
  waitsFor: ExplainedCall['waitsFor']
}
