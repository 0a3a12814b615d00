import { toCalls } from '../adapters/parse-batch.js'
import type { WorkspaceCode } from '../loader/workspace-code.js'
import type { ModelFormat } from '../adapters/format.js'
import { StrictTools } from '../dispatch/admit/strict-tools.js'
import { renderDefinitions, renderResults, type DefinitionsOf, type MessagesOf } from '../adapters/render.js'
import { withLiveKeys } from '../config/live-config.js'
import { DISPATCH_MODES, type DispatchMode, type ToolhostConfig } from '../config/types.js'
import { behaviourSets, type AdmitContext } from '../dispatch/admit/admit.js'
import { DurationEstimates } from '../dispatch/schedule/duration-estimates.js'
import type { Footprint, FootprintContext } from '../dispatch/admit/footprint.js'
import { ResultShaper } from '../dispatch/results/result-shaper.js'
import { Scheduler } from '../dispatch/schedule/scheduler.js'
import type { WorkerPool } from '../dispatch/schedule/worker-pool.js'
import { describeThrown } from '../contract/errors.js'
import { CallLifecycle } from '../pipeline/call-lifecycle.js'
import { AllResults, AsCompleted } from '../pipeline/result-sinks.js'
import { admitStreamedCalls } from '../pipeline/streamed-calls.js'
import { isModelStream } from '../adapters/model-stream.js'
import type { HostContext } from '../contract/host-context.js'
import { checkChoice } from './setup.js'
import type { DefinitionsQuery, HostOptions, HostServices, PlannedCall, RunOptions } from './host-types.js'
import { Listeners } from '../contract/listeners.js'
import type { Host } from './host-api.js'
import type { PluginLoadReport } from '../loader/load-plugins.js'
import type { Audience } from '../contract/messages.js'
import { isCaseInsensitiveFs, underRoot } from '../workspace/paths.js'
import type { HostEvent } from '../observe/host-events.js'
import type { Authoriser } from '../permissions/authoriser.js'
import type { CallHooks } from '../contract/hook-types.js'
import { registry as processRegistry, type ToolRegistry } from '../registry/registry.js'
import type { AnyTool, AskHandler, ControlPlane, Logger, SessionState, ToolCall, ToolResult } from '../contract/types.js'
import type { ChatToolDefinition } from '../adapters/openai-chat.js'

// The host's types, where the package entry has always found them (each is defined below the host).
export type { AuthoriseDecision, AuthoriseItem } from '../dispatch/admit/authorise-item.js'
export type { CallEvent, HostEvent } from '../observe/host-events.js'
export type { Authoriser } from '../permissions/authoriser.js'
export type { DefinitionsQuery, HostOptions, HostServices, PlannedCall, RunOptions } from './host-types.js'
export type { Host } from './host-api.js'

/**
 * What createHost hands the host it builds, and keeps in order to finish it: the subsystems it
 * attaches as they start, the plugin report and the .env file once read. Internal: the host only
 * reads it; a user sees the read-only `services`, `pluginReport` and `envFile`.
 */
export interface HostParts {
  readonly log: Logger
  readonly authoriser: Authoriser
  readonly services: HostServices
  pluginReport: PluginLoadReport
  envFile: { file: string; set: string[] } | undefined
  /** The workspace's own code, withheld because `HostOptions.workspaceTrust` did not trust it. */
  untrustedCode?: WorkspaceCode
}

/**
 * The host behind the `Host` interface (host-api.ts, where each member is documented): what a user
 * sees, plus what toolhost's own CLI, console and benchmarks read through `internalsOf` (the worker
 * pool, the duration estimates, footprints) and a constructor only createHost calls.
 */
export class HostRuntime implements Host {
  readonly configFile: string | undefined
  readonly root: string
  readonly registry: ToolRegistry
  readonly log: Logger
  readonly session: SessionState
  readonly ask: AskHandler | undefined
  readonly hooks: CallHooks | undefined
  readonly mode: DispatchMode
  readonly audience: Audience
  readonly maxWorkersFrom: 'config' | 'TOOLHOST_MAX_WORKERS'
  readonly env: NodeJS.ProcessEnv
  readonly #parts: HostParts
  readonly #scheduler: Scheduler
  // Replaced (never mutated) when a reloaded config.yaml changes a live key: a call reads it as it starts.
  #config: ToolhostConfig
  // What a footprint is computed with: the root, its case rule and the config's behaviour sets (made once).
  readonly #footprints: FootprintContext
  readonly #now: () => number
  readonly #events: Listeners<HostEvent>
  readonly #configListeners: Listeners<ToolhostConfig>
  readonly #closers: Array<() => void | Promise<void>> = []
  readonly #admit: AdmitContext
  readonly #strict = new StrictTools()
  readonly #lifecycle: CallLifecycle
  readonly #context: HostContext

