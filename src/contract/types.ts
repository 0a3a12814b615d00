/** The tool contract and the shapes that flow through the host. Types only. */
import type { ToolhostConfig } from '../config/types.js'
import type { ProcessService } from './process-service.js'
import type { ErrorCode } from './errors.js'

/** A JSON Schema object (plugin schemas are trusted code; model arguments are not). */
export type JsonSchema = Record<string, unknown>

/** What a call does to a path or key it touches: reads it, or writes it (`ws.resolve(path, access)`, a footprint's touches). */
export type Access = 'read' | 'write'

/** One thing a call touches: a path (resolved against the workspace root) or a named resource key. */
export type ScopeEntry = { path: string; access: Access } | { key: string; access: Access }

/** What a tool says about a call before it runs (`checkPermissions`). */
export type PermissionResult =
  | { behavior: 'allow'; updatedArgs?: Record<string, unknown>; message?: string }
  | { behavior: 'deny'; message: string }
  | { behavior: 'ask'; message?: string; updatedArgs?: Record<string, unknown> }
  | { behavior: 'passthrough'; message?: string; updatedArgs?: Record<string, unknown> }

/** The host's log (`ctx.log` in a handler, `host.log`): a message and optional fields, at four levels. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

/**
 * The form of a structured question: MCP elicitation's `requestedSchema`, a flat object whose
 * properties are primitives — `string` (optionally `format`, `minLength`…), `number`/`integer`,
 * `boolean`, a single-select enum (`enum`, or titled `oneOf: [{ const, title }]`, or legacy
 * `enumNames`) or a multi-select array (`items: { enum }` or `items: { anyOf: [{ const, title }] }`) —
 * each with an optional `title`, `description` and `default`. It is sent to the person as it is.
 */
export interface AskSchema {
  type: 'object'
  properties: Record<string, Record<string, unknown>>
  required?: string[]
}

/** A structured answer: a value per field the person filled in. */
export type AskAnswer = Record<string, string | number | boolean | string[]>

/** A question for the person running the agent (`clarify`, approvals, `ctx.ask`). */
export interface AskRequest {
  question: string
  choices?: string[]
  callId?: string
  /** Ask for a structured answer in this form instead of text (see `AskSchema`). */
  schema?: AskSchema
}

/**
 * Asks the person; resolves with their answer: text, or an `AskAnswer` when the request has a
 * `schema`. Hosts without a person have none.
 */
export type AskHandler = (request: AskRequest, signal: AbortSignal) => Promise<string | AskAnswer>

/** Log levels of `ctx.report.log` (an MCP client gets them as `notifications/message`). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/**
 * `ctx.ask`: text in, text out — `ctx.ask('Which branch?')` or `ctx.ask({ question, choices })` —
 * or a structured question, `ctx.ask({ question, schema })`, answered with an `AskAnswer`. The
 * signal defaults to the call's own.
 */
export interface Asker {
  (question: string, signal?: AbortSignal): Promise<string>
  (request: AskRequest & { schema?: undefined }, signal?: AbortSignal): Promise<string>
  (request: AskRequest & { schema: AskSchema }, signal?: AbortSignal): Promise<AskAnswer>
}

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

/**
 * What an availability `check` answers: `true` (available), `false`, or why the tool is hidden
 * (`{ available: false, reason: 'needs a person to ask; none here' }`), shown as it is written.
 */
export type CheckOutcome = boolean | { available: true } | { available: false; reason: string }

/** What `readOnly(args, context)` / `destructive(args, context)` may consult besides the arguments. */
export interface BehaviourContext {
  /** The canonical workspace root, to resolve relative paths (e.g. "would this overwrite a file?"). */
  root: string
}

