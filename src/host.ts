import path from 'node:path'
import type { ToolhostConfig } from './config/types.js'
import { admitCalls, behaviourSets, blockerOf, computeFootprint, hiddenTools, settleStaged, stageCalls, type AdmitContext, type Admission, type HiddenTools, type Staged } from './dispatch/admit.js'
import { CallContext } from './dispatch/call-context.js'
import { executeCall, type Execution } from './dispatch/execute-call.js'
import { logSchedulingEvents } from './dispatch/log-events.js'
import { footprintOrigin, type BehaviourSets, type Footprint } from './dispatch/footprint.js'
import { authoriserFailed, decideHeld, NO_DECISION, openHeld, type HeldCall } from './dispatch/held-calls.js'
import { explainPlan } from './dispatch/explain-plan.js'
import { planModeWaits } from './dispatch/plan.js'
import { DurationEstimates } from './dispatch/duration-estimates.js'
import type { WorkerPool } from './dispatch/worker-pool.js'
import { Scheduler, type JobOutcome, type SchedulableCall, type SubmitOptions, type Wait } from './dispatch/scheduler.js'
import { capText } from './dispatch/shape-result.js'
import { isHeavy, ResultSaver } from './dispatch/limit-content.js'
import type { ResultsFolder } from './workspace/save-result.js'
import type { ArgumentLimits } from './dispatch/argument-limits.js'
import { shapeOutcome, spillText } from './dispatch/shape-outcome.js'
import { loadEnvFile } from './env-file.js'
import { shownName } from './dispatch/suggest.js'
import { describeThrown } from './errors.js'
import { builtinPluginFiles, duplicatesBuiltins } from './loader/builtin-plugins.js'
import { loadPlugins, type PluginLoadReport } from './loader/load-plugins.js'
import { createLogger } from './logger.js'
import { isCaseInsensitiveFs } from './paths.js'
import { redactEnvValues } from './redact-env.js'
import { registry as processRegistry, type ToolRegistry } from './registry.js'
import { resolveSetup, underRoot } from './host-setup.js'
import { attachProcessRegistry } from './processes/attach-processes.js'
import { isOpenTelemetryRegistered } from './otel/detect.js'
import { startTempSweep } from './workspace/sweep-temp-files.js'
import type { AnyTool, AskHandler, HostServices, Logger, LogLevel, OpenAIToolDefinition, SessionState, ToolCall, ToolContext, ToolError, ToolResult } from './types.js'
import type { Authoriser, AuthoriseDecision, AuthoriseItem, DefinitionsQuery, HostEvent, HostOptions, PlannedCall, RunOptions } from './host-types.js'
import type { DispatchMode } from './config/types.js'
import { withLiveKeys } from './config/live-config.js'
import { PermissionGate } from './permissions/permission-gate.js'
import { stripRootPath, type Audience } from './messages.js'
import { toCalls } from './adapters/parse-batch.js'
import type { ModelFormat } from './adapters/format.js'
import { renderDefinitions, renderResults, type DefinitionsOf, type MessagesOf } from './adapters/render.js'
import { StrictTools } from './adapters/openai-strict.js'

