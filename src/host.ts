import path from 'node:path'
import type { ToolhostConfig } from './config/types.js'
import { admitCalls, behaviourSets, computeFootprint, type Admission } from './dispatch/admit.js'
import { CallContext } from './dispatch/call-context.js'
import { executeCall, type Execution } from './dispatch/execute-call.js'
import { logSchedulingEvents } from './dispatch/log-events.js'
import { footprintOrigin, type BehaviourSets, type Footprint } from './dispatch/footprint.js'
import { explainPlan } from './dispatch/explain-plan.js'
import { batchBlocker, planModeWaits } from './dispatch/plan.js'
import { DurationEstimates } from './dispatch/duration-estimates.js'
import type { WorkerPool } from './dispatch/worker-pool.js'
import { Scheduler, type JobOutcome, type SchedulableCall, type SubmitOptions, type Wait } from './dispatch/scheduler.js'
import { capText, isHeavy, limitContent, ResultSaver, toContent } from './dispatch/shape-result.js'
import { loadEnvFile } from './env-file.js'
import { describeThrown } from './errors.js'
import { loadPlugins, type PluginLoadReport } from './loader/load-plugins.js'
import { createLogger } from './logger.js'
import { isCaseInsensitiveFs } from './paths.js'
import { registry as processRegistry, type ToolRegistry } from './registry.js'
import { resolveSetup, underRoot } from './host-setup.js'
import { attachProcessRegistry } from './processes/attach-processes.js'
import type { AnyTool, AskHandler, HostServices, Logger, OpenAIToolDefinition, SessionState, ToolCall, ToolContext, ToolError, ToolResult } from './types.js'
import type { Authoriser, AuthoriseDecision, AuthoriseItem, HostEvent, HostOptions, PlannedCall, RunOptions } from './host-types.js'
import type { DispatchMode } from './config/types.js'
import { withLiveKeys } from './config/live-config.js'
import { PermissionGate } from './permissions/permission-gate.js'
import { toCalls } from './adapters/parse-batch.js'
import type { ModelFormat } from './adapters/format.js'
import { renderDefinitions, renderResults, type DefinitionsOf, type MessagesOf } from './adapters/render.js'

export type { Authoriser, AuthoriseDecision, AuthoriseItem, HostEvent, HostOptions, PlannedCall, RunOptions } from './host-types.js'

/**
 * A toolhost: a registry of tools, a config, a workspace root and a scheduler. Hand it calls, get
 * exactly one result per call.
 *
 * @example
 * const host = await createHost({ root: '.' })
 * const [result] = await host.run([{ id: '1', name: 'echo', arguments: '{"text":"hi"}' }])
 */
export class Host {
  readonly configFile: string | undefined
  readonly root: string
  readonly registry: ToolRegistry
  readonly log: Logger
  readonly session: SessionState
  readonly services: HostServices = {} as HostServices
  readonly ask: AskHandler | undefined
  readonly mode: DispatchMode
  /** Where the worker limit comes from: config (live) or TOOLHOST_MAX_WORKERS (fixed for the process). */
  readonly maxWorkersFrom: 'config' | 'TOOLHOST_MAX_WORKERS'
  /** The environment tools are gated on (and the .env file is loaded into). */
  readonly env: NodeJS.ProcessEnv
  pluginReport: PluginLoadReport = { loaded: [], failed: [], toolsByFile: new Map() }
  authoriser: Authoriser
  readonly #scheduler: Scheduler
  // Replaced (never mutated) when a reloaded config.yaml changes a live key: a call reads it as it starts.
  #config: ToolhostConfig
  readonly #sets: BehaviourSets
  readonly #caseInsensitive: boolean
  readonly #now: () => number
  readonly #listeners = new Set<(event: HostEvent) => void>()
  readonly #closers: Array<() => void | Promise<void>> = []
  #admission: Promise<unknown> = Promise.resolve()
  // Over 2 M characters of huge results (64 k and longer) not yet shaped, no handler starts.
  readonly #saver = new ResultSaver(2 * 2 ** 20, (high) => this.#scheduler.pool.throttle(high))

