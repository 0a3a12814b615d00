import type { ModelFormat } from '../adapters/format.js'
import type { DefinitionsOf, MessagesOf } from '../adapters/render.js'
import type { DispatchMode, ToolhostConfig } from '../config/types.js'
import type { CallHooks } from '../contract/hook-types.js'
import type { Audience } from '../contract/messages.js'
import type { ChatToolDefinition } from '../adapters/openai-chat.js'
import type { AskHandler, Logger, SessionState, ToolCall, ToolResult } from '../contract/types.js'
import type { PluginLoadReport } from '../loader/load-plugins.js'
import type { WorkspaceCode } from '../loader/workspace-code.js'
import type { HostEvent } from '../observe/host-events.js'
import type { Authoriser } from '../permissions/authoriser.js'
import type { ToolRegistry } from '../registry/registry.js'
import type { DefinitionsQuery, HostServices, PlannedCall, RunOptions } from './host-types.js'

/**
 * A toolhost: a registry of tools, a config, a workspace root and a scheduler. Hand it calls, get
 * exactly one result per call. Hosts come from `createHost`; this is all a user of one sees (the
 * worker pool, the duration estimates and the footprints are the host's own, see host.ts).
 *
 * @example
 * const host = await createHost({ root: '.' })
 * const [result] = await host.run([{ id: '1', name: 'echo', arguments: '{"text":"hi"}' }])
 */
export interface Host {
  /** The config.yaml read at start-up, if any. */
  readonly configFile: string | undefined
  /** The workspace root (its real path): the wall every path is checked against. */
  readonly root: string
  /** The tools this host advertises and runs. */
  readonly registry: ToolRegistry
  /** The host's logger (handlers log through `ctx.report.log`). */
  readonly log: Logger
  /** The session every call of this host shares: its working folder and values. */
  readonly session: SessionState
  /** Where a handler's question to the person goes (`HostOptions.ask`), if anywhere. */
  readonly ask: AskHandler | undefined
  /** The hooks given in code (`HostOptions.hooks`); config.yaml's are in `config.hooks`. */
  readonly hooks: CallHooks | undefined
  /** The dispatch mode of batches that name none (`HostOptions.mode`, else `dispatch.mode`). */
  readonly mode: DispatchMode
  /** Who reads the calls' errors (see `HostOptions.audience`). */
  readonly audience: Audience
  /** Where the worker limit comes from: config (live) or TOOLHOST_MAX_WORKERS (fixed for the process). */
  readonly maxWorkersFrom: 'config' | 'TOOLHOST_MAX_WORKERS'
  /** The environment tools are gated on (and the .env file is loaded into). */
  readonly env: NodeJS.ProcessEnv
  /** The subsystems this host holds: its process registry, the start-up temp sweep, and those configured (MCP clients, watchers). */
  readonly services: HostServices
  /** The plugin files loaded and those that failed (each with its error; the others still loaded). */
  readonly pluginReport: PluginLoadReport
  /**
   * The code the workspace brings (plugin files, hook commands, MCP servers) that this host did not
   * run because `HostOptions.workspaceTrust` did not trust it; undefined when nothing was withheld.
   */
  readonly untrustedCode: WorkspaceCode | undefined
  /** The .env file read at start-up and the names of the variables it set (never their values). */
  readonly envFile: { file: string; set: string[] } | undefined
  /** The permission system in use (`HostOptions.authoriser`, else a `PermissionGate` from `permissions.*`). */
  readonly authoriser: Authoriser
  /** The config in force: as loaded, with live keys replaced when config.yaml changes (`applyLiveConfig`). */
  readonly config: ToolhostConfig
  /** Handlers that may run at once now (`dispatch.max_workers`, or TOOLHOST_MAX_WORKERS). */
  readonly maxWorkers: number
  /** The scheduler's view: handlers running now and the most that ever ran at once. */
  readonly stats: { running: number; peakRunning: number; pending: number }

  /** Takes a reloaded config's `LIVE_KEYS` (worker and rate limits, timeouts) for calls not yet started; TOOLHOST_MAX_WORKERS still wins. */
  applyLiveConfig(next: ToolhostConfig): void
  /** Calls `listener` with the config in force each time a reloaded config.yaml's live keys are taken (the console's limits); returns its remover. */
  onConfigChange(listener: (config: ToolhostConfig) => void): () => void
  /** Monotonic ms since the host started (the clock of `startedAt`/`endedAt`). */
  now(): number
  /**
   * Listens to every host event: the host's own about each call (admitted, refused, checked, approval), the
   * scheduler's (queued, waiting, waiting-worker, waiting-rate, started, finished, released), and a
   * handler's progress and log lines (docs/embedding.md lists each with its fields). Events are built
   * only while someone listens; returns a function that stops listening.
   */
  onEvent(listener: (event: HostEvent) => void): () => void
  /** Registers cleanup to run on `close()` (subsystems: processes, watchers, MCP clients). */
  onClose(closer: () => void | Promise<void>): void
  /** OpenAI Chat function-tool definitions of the tools available now, sorted by name. */
  definitions(query?: DefinitionsQuery): Promise<ChatToolDefinition[]>
  /**
   * Definitions of the tools available now in a model API's format (`anthropic`, `openai-responses`,
   * `mcp`, …). `{ strict: true }` (default `openai.strict`) renders the OpenAI formats in strict mode;
   * the nulls that makes the model send for optional arguments are then removed before validation.
   */
  definitions<F extends ModelFormat>(format: F, query?: DefinitionsQuery): Promise<DefinitionsOf<F>>
  /** Results as a model API wants them: Chat `role:'tool'` messages, Responses `function_call_output` items, ONE Anthropic user message of `tool_result` blocks, or MCP results. */
  toMessages<F extends ModelFormat>(results: readonly ToolResult[], format: F): MessagesOf<F>
  /** One call end to end. */
  call(call: ToolCall, options?: RunOptions): Promise<ToolResult>
  /**
   * A batch: results in call order, exactly one per call. Never rejects for a tool's fault. Takes
   * `ToolCall[]`, or a model message in any supported format (Chat Completions assistant message,
   * Responses output items, Anthropic assistant message, or the whole API response), or a model's
   * streaming reply as its SDK returns it (Chat Completions chunks, Responses events, Anthropic
   * Messages events): each call is admitted the moment its block closes (`options.onStreamEvent`
   * gets the text deltas and the whole turn).
   */
  run(callsOrMessage: readonly ToolCall[] | object, options?: RunOptions): Promise<ToolResult[]>
  /** A batch whose results are yielded as each completes (completion order). */
  stream(callsOrMessage: readonly ToolCall[] | object, options?: RunOptions): AsyncGenerator<ToolResult, void, undefined>
  /**
   * The plan for a batch without running anything: footprints (and who decided them), what the
   * permission system would decide, who waits for whom and why, each call's priority, and who is
   * expected to wait for a worker or a rate slot (`explainPlan`).
   */
  explain(calls: readonly ToolCall[], options?: { mode?: DispatchMode }): Promise<{ mode: DispatchMode; calls: PlannedCall[] }>
  /**
   * Refuses the calls still waiting for a person's approval or their tool's permission check; gives
   * calls whose availability or permission is still undecided the interrupt grace
   * (`dispatch.interrupt_grace_ms`), then answers them E_ABORTED; waits for every scheduled call to
   * be released (running handlers finish), then runs the close hooks.
   */
  close(): Promise<void>
}
