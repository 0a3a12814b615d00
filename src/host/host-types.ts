/** The host's option and stage types (types only), kept apart so host.ts holds behaviour. */
import type { DispatchMode, PermissionMode } from '../config/types.js'
import type { ExplainedCall } from '../dispatch/schedule/explain-plan.js'
import type { Footprint, FootprintOrigin } from '../dispatch/admit/footprint.js'
import type { SchedulerEvent } from '../dispatch/schedule/scheduler.js'
import type { ConfigSource } from './setup.js'
import type { Host } from './host.js'
import type { Audience } from '../contract/messages.js'
import type { ApproveHandler, StandbyApprover } from '../permissions/approvals.js'
import type { ToolRegistry } from '../registry/registry.js'
import type { AnyTool, AskHandler, Logger, LogLevel, ToolCall, ToolError } from '../contract/types.js'

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
  /**
   * The same decisions made synchronously when they need no waiting (calls needing a person still
   * get their `gate`); undefined when they do. Optional: without it every batch is decided through
   * `authorise`, its calls holding their places in the schedule meanwhile.
   */
  authoriseNow?(items: readonly AuthoriseItem[], context: { signal?: AbortSignal; host: Host }): AuthoriseDecision[] | undefined
  /** The host is closing: stop waiting for people (refuse calls still waiting for an approval). */
  shutdown?(): void
  /** Adds an approver asked when no one else can be (the console while open); returns its remover. */
  attachStandby?(approver: StandbyApprover): () => void
  /** What it would decide for each call, with no side effects (for `explain`). */
  preview?(items: readonly AuthoriseItem[], context: { host: Host }): Promise<Array<{ outcome: 'allow' | 'ask' | 'deny'; by: string; reason: string }>>
}

/**
 * The host's own events about calls, around the scheduler's: each call it schedules (with its tool,
 * its batch, its footprint kind and its permission: allowed, waiting for a person's approval, or
 * held while its availability and permission checks are decided), each call refused before
 * scheduling (parse, lookup, validation or permission), how a held call's checks came out
 * (`checked`: allowed, refused, or asking a person), and each approval a person gave or refused.
 * Like every event, built only while someone listens.
 */
export type CallEvent =
  | { type: 'admitted'; id: string; name: string; batch: number; at: number; footprint: Footprint['kind']; permission: 'allow' | 'ask' | 'check' }
  | { type: 'refused'; id: string; name: string; batch: number; at: number; code: string; message: string }
  | { type: 'checked'; id: string; at: number; outcome: 'allowed' | 'asking' | 'refused'; code?: string }
  | { type: 'approval'; id: string; at: number; outcome: 'approved' | 'denied'; code?: string }

export type HostEvent =
  | SchedulerEvent
  | CallEvent
  | { type: 'progress'; id: string; message: string; progress?: number; total?: number }
  /** A line a handler wrote with `ctx.log` (it is in the host's log too). */
  | { type: 'log'; id: string; level: LogLevel; message: string; fields?: Record<string, unknown> }

export interface HostOptions extends ConfigSource {
  /** Extra plugin folders, added to `plugins.dirs` (relative to the process cwd). */
  plugins?: string[]
  /** Load the plugin folders (default true). */
  loadPlugins?: boolean
  /** Hot reload: re-import plugin files when they change, and take live keys from a changed config file (also `plugins.watch`). */
  watch?: boolean
  registry?: ToolRegistry
  /** How the host asks a person (clarify, approvals). */
  ask?: AskHandler
  /**
   * Who approves calls the permission system asks about. What it answers `cannot-ask`, or every such
   * call when there is none, goes to an open console (`permissions.console_approvals`), else is
   * denied (E_DENIED, saying no one could be asked).
   */
  approve?: ApproveHandler
  /**
   * Where the permission audit log goes (one JSON line per decision): a path (relative to the
   * workspace root), or `false` for none. Wins over `permissions.audit_log` (default
   * `.toolhost/audit.jsonl` under the root).
   */
  audit?: string | false
  /** Permission mode override (CLI `--permission-mode`); wins over `permissions.mode`. */
  permissionMode?: PermissionMode
  /** Replaces the permission system (default: a `PermissionGate` built from `permissions.*`). */
  authoriser?: Authoriser
  /**
   * Who reads the calls' errors, so their advice fits: `developer` (default: an app embedding the
   * host; its model reads them too), `person` (the CLI), `model` (`toolhost serve`, over MCP).
   */
  audience?: Audience
  /** Mode override (CLI `--mode`). */
  mode?: DispatchMode
  log?: Logger
  /** Log every scheduling event at debug level (default: when `TOOLHOST_LOG=debug`). */
  logEvents?: boolean
  /** Monotonic clock in ms (benchmarks inject a virtual one). */
  now?: () => number
  env?: NodeJS.ProcessEnv
  /**
   * Write every call of the host's life to this file in the Chrome Trace Event Format (Perfetto,
   * chrome://tracing) when the host closes: one track per worker lane, waits as flows.
   */
  traceFile?: string
  /**
   * OpenTelemetry spans and metrics for every call (`toolhost/otel`). Default: on when an
   * OpenTelemetry SDK was registered before the host was created; `false` turns it off.
   */
  openTelemetry?: boolean
}

/** Which tools `host.definitions` lists, and how. */
export interface DefinitionsQuery {
  /** Only these tools (by name). */
  names?: string[]
  /** Only tools of these toolsets. */
  toolsets?: string[]
  /** OpenAI strict mode for `openai-chat`/`openai-responses` (default `openai.strict`). */
  strict?: boolean
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
