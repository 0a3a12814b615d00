/** The host's option and service types (types only), kept apart so the host holds behaviour. */
import type { DispatchMode, PermissionMode } from '../config/types.js'
import type { ConfigSource } from './setup.js'
import type { Audience } from '../contract/messages.js'
import type { ConfigWatcher } from '../loader/watch-config.js'
import type { PluginWatcher } from '../loader/watch-plugins.js'
import type { McpClientConnection } from '../mcp-client/client-host.js'
import type { ApproveHandler } from '../permissions/approvals.js'
import type { Authoriser } from '../permissions/authoriser.js'
import type { ProcessRegistry } from '../processes/process-registry.js'
import type { ToolRegistry } from '../registry/registry.js'
import type { CoordinationStore } from '../store/coordination-store.js'
import type { AskHandler, Logger } from '../contract/types.js'
import type { CallHooks } from '../contract/hook-types.js'
import type { WorkspaceCode } from '../loader/workspace-code.js'

/**
 * The subsystems a host holds (`host.services`; tools see `processes` as `ctx.services.processes`).
 * `processes`, `store` and `tempSweep` start with the host; the others exist only when configured, and are
 * absent until then.
 */
export interface HostServices {
  /** The host's process registry: what `terminal` and `process` use. */
  readonly processes: ProcessRegistry
  /**
   * The coordination store shared with other hosts of the workspace (config `store`,
   * TOOLHOST_STORE): reservations, rate slots and single-use tokens across hosts.
   */
  readonly store: CoordinationStore
  /** The start-up sweep of temp files left by interrupted writes: what it removed, once done. */
  readonly tempSweep: Promise<{ removed: string[] }>
  /** The `mcp_servers` connections (MCP client), when any is configured. */
  readonly mcpClients?: readonly McpClientConnection[]
  /** Hot reload of the plugin folders, when on (`plugins.watch`, `serve --watch`). */
  readonly pluginWatcher?: PluginWatcher
  /** Live limits from config.yaml, when on (`plugins.watch`, `serve --watch`). */
  readonly configWatcher?: ConfigWatcher
}

export interface HostOptions extends ConfigSource {
  /** Extra plugin folders, added to `plugins.dirs` (relative to the process cwd). */
  plugins?: string[]
  /** Load the plugin folders (default true). */
  loadPlugins?: boolean
  /**
   * Whether the code the workspace brings may run: the plugin folders of a config inside the root
   * (or the default `./plugins`), its `hooks` commands and its `mcp_servers`, and whether its allow
   * rules and a looser permission mode apply. Asked once at start-up
   * (and again before hot reload loads a changed file of those folders); when it answers false the
   * host runs without them and says so in one warning. Default: none, so an embedding runs what its
   * config names — its author chose that config (docs/embedding.md#workspace-trust). The CLI and
   * `toolhost serve` pass the person's trust store (`toolhost trust`). `plugins` named here are the
   * caller's own and never asked about.
   */
  workspaceTrust?: (code: WorkspaceCode) => boolean
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
   * Hooks in code, run after config.yaml's `hooks.before_call` / `hooks.after_call` for the tools
   * they name: a before-hook may deny a call, ask a person, or rewrite its arguments (checked like
   * the model's); an after-hook may rewrite or withhold the result (docs/hooks.md).
   */
  hooks?: CallHooks
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

export type { RunOptions } from '../pipeline/run-options.js'
export type { PlannedCall } from '../pipeline/planned-call.js'