export type { Authoriser, AuthoriseDecision, AuthoriseItem, CallEvent, DefinitionsQuery, HostEvent, HostOptions, PlannedCall, RunOptions } from './host-types.js'

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
  /** Who reads the calls' errors (see `HostOptions.audience`). */
  readonly audience: Audience
  /** Where the worker limit comes from: config (live) or TOOLHOST_MAX_WORKERS (fixed for the process). */
  readonly maxWorkersFrom: 'config' | 'TOOLHOST_MAX_WORKERS'
  /** The environment tools are gated on (and the .env file is loaded into). */
  readonly env: NodeJS.ProcessEnv
  pluginReport: PluginLoadReport = { loaded: [], failed: [], toolsByFile: new Map() }
  /** The .env file read at start-up and the names of the variables it set (never their values). */
  envFile: { file: string; set: string[] } | undefined
  authoriser: Authoriser
  readonly #scheduler: Scheduler
  // Replaced (never mutated) when a reloaded config.yaml changes a live key: a call reads it as it starts.
  #config: ToolhostConfig
  readonly #sets: BehaviourSets
  readonly #caseInsensitive: boolean
  readonly #now: () => number
  readonly #listeners = new Set<(event: HostEvent) => void>()
  readonly #closers: Array<() => void | Promise<void>> = []
  readonly #admit: AdmitContext
  readonly #strict = new StrictTools()
  #batches = 0
  // Over 2 M characters of huge results (64 k and longer) not yet shaped, no handler starts.
  readonly #saver = new ResultSaver(2 * 2 ** 20, (high) => this.#scheduler.pool.throttle(high))

  constructor(setup: { config: ToolhostConfig; file: string | undefined; root: string; maxWorkers: number; maxWorkersFrom?: Host['maxWorkersFrom'] }, options: HostOptions) {
    this.#config = withPermissionOverrides(setup.config, options)
    this.configFile = setup.file
    this.root = setup.root
    this.maxWorkersFrom = setup.maxWorkersFrom ?? 'config'
    this.env = options.env ?? process.env
    this.registry = options.registry ?? processRegistry
    this.log = options.log ?? createLogger()
    this.ask = options.ask
    this.mode = options.mode ?? setup.config.dispatch.mode
    this.audience = options.audience ?? 'developer'
    if (options.authoriser) {
      this.authoriser = options.authoriser
    } else {
      const gate = new PermissionGate({ config: this.config, configFile: setup.file, root: setup.root, approve: options.approve, log: this.log, audience: this.audience })
      this.authoriser = gate
      this.onClose(() => gate.close())
    }
    this.session = { cwd: setup.root, values: new Map() }
    this.#sets = behaviourSets(setup.config)
    this.#caseInsensitive = isCaseInsensitiveFs(setup.root)
    // The config is read as calls arrive: live limits (a reloaded config.yaml) apply at once.
    const config = (): ToolhostConfig => this.#config
    this.#admit = { registry: this.registry, get config() { return config() }, env: this.env, canAsk: this.ask !== undefined, audience: this.audience }
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

  /** OpenAI Chat function-tool definitions of the tools available now, sorted by name. */
  definitions(query?: DefinitionsQuery): Promise<OpenAIToolDefinition[]>
  /**
   * Definitions of the tools available now in a model API's format (`anthropic`, `openai-responses`,
   * `mcp`, …). `{ strict: true }` (default `openai.strict`) renders the OpenAI formats in strict mode;
   * the nulls that makes the model send for optional arguments are then removed before validation.
   */
  definitions<F extends ModelFormat>(format: F, query?: DefinitionsQuery): Promise<DefinitionsOf<F>>
  async definitions(formatOrQuery?: ModelFormat | DefinitionsQuery, query?: DefinitionsQuery): Promise<unknown> {
    const selection = (typeof formatOrQuery === 'object' ? formatOrQuery : query) ?? {}
    const format = typeof formatOrQuery === 'string' ? formatOrQuery : 'openai-chat'
    const openai = await this.registry.getDefinitions({ ...(selection.names ? { names: selection.names } : {}), ...(selection.toolsets ? { toolsets: selection.toolsets } : {}) }, { checkTimeoutMs: this.config.availability.check_timeout_ms, env: this.env, canAsk: this.ask !== undefined })
    const strict = selection.strict ?? this.config.openai.strict
    const rendered = renderDefinitions(format, openai, (name) => this.registry.get(name), { strict })
    if (strict && format !== 'anthropic' && format !== 'mcp') this.#strict.remember(openai, this.registry)
    return rendered
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
    return Promise.all(this.#schedule(toCalls(callsOrMessage), options))
  }

  /** A batch whose results are yielded as each completes (completion order). */
  async *stream(callsOrMessage: readonly ToolCall[] | object, options: RunOptions = {}): AsyncGenerator<ToolResult, void, undefined> {
    const pending = this.#schedule(toCalls(callsOrMessage), options)
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
    const admissions = await admitCalls(this.#strict.prepare(calls, this.registry, this.#argumentLimits()), this.#admit)
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

  // Calls take their places in the schedule the moment they arrive (arrival order is scheduling order
  // across every run and client). What may have to wait (an availability check, a tool's permission
  // check, a custom authoriser) runs behind each call's gate: it holds up only conflicting calls.
  #schedule(given: readonly ToolCall[], options: RunOptions): Promise<ToolResult>[] {
    const calls = this.#strict.prepare(given, this.registry, this.#argumentLimits())
    const batch = ++this.#batches
    const staged = stageCalls(calls, this.#admit)
    const hidden = hiddenTools(staged, this.#admit)
    return (hidden instanceof Promise ? undefined : this.#admitNow(staged, hidden, options, batch)) ?? this.#admitGated(staged, hidden, options, batch)
  }

  // Everything decided at once (no check to wait for): the calls allowed are scheduled now.
  #admitNow(staged: readonly Staged[], hidden: HiddenTools, options: RunOptions, batch: number): Promise<ToolResult>[] | undefined {
    const trace = options.trace ?? false
    const admissions: Admission[] = new Array(staged.length)
    const items: AuthoriseItem[] = []
    for (let i = 0; i < staged.length; i++) {
      const a = (admissions[i] = settleStaged(staged[i]!, hidden, this.#admit))
      if (a.ok) items.push({ index: a.index, call: a.call, tool: a.tool, args: a.args })
    }
    const decisions = items.length > 0 ? this.#authorise(items, options.signal, true) : []
    if (decisions === undefined) return undefined
    const results: Promise<ToolResult>[] = new Array(staged.length)
    for (const a of admissions) if (!a.ok) results[a.index] = Promise.resolve(this.#refuse(a.call, a.error, trace, batch))
    // Checked once per batch: with no listener, no event object is built (see Scheduler).
    const listening = this.#listeners.size > 0
    // Parallel arrays (no wrapper object per call): the call to schedule, and the item it came from.
    const scheduledItems: AuthoriseItem[] = []
    const toSchedule: SchedulableCall[] = []
    items.forEach((item, k) => {
      const decision = decisions[k] ?? NO_DECISION
      if (!decision.run) {
        results[item.index] = Promise.resolve(this.#refuse(item.call, decision.error, trace, batch))
        return
      }
      const args = decision.args
      const call: SchedulableCall = { id: item.call.id, footprint: this.footprintOf(item.tool, args), start: this.#starter(item, args), profile: this.#scheduler.profileOf(item.tool.name, item.tool.toolset) }
      if (decision.gate) call.gate = decision.gate
      if (listening) this.#announce(item, call, batch)
      scheduledItems.push(item)
      toSchedule.push(call)
    })
    const outcomes = this.#submit(toSchedule, admissions, options)
    for (let k = 0; k < scheduledItems.length; k++) results[scheduledItems[k]!.index] = this.#shapeWhenDone(outcomes[k]!, scheduledItems[k]!, trace)
    return results
  }

  // Something must be waited for: every call with valid arguments is scheduled now with the
  // footprint of its arguments, behind a gate that opens once availability and permission are decided.
  #admitGated(staged: readonly Staged[], hidden: HiddenTools | Promise<HiddenTools>, options: RunOptions, batch: number): Promise<ToolResult>[] {
    const trace = options.trace ?? false
    const known = Promise.resolve(hidden)
    const results: Promise<ToolResult>[] = new Array(staged.length)
    const held: HeldCall[] = []
    for (const s of staged) {
      if (!s.ok || s.invalid) {
        // Not scheduled; its error waits for availability (a hidden tool is named as hidden, not invalid).
        results[s.index] = known.then((h) => {
          const a = settleStaged(s, h, this.#admit)
          return this.#refuse(s.call, a.ok ? NO_DECISION.error : a.error, trace, batch)
        })
        continue
      }
      held.push({ item: { index: s.index, call: s.call, tool: s.tool, args: s.args }, footprint: this.footprintOf(s.tool, s.args), args: s.args })
    }
    const decided = decideHeld(held, known, (items) => this.#authorise(items, options.signal, false), this.#admit)
    const footprintOf = (tool: AnyTool, args: Record<string, unknown>): Footprint => this.footprintOf(tool, args)
    const listening = this.#listeners.size > 0
    const open = (h: HeldCall, decision: AuthoriseDecision | ToolError): ReturnType<typeof openHeld> => (listening ? this.#openAnnounced(h, decision, footprintOf) : openHeld(h, decision, footprintOf))
    const toSchedule = held.map((h, k): SchedulableCall => ({ id: h.item.call.id, footprint: h.footprint, gate: decided.then((all) => open(h, all[k]!)), start: this.#heldStarter(h), profile: this.#scheduler.profileOf(h.item.tool.name, h.item.tool.toolset) }))
    // Held while availability and permission are decided: listeners see 'check', then how it came out.
    if (listening) held.forEach((h, k) => this.#emit({ type: 'admitted', id: h.item.call.id, name: h.item.tool.name, batch, at: this.#now(), footprint: toSchedule[k]!.footprint.kind, permission: 'check' }))
    const outcomes = this.#submit(toSchedule, staged, options)
    for (let k = 0; k < held.length; k++) results[held[k]!.item.index] = this.#shapeWhenDone(outcomes[k]!, held[k]!.item, trace)
    return results
  }

  // Own scope: the closure must not keep the admission's context (every outcome of the batch) alive.
  #shapeWhenDone(outcome: Promise<JobOutcome>, item: AuthoriseItem, trace: boolean): Promise<ToolResult> {
    return outcome.then((done) => {
      const value = done.ran && done.outcome.ok ? done.outcome.value : undefined
      return isHeavy(value) ? this.#saver.releaseAfter(value, () => this.#shape(item, done, trace)) : this.#shape(item, done, trace)
    })
  }

  #submit(toSchedule: SchedulableCall[], staged: readonly (Admission | Staged)[], options: RunOptions): Promise<JobOutcome>[] {
    const mode = options.mode ?? this.mode
    const submit: SubmitOptions = {}
    // `graph` adds no waits of its own; only `batch` reads the blocker.
    if (mode !== 'graph') submit.modeWaits = planModeWaits(mode, toSchedule, mode === 'batch' ? blockerOf(staged) : undefined)
    if (options.signal) submit.signal = options.signal
    return this.#scheduler.submit(toSchedule, submit)
  }

  // The authoriser's decisions, made at once where it can (`authoriseNow`; undefined when it cannot
  // and `now` is asked), else awaited. A fault in it refuses each call instead of rejecting the batch.
  #authorise(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: true): AuthoriseDecision[] | undefined
  #authorise(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: false): AuthoriseDecision[] | Promise<AuthoriseDecision[]>
  #authorise(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: boolean): AuthoriseDecision[] | Promise<AuthoriseDecision[]> | undefined {
    const context = { signal, host: this }
    try {
      const decided = this.authoriser.authoriseNow?.(items, context)
      if (decided !== undefined || now) return decided
      return this.authoriser.authorise(items, context).catch((error: unknown) => items.map(() => authoriserFailed(error)))
    } catch (error) {
      return items.map(() => authoriserFailed(error))
    }
  }

  // Hot path: closures here are returned, not assigned to a named property, because tsx (esbuild
  // keepNames) wraps a named closure in a defineProperty call that costs microseconds per call.
  #starter(item: AuthoriseItem, args: Record<string, unknown>): () => Execution {
    return () => this.#start(item, args)
  }

  #heldStarter(h: HeldCall): () => Execution {
    return () => this.#start(h.item, h.args)
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

  /** A handler's `ctx.log` line: into the host's log, and a `log` event for listeners (MCP clients). */
  reportLog(callId: string, level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    this.log[level](message, fields)
    if (this.#listeners.size > 0) this.#emit({ type: 'log', id: callId, level, message, ...(fields === undefined ? {} : { fields }) })
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
      // A handler's error message (a thrown value) is untrusted text too: keep it within the limit,
      // without the server's absolute root, and never carrying the value of an env var the tool
      // requires (a key, a webhook URL).
      const given = tool.requiresEnv.length > 0 ? redactEnvValues(outcome.outcome.error.message, tool.requiresEnv, this.env) : outcome.outcome.error.message
      const error = { ...outcome.outcome.error, message: capText(stripRootPath(given, this.root), limit) }
      return { id: call.id, name: call.name, ok: false, content: error.message, error, ...timing }
    }
    const value = outcome.outcome.value
    if (typeof value === 'string' && tool.outputSchema === undefined) {
      if (limit === false || value.length <= limit) return { id: call.id, name: call.name, ok: true, content: value, ...timing }
      return spillText(call, value, limit, { resultsFolder: this.#resultsFolder, shownPath: this.#shownPath, saver: this.#saver }, timing)
    }
    // Blocks, JSON or structured content (rarer): shaped, and checked against the outputSchema.
    const entry = tool.outputSchema === undefined ? undefined : this.registry.entry(tool.name)
    const validateOutput = entry?.tool === tool ? entry.validateOutput : undefined
    return shapeOutcome(call, tool.name, value, { limit, maxBytes: this.config.limits.max_result_bytes, resultsFolder: this.#resultsFolder, shownPath: this.#shownPath, saver: this.#saver, validateOutput }, timing)
  }

  #argumentLimits(): ArgumentLimits {
    return { maxChars: this.config.limits.max_argument_chars, maxDepth: this.config.limits.max_argument_depth }
  }

  readonly #resultsFolder = (): ResultsFolder => ({ root: this.root, dir: underRoot(this.root, this.config.limits.results_dir), caseInsensitive: this.#caseInsensitive })
  // The note names the saved file relative to the workspace root: clients never see server paths.
  readonly #shownPath = (file: string): string => stripRootPath(file, this.root)

  // A call refused before scheduling: its error result, and (for listeners) a 'refused' event.
  #refuse(call: ToolCall, error: ToolError, trace: boolean, batch: number): ToolResult {
    const result = this.#errorResult(call, error, trace)
    if (this.#listeners.size > 0) this.#emit({ type: 'refused', id: call.id, name: result.name, batch, at: this.#now(), code: error.code, message: error.message })
    return result
  }

  // For listeners, just before the call is submitted: 'admitted' (its tool, batch, footprint kind,
  // and whether it waits for a person), and an 'approval' event when its gate opens or refuses.
  #announce(item: AuthoriseItem, call: SchedulableCall, batch: number): void {
    const id = item.call.id
    const gate = call.gate
    if (gate) {
      call.gate = gate.then((error) => {
        this.#emit({ type: 'approval', id, at: this.#now(), outcome: error ? 'denied' : 'approved', ...(error ? { code: error.code } : {}) })
        return error
      })
    }
    this.#emit({ type: 'admitted', id, name: item.tool.name, batch, at: this.#now(), footprint: call.footprint.kind, permission: gate ? 'ask' : 'allow' })
  }

  // A held call's checks came out (for listeners): allowed, refused, or asking a person, whose
  // answer is then an 'approval' event. Only a person's answer is an approval.
  #openAnnounced(h: HeldCall, decision: AuthoriseDecision | ToolError, footprintOf: (tool: AnyTool, args: Record<string, unknown>) => Footprint): ReturnType<typeof openHeld> {
    const id = h.item.call.id
    const opened = openHeld(h, decision, footprintOf)
    if (!(opened instanceof Promise)) {
      this.#emit({ type: 'checked', id, at: this.#now(), outcome: opened ? 'refused' : 'allowed', ...(opened ? { code: opened.code } : {}) })
      return opened
    }
    this.#emit({ type: 'checked', id, at: this.#now(), outcome: 'asking' })
    return opened.then((error) => {
      this.#emit({ type: 'approval', id, at: this.#now(), outcome: error ? 'denied' : 'approved', ...(error ? { code: error.code } : {}) })
      return error
    })
  }

  #errorResult(call: ToolCall, given: ToolError, trace: boolean, waits: Wait[] = []): ToolResult {
    const name = shownName(typeof call.name === 'string' ? call.name : String(call.name))
    const error = { ...given, message: stripRootPath(given.message, this.root) }
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

// `permissionMode` and `audit` options win over config.yaml's permissions section.
function withPermissionOverrides(config: ToolhostConfig, options: HostOptions): ToolhostConfig {
  if (options.permissionMode === undefined && options.audit === undefined) return config
  const permissions = { ...config.permissions }
  if (options.permissionMode !== undefined) permissions.mode = options.permissionMode
  if (options.audit !== undefined) permissions.audit_log = options.audit === false ? '' : options.audit
  return { ...config, permissions }
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
  startTempSweep(host) // temp files of killed writes, in the background
  // Events cost nothing while nobody listens, so they are logged only when asked for.
  if (options.logEvents ?? (options.env ?? process.env).TOOLHOST_LOG === 'debug') logSchedulingEvents(host, host.log)
  // Observers are loaded only when asked for (or, for OpenTelemetry, when an SDK is registered).
  if (options.traceFile !== undefined) (await import('./observe/trace-file.js')).recordTraceFile(host, path.resolve(options.cwd ?? process.cwd(), options.traceFile))
  if (options.openTelemetry ?? isOpenTelemetryRegistered()) (await import('./otel/instrument-host.js')).instrumentHost(host)
  if (setup.config.env_file !== '') {
    const file = underRoot(setup.root, setup.config.env_file)
    host.envFile = { file, set: loadEnvFile(file, options.env) }
  }
  // Live limits: config.yaml is watched beside the plugin folders (same switch), loaded only when on.
  if (setup.file !== undefined && (setup.config.plugins.watch || options.watch === true)) (await import('./loader/watch-config.js')).watchConfig(host, setup.file, setup.config)
  if (options.loadPlugins !== false) {
    // The package's own plugins come from `plugins.builtins`, whatever the current folder; user
    // folders come on top.
    const builtins = builtinPluginFiles(setup.config.plugins.builtins)
    const dirs = [
      ...setup.config.plugins.dirs.map((d) => path.resolve(setup.baseDir, d)),
      ...(options.plugins ?? []).map((d) => path.resolve(options.cwd ?? process.cwd(), d)),
    ].filter((dir) => !duplicatesBuiltins(dir, builtins))
    host.pluginReport = await loadPlugins(dirs, host.registry, { files: builtins, importTimeoutMs: setup.config.plugins.import_timeout_ms })
    for (const failure of host.pluginReport.failed) host.log.error(`plugin ${failure.file} failed to load: ${failure.message}`)
    if (setup.config.plugins.watch || options.watch === true) (await import('./loader/watch-plugins.js')).watchHostPlugins(host, dirs)
  }
  // Loaded only when configured, so hosts without MCP servers never load the MCP client.
  if (Object.keys(setup.config.mcp_servers).length > 0) await (await import('./mcp/client.js')).connectMcpServers(host)
  return host
}