/** What a handler receives besides its arguments. */
export interface ToolContext {
  /** This call: its id, its tool, and the signal that aborts it (timeout, interrupt). The id comes from the model: untrusted text. */
  readonly call: CallInfo
  /** Where the call may act: the canonical workspace root (every path must stay under it), the session's state. */
  readonly workspace: WorkspaceContext
  /**
   * What the host runs with: `config`, the config in force, and `env`, the environment `requiresEnv`
   * is checked against and the .env file is loaded into. Read settings such as API keys from
   * `settings.env`, not from `process.env`.
   */
  readonly settings: SettingsContext
  /** Host services a tool may use: `processes`, the host's process registry (what `terminal` runs commands with). */
  readonly services: ToolServices
  /** How the call reports: `progress` of a long call (shown by the CLI, sent as MCP progress) and `log` lines (they also reach an MCP client that made the call). */
  readonly report: CallReport
  /** Present when the host can ask a person: text questions, or structured ones with a `schema`. The answer is the person's, not the model's. */
  readonly ask: Asker | undefined
  /** @deprecated Read `ctx.call.signal`. */
  readonly signal: AbortSignal
  /** @deprecated Read `ctx.call.id`. */
  readonly callId: string
  /** @deprecated Read `ctx.workspace.root`. */
  readonly root: string
  /** @deprecated Read `ctx.settings.config`. */
  readonly config: ToolhostConfig
  /** @deprecated Read `ctx.report.log`. */
  readonly log: Logger
  /** @deprecated Read `ctx.workspace.session`. */
  readonly session: SessionState
  /** @deprecated Read `ctx.settings.env`. */
  readonly env: NodeJS.ProcessEnv
  /** @deprecated Call `ctx.report.progress`. */
  progress(message: string, progress?: number, total?: number): void
}

/** Where a host's calls act. */
export interface WorkspaceContext {
  /** The canonical (real, case-resolved) workspace root: the wall no path may cross. */
  readonly root: string
  /** True when the root's file system ignores case (paths are compared folded). */
  readonly caseInsensitive: boolean
  /** State kept for the host's session (the terminal's working folder, tools' values). */
  readonly session: SessionState
  /**
   * What configures or programs the host inside the root (config file, plugin folders, `.env`, hook
   * scripts, `.toolhost/`): `workspaceFor(ctx)` refuses file tools' changes to them (`E_CONTROL_PLANE`).
   */
  readonly controlPlane?: ControlPlane
}

/**
 * What configures or programs a host, inside its root: the config file, the plugin folders, the
 * `.env` file, the scripts its hooks run, `.toolhost/` and the other state paths config names, and
 * the person's trust file. File tools never change them, in any permission mode: the person edits
 * these. Only a `permissions.allow` rule naming one exact path (`write_file(config.yaml)`) opens
 * that one path.
 */
export interface ControlPlane {
  /** The protected paths (absolute, lexical and real), files and folders. */
  readonly paths: readonly string[]
  /** The exact paths an allow rule opened. */
  readonly opened: readonly string[]
}

/** What a host runs with. */
export interface SettingsContext {
  /** The config in force: read each time it is needed, since a reloaded config.yaml replaces it. */
  readonly config: ToolhostConfig
  /** The environment tools are gated on (`requiresEnv`) and the .env file is loaded into. */
  readonly env: NodeJS.ProcessEnv
}

/** `ctx.call`: the call a handler is running. */
export interface CallInfo {
  /** The call's id, as the model (or client) sent it: untrusted text, unique within its batch. */
  readonly id: string
  /** The name of the tool that runs it. */
  readonly tool: string
  /** Aborts on timeout or interrupt; a handler should stop soon after. */
  readonly signal: AbortSignal
}

/** `ctx.report`: how a call reports while it runs. */
export interface CallReport {
  /** Progress of a long call (shown by the CLI, sent as MCP progress). */
  progress(message: string, progress?: number, total?: number): void
  /** The host's log; lines also reach an MCP client that made the call (`notifications/message`). */
  readonly log: Logger
}

/**
 * Services a host offers to tools. A host made by `createHost` has every one; a context made by hand
 * (a test calling a handler) may have none, so a tool checks before it uses one.
 */
export interface ToolServices {
  /** The host's process registry (`ProcessRegistry`): run commands and follow them. */
  readonly processes?: ProcessService
}

/**
 * One piece of a tool's result (the MCP content model). `data` and `blob` are base64 text.
 * A handler returns blocks in the MCP `CallToolResult` form: `{ content: ContentBlock[], structuredContent?, isError? }`.
 */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string } }