  constructor(setup: { config: ToolhostConfig; file: string | undefined; root: string; maxWorkers: number; maxWorkersFrom?: Host['maxWorkersFrom'] }, options: HostOptions) {
    this.#config = options.permissionMode === undefined ? setup.config : { ...setup.config, permissions: { ...setup.config.permissions, mode: options.permissionMode } }
    this.configFile = setup.file
    this.root = setup.root
    this.maxWorkersFrom = setup.maxWorkersFrom ?? 'config'
    this.env = options.env ?? process.env
    this.registry = options.registry ?? processRegistry
    this.log = options.log ?? createLogger()
    this.ask = options.ask
    this.mode = options.mode ?? setup.config.dispatch.mode
    if (options.authoriser) {
      this.authoriser = options.authoriser
    } else {
      const gate = new PermissionGate({ config: this.config, configFile: setup.file, root: setup.root, approve: options.approve, log: this.log })
      this.authoriser = gate
      this.onClose(() => gate.close())
    }
    this.session = { cwd: setup.root, values: new Map() }
    this.#sets = behaviourSets(setup.config)
    this.#caseInsensitive = isCaseInsensitiveFs(setup.root)
    const origin = performance.now()
    this.#now = options.now ?? (() => Math.round((performance.now() - origin) * 1000) / 1000)
    this.#scheduler = new Scheduler({
      maxWorkers: setup.maxWorkers,
      now: this.#now,
      onEvent: (event) => this.#emit(event),
      listening: () => this.#listeners.size > 0,
      rateLimits: setup.config.rate_limits,
      priority: setup.config.dispatch.priority,
      estimates: new DurationEstimates(setup.config.dispatch.duration_estimates === '' ? undefined : underRoot(setup.root, setup.config.dispatch.duration_estimates)),
      onAnswer: (outcome) => outcome.ok && this.#saver.claim(outcome.value),
    })
    // Estimates a previous run left (`dispatch.duration_estimates`); a bad file is reported and ignored.
    this.#scheduler.estimates.load((message) => this.log.warn(message))
  }

  /** The config in force: as loaded, with live keys replaced when config.yaml changes (`applyLiveConfig`). */
  get config(): ToolhostConfig {
    return this.#config
  }

  /** Handlers that may run at once now (`dispatch.max_workers`, or TOOLHOST_MAX_WORKERS). */
  get maxWorkers(): number {
    return this.#scheduler.pool.concurrency
  }

  /** The worker pool (p-queue): its limit, rate rules and waiting calls. */
  get pool(): WorkerPool {
    return this.#scheduler.pool
  }

  /** Per-tool duration estimates (what critical-path priority learned so far). */
  get estimates(): DurationEstimates {
    return this.#scheduler.estimates
  }

  /** Takes a reloaded config's `LIVE_KEYS` (worker and rate limits, timeouts) for calls not yet started; TOOLHOST_MAX_WORKERS still wins. */
  applyLiveConfig(next: ToolhostConfig): void {
    this.#config = withLiveKeys(this.#config, next)
    if (this.maxWorkersFrom === 'config') this.#scheduler.pool.concurrency = next.dispatch.max_workers
    this.#scheduler.pool.setRateLimits(next.rate_limits)
  }

  /** The scheduler's view: handlers running now and the most that ever ran at once. */
  get stats(): { running: number; peakRunning: number; pending: number } {
    return { running: this.#scheduler.running, peakRunning: this.#scheduler.peakRunning, pending: this.#scheduler.pending }
  }

  /** Monotonic ms since the host started (the clock of `startedAt`/`endedAt`). */
  now(): number {
    return this.#now()
  }

  /** Listens to scheduling events (queued, waiting, started, finished, released) and progress. */
  onEvent(listener: (event: HostEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Registers cleanup to run on `close()` (subsystems: processes, watchers, MCP clients). */
  onClose(closer: () => void | Promise<void>): void {
    this.#closers.push(closer)
  }

  /** OpenAI function-tool definitions of the tools available now, sorted by name. */
  definitions(query?: { names?: string[]; toolsets?: string[] }): Promise<OpenAIToolDefinition[]>
  /** Definitions of the tools available now in a model API's format (`anthropic`, `openai-responses`, `mcp`, …). */
  definitions<F extends ModelFormat>(format: F, query?: { names?: string[]; toolsets?: string[] }): Promise<DefinitionsOf<F>>
  async definitions(formatOrQuery?: ModelFormat | { names?: string[]; toolsets?: string[] }, query?: { names?: string[]; toolsets?: string[] }): Promise<unknown> {
    const selection = typeof formatOrQuery === 'object' ? formatOrQuery : query
    const openai = await this.registry.getDefinitions(selection ?? {}, { checkTimeoutMs: this.config.availability.check_timeout_ms, env: this.env, canAsk: this.ask !== undefined })
    return typeof formatOrQuery === 'string' ? renderDefinitions(formatOrQuery, openai, (name) => this.registry.get(name)) : openai
  }

  /** Results as a model API wants them: Chat `role:'tool'` messages, Responses `function_call_output` items, ONE Anthropic user message of `tool_result` blocks, or MCP results. */
  toMessages<F extends ModelFormat>(results: readonly ToolResult[], format: F): MessagesOf<F> {
    return renderResults(format, results)
  }

  /** One call end to end. */
  async call(call: ToolCall, options: RunOptions = {}): Promise<ToolResult> {
    const [result] = await this.run([call], options)
    return result!
  }

  /**
   * A batch: results in call order, exactly one per call. Never rejects for a tool's fault. Takes
   * `ToolCall[]`, or a model message in any supported format (Chat Completions assistant message,
   * Responses output items, Anthropic assistant message, or the whole API response).
   */
  async run(callsOrMessage: readonly ToolCall[] | object, options: RunOptions = {}): Promise<ToolResult[]> {
    const pending = await this.#schedule(toCalls(callsOrMessage), options)
    return Promise.all(pending)
  }

  /** A batch whose results are yielded as each completes (completion order). */
  async *stream(callsOrMessage: readonly ToolCall[] | object, options: RunOptions = {}): AsyncGenerator<ToolResult, void, undefined> {
    const pending = await this.#schedule(toCalls(callsOrMessage), options)
    // Results queue up as they complete; one wake-up per wait (a Promise.race over every open
    // result per yield would cost O(n²) reactions on a large batch).
    const done: ToolResult[] = []
    let wake: (() => void) | undefined
    for (const result of pending) {
      void result.then((r) => {
        done.push(r)
        wake?.()
      })
    }
    for (let next = 0; next < pending.length; next++) {
      while (done.length <= next) await new Promise<void>((resolve) => (wake = resolve))
      yield done[next]!
    }
  }

  /**
   * The plan for a batch without running anything: footprints (and who decided them), what the
   * permission system would decide, who waits for whom and why, each call's priority, and who is
   * expected to wait for a worker or a rate slot (`explainPlan`).
   */
  async explain(calls: readonly ToolCall[], options: { mode?: DispatchMode } = {}): Promise<{ mode: DispatchMode; calls: PlannedCall[] }> {
    const mode = options.mode ?? this.mode
    const admissions = await admitCalls(calls, { registry: this.registry, config: this.config, env: this.env, canAsk: this.ask !== undefined })
    const runnable = admissions.filter((a): a is Extract<Admission, { ok: true }> => a.ok)
    const permissions = this.authoriser.preview ? await this.authoriser.preview(runnable.map((a) => ({ index: a.index, call: a.call, tool: a.tool, args: a.args })), { host: this }) : []
    const inputs = runnable.map((a, i) => ({ id: a.call.id, footprint: this.footprintOf(a.tool, a.args), profile: this.#scheduler.profileOf(a.tool.name, a.tool.toolset), ...(permissions[i] ? { permission: permissions[i] } : {}) }))
    const pool = this.#scheduler.pool
    const plan = explainPlan(mode, inputs, blockerOf(admissions), { workers: pool.concurrency, estimates: this.#scheduler.estimates, ruleOf: (profile) => pool.ruleOf(profile) })
    const byIndex = new Map(runnable.map((a, i) => [a.index, i]))
    return {
      mode,
      calls: admissions.map((a) => {
        const i = byIndex.get(a.index)
        if (!a.ok || i === undefined) return { id: a.call.id, name: a.call.name, ...(a.ok ? {} : { error: a.error }), waitsFor: [] }
        const permission = permissions[i]
        return { id: a.call.id, name: a.call.name, footprint: inputs[i]!.footprint, footprintFrom: footprintOrigin(a.tool, this.#sets), ...(permission ? { permission } : {}), ...plan[i]! }
      }),
    }
  }

  /** A call's footprint with this host's root and behaviour sets. */
  footprintOf(tool: AnyTool, args: Record<string, unknown>): Footprint {
    return computeFootprint(tool, args, { root: this.root, caseInsensitive: this.#caseInsensitive, sets: this.#sets })
  }

  /**
   * Refuses the calls still waiting for a person's approval, waits for every scheduled call to be
   * released (running handlers finish), then runs the close hooks.
   */
  async close(): Promise<void> {
    this.authoriser.shutdown?.()
    await this.#scheduler.onIdle()
    for (const closer of this.#closers.splice(0).reverse()) await closer()
    await this.#scheduler.estimates.save((message) => this.log.warn(message))
  }

  // Admission runs one batch at a time, so calls reach the scheduler in arrival order even when
  // several runs (MCP clients, a model's stream) arrive together.
  #schedule(calls: readonly ToolCall[], options: RunOptions): Promise<Promise<ToolResult>[]> {
    const admitted = this.#admission.then(() => this.#admit(calls, options))
    this.#admission = admitted.catch(() => undefined)
    return admitted
  }

  async #admit(calls: readonly ToolCall[], options: RunOptions): Promise<Promise<ToolResult>[]> {
    const mode = options.mode ?? this.mode
    const trace = options.trace ?? false
    const admissions = await admitCalls(calls, { registry: this.registry, config: this.config, env: this.env, canAsk: this.ask !== undefined })
    const results: Promise<ToolResult>[] = new Array(calls.length)
    const items: AuthoriseItem[] = []
    for (const a of admissions) {
      if (a.ok) items.push({ index: a.index, call: a.call, tool: a.tool, args: a.args })
      else results[a.index] = Promise.resolve(this.#errorResult(a.call, a.error, trace))
    }
    const decisions = items.length > 0 ? await this.#authorise(items, options.signal) : []
    // Parallel arrays (no wrapper object per call): the call to schedule, and the item it came from.
    const scheduledItems: AuthoriseItem[] = []
    const toSchedule: SchedulableCall[] = []
    items.forEach((item, k) => {
      const decision = decisions[k] ?? { run: false as const, error: { code: 'E_DENIED', message: 'no permission decision was made for this call' } }
      if (!decision.run) {
        results[item.index] = Promise.resolve(this.#errorResult(item.call, decision.error, trace))
        return
      }
      const args = decision.args
      const call: SchedulableCall = { id: item.call.id, footprint: this.footprintOf(item.tool, args), start: this.#starter(item, args), profile: this.#scheduler.profileOf(item.tool.name, item.tool.toolset) }
      if (decision.gate) call.gate = decision.gate
      scheduledItems.push(item)
      toSchedule.push(call)
    })
    const submit: SubmitOptions = {}
    // `graph` adds no waits of its own; only `batch` reads the blocker.
    if (mode !== 'graph') submit.modeWaits = planModeWaits(mode, toSchedule, mode === 'batch' ? blockerOf(admissions) : undefined)
    if (options.signal) submit.signal = options.signal
    const outcomes = this.#scheduler.submit(toSchedule, submit)
    for (let k = 0; k < scheduledItems.length; k++) results[scheduledItems[k]!.index] = this.#shapeWhenDone(outcomes[k]!, scheduledItems[k]!, trace)
    return results
  }

  // Own scope: the closure must not keep #admit's context (every outcome of the batch) alive.
  #shapeWhenDone(outcome: Promise<JobOutcome>, item: AuthoriseItem, trace: boolean): Promise<ToolResult> {
    return outcome.then((done) => {
      const value = done.ran && done.outcome.ok ? done.outcome.value : undefined
      return isHeavy(value) ? this.#saver.releaseAfter(value, () => this.#shape(item, done, trace)) : this.#shape(item, done, trace)
    })
  }

  // A fault in the authoriser must not reject the batch: each of its calls is refused instead.
  async #authorise(items: readonly AuthoriseItem[], signal: AbortSignal | undefined): Promise<AuthoriseDecision[]> {
    try {
      return await this.authoriser.authorise(items, { signal, host: this })
    } catch (error) {
      const message = `the permission check failed (${describeThrown(error)}), so the call was not run; try again, or ask the user to check the permission settings`
      return items.map(() => ({ run: false as const, error: { code: 'E_DENIED', message } }))
    }
  }

  // Hot path: closures here are returned, not assigned to a named property, because tsx (esbuild
  // keepNames) wraps a named closure in a defineProperty call that costs microseconds per call.
  #starter(item: AuthoriseItem, args: Record<string, unknown>): () => Execution {
    return () => this.#start(item, args)
  }

  #start(item: AuthoriseItem, args: Record<string, unknown>): Execution {
    const timeoutMs = item.tool.timeoutMs ?? this.config.dispatch.timeout_ms
    const callId = item.call.id
    return executeCall(item.tool, args, (signal) => new CallContext(this, callId, signal, this.#progressOf(callId)), {
      timeoutMs,
      graceMs: this.config.dispatch.interrupt_grace_ms,
      onAbandon: this.#abandonWarning(callId),
    })
  }

  #abandonWarning(callId: string): (why: string) => void {
    return (why) => this.log.warn(`${why}; its worker slot and path reservations are released now (tools must honour ctx.signal)`, { callId })
  }

  #progressOf(callId: string): ToolContext['progress'] {
    return (message, progress, total) => this.#emit({ type: 'progress', id: callId, message, ...(progress === undefined ? {} : { progress }), ...(total === undefined ? {} : { total }) })
  }


  // Not async: a result within its limit is shaped at once (no extra promise per call); only a
  // result that must be saved to disk goes through #saveAndShape.
  #shape(item: AuthoriseItem, outcome: JobOutcome, trace: boolean): ToolResult | Promise<ToolResult> {
    const { call, tool } = item
    if (!outcome.ran) return this.#errorResult(call, outcome.error, trace, outcome.waits)
    const timing = trace ? { startedAt: outcome.startedAt, endedAt: outcome.endedAt, waitedFor: outcome.waits.map((w) => w.id) } : {}
    const limit = tool.maxResultChars === undefined ? this.config.limits.max_result_chars : tool.maxResultChars
    if (!outcome.outcome.ok) {
      // A handler's error message (a thrown value) is untrusted text too: keep it within the limit.
      const error = { ...outcome.outcome.error, message: capText(outcome.outcome.error.message, limit) }
      return { id: call.id, name: call.name, ok: false, content: error.message, error, ...timing }
    }
    const content = toContent(tool.name, outcome.outcome.value)
    if (!content.ok) return { id: call.id, name: call.name, ok: false, content: content.error.message, error: content.error, ...timing }
    if (limit === false || content.content.length <= limit) return { id: call.id, name: call.name, ok: true, content: content.content, ...timing }
    return this.#saveAndShape(call, content.content, limit, timing)
  }

  async #saveAndShape(call: ToolCall, text: string, limit: number, timing: object): Promise<ToolResult> {
    const limited = await limitContent(text, limit, underRoot(this.root, this.config.limits.results_dir), call.id, this.root, this.#saver)
    return { id: call.id, name: call.name, ok: true, ...limited, ...timing }
  }

  #errorResult(call: ToolCall, error: ToolError, trace: boolean, waits: Wait[] = []): ToolResult {
    const name = typeof call.name === 'string' ? call.name : String(call.name)
    return { id: call.id, name, ok: false, content: error.message, error, ...(trace ? { startedAt: null, endedAt: null, waitedFor: waits.map((w) => w.id) } : {}) }
  }

  #emit(event: HostEvent): void {
    // Events are emitted from inside the scheduler: a listener that throws must not cost a call its
    // result or its release, nor keep the other listeners from hearing the event.
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch (error) {
        this.log.warn(`an event listener threw on "${event.type}" for ${event.id}: ${describeThrown(error)}`)
      }
    }
  }
}

function blockerOf(admissions: readonly Admission[]): string | undefined {
  return batchBlocker(admissions.flatMap((a) => (a.ok ? [] : [{ id: a.call.id, parsed: a.parsed, code: a.error.code }])))
}

/**
 * Creates a host: loads config (file or object), the .env file, and the plugin folders.
 * Configuration faults throw `E_CONFIG_INVALID` naming the file and key; a plugin that fails to load
 * is reported in `host.pluginReport` while the others load.
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const setup = resolveSetup(options, options.env)
  const host = new Host(setup, options)
  await attachProcessRegistry(host)
  // Events cost nothing while nobody listens, so they are logged only when asked for.
  if (options.logEvents ?? (options.env ?? process.env).TOOLHOST_LOG === 'debug') logSchedulingEvents(host, host.log)
  if (setup.config.env_file !== '') loadEnvFile(underRoot(setup.root, setup.config.env_file), options.env)
  // Live limits: config.yaml is watched beside the plugin folders (same switch), loaded only when on.
  if (setup.file !== undefined && (setup.config.plugins.watch || options.watch === true)) (await import('./loader/watch-config.js')).watchConfig(host, setup.file, setup.config)
  if (options.loadPlugins !== false) {
    const dirs = [
      ...setup.config.plugins.dirs.map((d) => path.resolve(setup.baseDir, d)),
      ...(options.plugins ?? []).map((d) => path.resolve(options.cwd ?? process.cwd(), d)),
    ]
    host.pluginReport = await loadPlugins(dirs, host.registry)
    for (const failure of host.pluginReport.failed) host.log.error(`plugin ${failure.file} failed to load: ${failure.message}`)
    if (setup.config.plugins.watch || options.watch === true) (await import('./loader/watch-plugins.js')).watchHostPlugins(host, dirs)
  }
  // Loaded only when configured, so hosts without MCP servers never load the MCP client.
  if (Object.keys(setup.config.mcp_servers).length > 0) await (await import('./mcp/client.js')).connectMcpServers(host)
  return host
}