  /**
   * Hosts come from `createHost`, which resolves `setup` (the config with the permission options in
   * place) and the `parts` it attaches.
   */
  constructor(setup: { config: ToolhostConfig; file: string | undefined; root: string; maxWorkers: number; maxWorkersFrom?: Host['maxWorkersFrom']; controlPlane?: ControlPlane }, options: HostOptions, parts: HostParts) {
    this.#parts = parts
    this.#config = setup.config
    this.configFile = setup.file
    this.root = setup.root
    this.maxWorkersFrom = setup.maxWorkersFrom ?? 'config'
    this.env = options.env ?? process.env
    this.registry = options.registry ?? processRegistry
    this.log = parts.log
    this.ask = options.ask
    this.hooks = options.hooks
    this.mode = options.mode ?? setup.config.dispatch.mode
    this.audience = options.audience ?? 'developer'
    // Events are emitted from inside the scheduler: a listener that throws must not cost a call its
    // result or its release, nor keep the other listeners from hearing the event.
    this.#events = new Listeners((error, event) => this.log.warn(`an event listener threw on "${event.type}" for ${event.id}: ${describeThrown(error)}`))
    this.#configListeners = new Listeners((error) => this.log.warn(`a config listener threw: ${describeThrown(error)}`))
    this.session = { cwd: setup.root, values: new Map() }
    const caseInsensitive = isCaseInsensitiveFs(setup.root)
    this.#footprints = { root: setup.root, caseInsensitive, sets: behaviourSets(setup.config) }
    // The config is read as calls arrive: live limits (a reloaded config.yaml) apply at once.
    const config = (): ToolhostConfig => this.#config
    this.#admit = { registry: this.registry, get config() { return config() }, env: this.env, canAsk: this.ask !== undefined, audience: this.audience }
    // The context every stage reads (one object per host; the config getter reads the one in force).
    const host = this
    this.#context = {
      workspace: { root: setup.root, caseInsensitive, session: this.session, ...(setup.controlPlane ? { controlPlane: setup.controlPlane } : {}) },
      settings: { get config() { return config() }, env: this.env },
      offers: { services: parts.services, log: parts.log, ask: this.ask },
    }
    const results = new ResultShaper(this.#context, this.registry, (high) => this.#scheduler.pool.throttle(high))
    const origin = performance.now()
    this.#now = options.now ?? (() => Math.round((performance.now() - origin) * 1000) / 1000)
    this.#scheduler = new Scheduler({
      maxWorkers: setup.maxWorkers,
      now: this.#now,
      onEvent: (event) => this.#events.emit(event),
      listening: () => this.#events.isListening,
      rateLimits: setup.config.rate_limits,
      priority: setup.config.dispatch.priority,
      estimates: new DurationEstimates(setup.config.dispatch.duration_estimates === '' ? undefined : underRoot(setup.root, setup.config.dispatch.duration_estimates), setup.root),
      onAnswer: (outcome) => outcome.ok && results.claim(outcome.value),
      // A store of this process alone has nothing to say about a call: the scheduler is it.
      ...(parts.services.store.scope === 'process' ? {} : { store: parts.services.store }),
    })
    this.#lifecycle = new CallLifecycle({
      context: this.#context,
      codeHooks: this.hooks,
      registry: this.registry,
      get authoriser() { return host.authoriser },
      admit: this.#admit,
      mode: this.mode,
      scheduler: this.#scheduler,
      shaper: results,
      strict: this.#strict,
      footprints: this.#footprints,
      events: this.#events,
      now: this.#now,
    })
    // Estimates a previous run left (`dispatch.duration_estimates`); a bad file is reported and ignored.
    this.#scheduler.estimates.load((message) => this.log.warn(message))
  }

  get services(): HostServices {
    return this.#parts.services
  }

  get pluginReport(): PluginLoadReport {
    return this.#parts.pluginReport
  }

  get untrustedCode(): WorkspaceCode | undefined {
    return this.#parts.untrustedCode
  }

  get envFile(): { file: string; set: string[] } | undefined {
    return this.#parts.envFile
  }

  get authoriser(): Authoriser {
    return this.#parts.authoriser
  }

  get config(): ToolhostConfig {
    return this.#config
  }

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

  applyLiveConfig(next: ToolhostConfig): void {
    this.#config = withLiveKeys(this.#config, next)
    if (this.maxWorkersFrom === 'config') this.#scheduler.pool.concurrency = next.dispatch.max_workers
    this.#scheduler.pool.setRateLimits(next.rate_limits)
    this.#configListeners.emit(this.#config)
  }

  onConfigChange(listener: (config: ToolhostConfig) => void): () => void {
    return this.#configListeners.add(listener)
  }

  get stats(): { running: number; peakRunning: number; pending: number } {
    return { running: this.#scheduler.running, peakRunning: this.#scheduler.peakRunning, pending: this.#scheduler.pending }
  }

  now(): number {
    return this.#now()
  }

  onEvent(listener: (event: HostEvent) => void): () => void {
    return this.#events.add(listener)
  }

  onClose(closer: () => void | Promise<void>): void {
    this.#closers.push(closer)
  }

  definitions(query?: DefinitionsQuery): Promise<ChatToolDefinition[]>
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

  toMessages<F extends ModelFormat>(results: readonly ToolResult[], format: F): MessagesOf<F> {
    return renderResults(format, results)
  }

  async call(call: ToolCall, options: RunOptions = {}): Promise<ToolResult> {
    const [result] = await this.run([call], options)
    return result!
  }

  async run(callsOrMessage: readonly ToolCall[] | object, options: RunOptions = {}): Promise<ToolResult[]> {
    checkChoice('host.run(calls, { mode })', options.mode, DISPATCH_MODES)
    if (isModelStream(callsOrMessage)) {
      const all = new AllResults()
      await admitStreamedCalls(callsOrMessage, options, options.mode ?? this.mode, this.#lifecycle, all)
      return all.promise
    }
    const calls = toCalls(callsOrMessage)
    const all = new AllResults(calls.length)
    void this.#lifecycle.handle(calls, options, all)
    return all.promise
  }

  async *stream(callsOrMessage: readonly ToolCall[] | object, options: RunOptions = {}): AsyncGenerator<ToolResult, void, undefined> {
    checkChoice('host.stream(calls, { mode })', options.mode, DISPATCH_MODES)
    if (isModelStream(callsOrMessage)) {
      const done = new AsCompleted()
      const admitted = admitStreamedCalls(callsOrMessage, options, options.mode ?? this.mode, this.#lifecycle, done)
      // A stream that is no model's stream fails here, before anything was admitted.
      let failed: unknown
      admitted.catch((error: unknown) => {
        failed = error
        done.seal()
      })
      yield* done
      if (failed !== undefined) throw failed
      return
    }
    const calls = toCalls(callsOrMessage)
    const done = new AsCompleted(calls.length)
    void this.#lifecycle.handle(calls, options, done)
    yield* done
  }

  async explain(calls: readonly ToolCall[], options: { mode?: DispatchMode } = {}): Promise<{ mode: DispatchMode; calls: PlannedCall[] }> {
    checkChoice('host.explain(calls, { mode })', options.mode, DISPATCH_MODES)
    const mode = options.mode ?? this.mode
    return { mode, calls: await this.#lifecycle.preview(toCalls(calls), mode) }
  }

  /** A call's footprint with this host's root and behaviour sets (the benchmarks and tests read it). */
  footprintOf(tool: AnyTool, args: Record<string, unknown>): Footprint {
    return this.#lifecycle.footprintOf(tool, args)
  }

  async close(): Promise<void> {
    this.authoriser.shutdown?.()
    await this.#lifecycle.close()
    await this.#scheduler.close(this.config.dispatch.interrupt_grace_ms)
    for (const closer of this.#closers.splice(0).reverse()) await closer()
    await this.#scheduler.estimates.save((message) => this.log.warn(message))
  }
}

/** What toolhost's own CLI, console, benchmarks and tests read of a host beyond `Host`: not public. */
export type HostInternals = Pick<HostRuntime, 'pool' | 'estimates' | 'footprintOf'>

/** The worker pool, duration estimates and footprints of a host createHost made. */
export function internalsOf(host: Host): HostInternals {
  if (!(host instanceof HostRuntime)) throw new TypeError('internalsOf: not a host made by createHost')
  return host
}
