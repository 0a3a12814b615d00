import type { ToolhostConfig } from './config/types.js'
import { admitCalls, behaviourSets, blockerOf, computeFootprint, hiddenTools, settleStaged, stageCalls, type AdmitContext, type Admission, type HiddenTools, type Staged } from './dispatch/admit.js'
import { CallContext } from './dispatch/call-context.js'
import { executeCall, type Execution } from './dispatch/execute-call.js'
import { footprintOrigin, type BehaviourSets, type Footprint } from './dispatch/footprint.js'
import { authoriserFailed, decideHeld, NO_DECISION, openHeld, type HeldCall } from './dispatch/held-calls.js'
import { explainPlan } from './dispatch/explain-plan.js'
import { planModeWaits } from './dispatch/plan.js'
import { DurationEstimates } from './dispatch/duration-estimates.js'
import type { WorkerPool } from './dispatch/worker-pool.js'
import { Scheduler, type JobOutcome, type SchedulableCall, type SubmitOptions } from './dispatch/scheduler.js'
import { ResultShaper } from './dispatch/result-shaper.js'
import type { ArgumentLimits } from './dispatch/argument-limits.js'
import { describeThrown } from './errors.js'
import type { PluginLoadReport } from './loader/load-plugins.js'
import { createLogger } from './logger.js'
import { isCaseInsensitiveFs } from './paths.js'
import { registry as processRegistry, type ToolRegistry } from './registry.js'
import { underRoot, withPermissionOverrides } from './host-setup.js'
import type { AnyTool, AskHandler, HostServices, Logger, LogLevel, OpenAIToolDefinition, SessionState, ToolCall, ToolContext, ToolError, ToolResult } from './types.js'
import type { Authoriser, AuthoriseDecision, AuthoriseItem, DefinitionsQuery, HostEvent, HostOptions, PlannedCall, RunOptions } from './host-types.js'
import type { DispatchMode } from './config/types.js'
import { withLiveKeys } from './config/live-config.js'
import { PermissionGate } from './permissions/permission-gate.js'
import type { Audience } from './messages.js'
import { toCalls } from './adapters/parse-batch.js'
import type { ModelFormat } from './adapters/format.js'
import { renderDefinitions, renderResults, type DefinitionsOf, type MessagesOf } from './adapters/render.js'
import { StrictTools } from './adapters/openai-strict.js'

// createHost lives in create-host.ts; it is re-exported here, where callers have always found it.
export { createHost } from './create-host.js'
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
  readonly #results: ResultShaper

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
    const results = new ResultShaper(this, this.#caseInsensitive, (high) => this.#scheduler.pool.throttle(high))
    this.#results = results
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
      onAnswer: (outcome) => outcome.ok && results.claim(outcome.value),
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
    for (let k = 0; k < scheduledItems.length; k++) results[scheduledItems[k]!.index] = this.#results.whenDone(outcomes[k]!, scheduledItems[k]!, trace)
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
    const toSchedule = held.map((h, k): SchedulableCall => ({ id: h.item.call.id, footprint: h.footprint, gate: decided.then((all) => openHeld(h, all[k]!, footprintOf)), start: this.#heldStarter(h), profile: this.#scheduler.profileOf(h.item.tool.name, h.item.tool.toolset) }))
    // Every held call waits for its gate (availability and permission), so listeners see it as 'ask'.
    if (this.#listeners.size > 0) held.forEach((h, k) => this.#announce(h.item, toSchedule[k]!, batch))
    const outcomes = this.#submit(toSchedule, staged, options)
    for (let k = 0; k < held.length; k++) results[held[k]!.item.index] = this.#results.whenDone(outcomes[k]!, held[k]!.item, trace)
    return results
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

  #argumentLimits(): ArgumentLimits {
    return { maxChars: this.config.limits.max_argument_chars, maxDepth: this.config.limits.max_argument_depth }
  }

  // A call refused before scheduling: its error result, and (for listeners) a 'refused' event.
  #refuse(call: ToolCall, error: ToolError, trace: boolean, batch: number): ToolResult {
    const result = this.#results.error(call, error, trace)
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