/** A handler's value in the MCP `CallToolResult` form (one of the accepted return forms). */
export interface CallToolResultValue {
  content: ContentBlock[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/**
 * What `handler` may return: a string (the text), an MCP `CallToolResult`-shaped object
 * (`{ content: ContentBlock[], structuredContent?, isError? }`, recognised strictly: only those keys
 * and every `content` element a valid block), or any other JSON-serialisable value (sent as JSON
 * text; with an `outputSchema`, a plain object is also the structured content).
 */
export type HandlerResult = unknown

/** A tool's handler: its validated arguments and the call's context in, what the call returns out (see `HandlerResult`). */
export type ToolHandler<Args> = (args: Args, ctx: ToolContext) => HandlerResult | Promise<HandlerResult>

/** What a plugin author writes. Everything but name, description, parameters and handler is optional. */
export interface ToolSpec<Args = Record<string, unknown>> {
  name: string
  toolset?: string
  description: string
  parameters: JsonSchema
  handler: ToolHandler<Args>
  /**
   * JSON Schema of the result's `structuredContent` (MCP `outputSchema`). Checked against every
   * successful result; a mismatch is E_TOOL_FAILED naming the field.
   */
  outputSchema?: JsonSchema
  /**
   * Availability check; may be async. False, `{ available: false, reason }`, a throw or a timeout
   * hides the tool (fail closed); the reason is what `toolhost list`, `doctor` and a call of the
   * hidden tool show (values of `requiresEnv` variables are blanked out of it). It receives what
   * the host can offer (e.g. `canAsk`), since the registry is shared by every host.
   */
  check?: (context: AvailabilityContext) => CheckOutcome | Promise<CheckOutcome>
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
  /**
   * A person approves each call first (`true`), or the calls for which it answers true: the
   * permission system's "ask", by the tool, placed as the tool's own ask (a deny rule, plan and
   * bypass mode, an allow-for-session and an ask rule come first; an allow rule does not skip it).
   */
  needsApproval?: boolean | ((args: Args, ctx: ToolContext) => boolean)
  /** Result size limit in characters; `false` opts out (a tool that pages its own output). */
  maxResultChars?: number | false
  timeoutMs?: number
}

/** A tool after `defineTool`: every behaviour field filled with its conservative default. */
export interface Tool<Args = Record<string, unknown>> extends Required<Pick<ToolSpec<Args>,
  'name' | 'toolset' | 'description' | 'parameters' | 'handler' | 'requiresEnv' | 'parallelSafe' |
  'neverParallel' | 'pathScoped' | 'changesContext' | 'readOnly' | 'destructive' | 'idempotent' | 'openWorld'>> {
  check: ((context: AvailabilityContext) => CheckOutcome | Promise<CheckOutcome>) | undefined
  scope: ((args: Args) => ScopeEntry[]) | undefined
  checkPermissions: ((args: Args, ctx: ToolContext) => PermissionResult | Promise<PermissionResult>) | undefined
  needsApproval: boolean | ((args: Args, ctx: ToolContext) => boolean)
  outputSchema: JsonSchema | undefined
  maxResultChars: number | false | undefined
  timeoutMs: number | undefined
}

/** A tool of any argument type: what the registry holds. */
// Tools are stored without their argument type; handlers see validated arguments.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>

/** A call as the model produced it. `arguments` is raw JSON text or an already-parsed object. */
export interface ToolCall {
  id: string
  name: string
  arguments?: string | Record<string, unknown> | null
}

/** Why a call failed, in its result (`result.error`): a code of the catalogue and a message the model can read. */
export interface ToolError {
  /** A code of the catalogue (`ERROR_CODES`, docs/embedding.md's table): a misspelt code does not compile. */
  code: ErrorCode
  message: string
}

/** Exactly one per call. */
export interface ToolResult {
  id: string
  name: string
  ok: boolean
  /** The text rendering: what a text-only reader (Chat Completions) gets, saying what was left out. */
  content: string
  /** The content as blocks, when the handler returned non-text content or several blocks. */
  blocks?: ContentBlock[]
  /** Structured content (MCP `structuredContent`), checked against the tool's `outputSchema`. */
  structuredContent?: Record<string, unknown>
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

/** An object JSON Schema as the model APIs' types want it: `type: 'object'` stated. */
export interface ObjectJsonSchema {
  type: 'object'
  [keyword: string]: unknown
}

/**
 * OpenAI Chat Completions function-tool definition (assignable to the `openai` SDK's
 * `ChatCompletionTool`). `strict` is set by `definitions(format)`; the registry's own copy has none.
 */
export interface OpenAIToolDefinition {
  type: 'function'
  function: { name: string; description: string; parameters: ObjectJsonSchema; strict?: boolean }
}
