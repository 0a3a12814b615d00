/** The tool contract and the shapes that flow through the host. Types only. */
import type { ToolhostConfig } from './config/types.js'

/** A JSON Schema object (plugin schemas are trusted code; model arguments are not). */
export type JsonSchema = Record<string, unknown>

export type Access = 'read' | 'write'

/** One thing a call touches: a path (resolved against the workspace root) or a named resource key. */
export type ScopeEntry = { path: string; access: Access } | { key: string; access: Access }

/** What a tool says about a call before it runs (`checkPermissions`). */
export type PermissionResult =
  | { behavior: 'allow'; updatedArgs?: Record<string, unknown>; message?: string }
  | { behavior: 'deny'; message: string }
  | { behavior: 'ask'; message?: string; updatedArgs?: Record<string, unknown> }
  | { behavior: 'passthrough'; message?: string; updatedArgs?: Record<string, unknown> }

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

/** A question for the person running the agent (`clarify`, approvals). */
export interface AskRequest {
  question: string
  choices?: string[]
  callId?: string
}

/** Asks the person; resolves with their answer. Hosts without a person have none. */
export type AskHandler = (request: AskRequest, signal: AbortSignal) => Promise<string>

/** Session context that a context-changing tool may update (later calls see the change). */
export interface SessionState {
  /** Working folder for tools that have one, absolute and inside the root. */
  cwd: string
  /** Free-form values a tool keeps for the session. */
  values: Map<string, unknown>
}

/** What an availability `check` learns about the host asking (the registry is shared by hosts). */
export interface AvailabilityContext {
  /** The host has an `ask` handler: a person can answer questions (clarify, approvals). */
  canAsk: boolean
  /** The environment `requiresEnv` is checked against. */
  env: NodeJS.ProcessEnv
}

/** What `readOnly(args, context)` / `destructive(args, context)` may consult besides the arguments. */
export interface BehaviourContext {
  /** The canonical workspace root, to resolve relative paths (e.g. "would this overwrite a file?"). */
  root: string
}

/** What a handler receives besides its arguments. */
export interface ToolContext {
  /** Aborts on timeout or interrupt; a handler should stop soon after. */
  readonly signal: AbortSignal
  readonly callId: string
  /** The canonical workspace root. */
  readonly root: string
  readonly config: ToolhostConfig
  readonly log: Logger
  readonly session: SessionState
  /** Present when the host can ask a person. */
  readonly ask: AskHandler | undefined
  /** Host services plugins may use (process registry, …), keyed by name. */
  readonly services: HostServices
  /**
   * The host's environment: the one `requiresEnv` is checked against and the .env file is loaded
   * into. Read settings such as API keys from here, not from `process.env`.
   */
  readonly env: NodeJS.ProcessEnv
  /** Reports progress of a long call (shown by the CLI, sent as MCP progress). */
  progress(message: string, progress?: number, total?: number): void
}

/** Services a host offers to tools. Subsystems add their entry by declaration merging. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface HostServices {}

/** What `handler` may return: a string, or any JSON-serialisable value (sent as JSON text). */
export type HandlerResult = unknown

export type ToolHandler<Args> = (args: Args, ctx: ToolContext) => HandlerResult | Promise<HandlerResult>

/** What a plugin author writes. Everything but name, description, parameters and handler is optional. */
export interface ToolSpec<Args = Record<string, unknown>> {
  name: string
  toolset?: string
  description: string
  parameters: JsonSchema
  handler: ToolHandler<Args>
  /**
   * Availability check; may be async. False, a throw or a timeout hides the tool (fail closed).
   * It receives what the host can offer (e.g. `canAsk`), since the registry is shared by every host.
   */
  check?: (context: AvailabilityContext) => boolean | Promise<boolean>
  /** Env vars that must all be set and non-empty for the tool to be available. */
  requiresEnv?: readonly string[]
  /** May run alongside any other call that is also safe (no shared state). */
  parallelSafe?: boolean
  /** Must run alone, never beside another call. */
  neverParallel?: boolean
  /** Conflicts only through the paths it touches (`scope(args)`, else `args.path`). Implied by `scope`. */
  pathScoped?: boolean
  /** Changes session context (e.g. working folder): runs alone, later calls see the change. */
  changesContext?: boolean
  /** `context` is passed by hosts that have one; without it answer conservatively. */
  readOnly?: (args: Args, context?: BehaviourContext) => boolean
  /** `context` is passed by hosts that have one; without it answer conservatively (true if unsure). */
  destructive?: (args: Args, context?: BehaviourContext) => boolean
  /** Same arguments, same effect when repeated (MCP `idempotentHint`). */
  idempotent?: boolean
  /** Reaches outside the workspace, e.g. the network (MCP `openWorldHint`). */
  openWorld?: boolean
  /** What a call touches (paths read or written, named resources); declaring it makes the tool path-scoped. */
  scope?: (args: Args) => ScopeEntry[]
  checkPermissions?: (args: Args, ctx: ToolContext) => PermissionResult | Promise<PermissionResult>
  /** Result size limit in characters; `false` opts out (a tool that pages its own output). */
  maxResultChars?: number | false
  timeoutMs?: number
}

/** A tool after `defineTool`: every behaviour field filled with its conservative default. */
export interface Tool<Args = Record<string, unknown>> extends Required<Pick<ToolSpec<Args>,
  'name' | 'toolset' | 'description' | 'parameters' | 'handler' | 'requiresEnv' | 'parallelSafe' |
  'neverParallel' | 'pathScoped' | 'changesContext' | 'readOnly' | 'destructive' | 'idempotent' | 'openWorld'>> {
  check: ((context: AvailabilityContext) => boolean | Promise<boolean>) | undefined
  scope: ((args: Args) => ScopeEntry[]) | undefined
  checkPermissions: ((args: Args, ctx: ToolContext) => PermissionResult | Promise<PermissionResult>) | undefined
  maxResultChars: number | false | undefined
  timeoutMs: number | undefined
}

// Tools are stored without their argument type; handlers see validated arguments.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>

/** A call as the model produced it. `arguments` is raw JSON text or an already-parsed object. */
export interface ToolCall {
  id: string
  name: string
  arguments?: string | Record<string, unknown> | null
}

export interface ToolError {
  code: string
  message: string
}

/** Exactly one per call. */
export interface ToolResult {
  id: string
  name: string
  ok: boolean
  content: string
  error?: ToolError
  /** The content was cut to the size limit; the whole text is at `savedTo`. */
  truncated?: boolean
  savedTo?: string
  /** ms on the host's monotonic clock; null when the handler never started. */
  startedAt?: number | null
  endedAt?: number | null
  /** Ids of earlier calls this one waited for (with `trace`). */
  waitedFor?: string[]
}

/** Why a tool is or is not offered right now. */
export interface Availability {
  name: string
  available: boolean
  reason?: string
}

/** OpenAI Chat Completions function-tool definition. */
export interface OpenAIToolDefinition {
  type: 'function'
  function: { name: string; description: string; parameters: JsonSchema }
}
