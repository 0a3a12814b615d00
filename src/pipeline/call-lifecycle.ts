// The path of every call, top to bottom in call order: parse, admit, hooks, authorise, schedule,
// execute, shape, answer. Every caller (host.run, host.stream, host.call, MCP, the console) hands a
// batch to `handle` with the sink its results go into; `explain` previews the same stages.
import type { StrictTools } from '../dispatch/admit/strict-tools.js'
import { blockerOf, computeFootprint, hiddenTools, settleStaged, stageCalls, type AdmitContext, type Admission, type HiddenTools, type Staged } from '../dispatch/admit/admit.js'
import { argumentLimitsOf } from '../dispatch/admit/argument-limits.js'
import { CallContext, type CallReporter } from '../dispatch/execute/call-context.js'
import { executeCall, type Execution } from '../dispatch/execute/execute-call.js'
import { footprintOrigin, type Footprint, type FootprintContext } from '../dispatch/admit/footprint.js'
import { claimsAcrossHosts } from '../store/claims.js'
import { authoriserFailed, decideHeld, NO_DECISION, openHeld, type HeldCall } from '../dispatch/admit/held-calls.js'
import { explainPlan } from '../dispatch/schedule/explain-plan.js'
import { planModeWaits } from '../dispatch/schedule/plan.js'
import type { ResultShaper } from '../dispatch/results/result-shaper.js'
import type { JobOutcome, SchedulableCall, Scheduler, SubmitOptions } from '../dispatch/schedule/scheduler.js'
import type { AuthoriseDecision, AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { HostEvent } from '../observe/host-events.js'
import type { Authoriser, AuthoriseContext } from '../permissions/authoriser.js'
import type { DispatchMode } from '../config/types.js'
import type { HostContext } from '../contract/host-context.js'
import type { Listeners } from '../contract/listeners.js'
import type { AnyTool, ToolCall, ToolError, ToolResult } from '../contract/types.js'
import type { CallHookSet } from '../hooks/call-hooks.js'
import { AdmittedCall, type StartCall } from './admitted-call.js'
import { Batch } from './batch.js'
import { announce, openAnnounced } from './lifecycle-events.js'
import { HookStage, type HookStageParts } from './hook-stage.js'
import type { PlannedCall } from './planned-call.js'
import type { ResultSink } from './result-sinks.js'
import type { RunOptions } from './run-options.js'
import { CALL_ERRORS } from '../contract/call-errors.js'

const HOST_CLOSED: ToolError = CALL_ERRORS.closedInHooks()

/**
 * The ports the lifecycle is given. The host builds each once and implements none of them itself:
 * no stage calls back into `host/`.
 */
export interface LifecycleParts extends HookStageParts {
  /** The host's context (workspace, settings, offers): what each call's context is made of. */
  readonly context: HostContext
  /** Looks tools up, validates arguments, checks availability (the mode and reader of errors). */
  readonly admit: AdmitContext
  /** The permission system (`authorise`, `authoriseNow`, `preview`). */
  readonly authoriser: Authoriser
  /** The host's dispatch mode, when a batch names none. */
  readonly mode: DispatchMode
  /** Orders calls by their footprints and runs them on the worker pool. */
  readonly scheduler: Scheduler
  /** Turns an outcome into the call's result (limits, spills, redaction). */
  readonly shaper: ResultShaper
  /** OpenAI strict mode's tools: the nulls it made the model send are removed at parse. */
  readonly strict: StrictTools
  /** Footprints are computed with the root, its case rule and the config's behaviour sets. */
  readonly footprints: FootprintContext
  /** The host's events: built only while someone listens. */
  readonly events: Listeners<HostEvent>
  readonly now: () => number
}

/**
 * One lifecycle per host: every batch of every caller goes through `handle`, whose stages are the
 * methods below, in call order. A batch's calls take their places in the schedule the moment they
 * arrive (arrival order is scheduling order across every run and client). When everything is
 * decided at once they are scheduled as decided; when something must be waited for (an
 * availability check, a tool's permission check, a custom authoriser) each call is scheduled
 * behind a gate that holds up only the calls that conflict with it. Each result goes into the
 * caller's sink, once, in its call's slot.
 *
 * @example
 * const all = new AllResults(calls.length)
 * lifecycle.handle(calls, { trace: true }, all)
 * const results = await all.promise
 */
export class CallLifecycle {
  readonly #parts: LifecycleParts
  readonly #hooks: HookStage
  readonly #authoriseContext: AuthoriseContext
  #batches = 0

  constructor(parts: LifecycleParts) {
    this.#parts = parts
    this.#authoriseContext = { host: parts.context, tools: parts.registry }
    this.#hooks = new HookStage(parts, (id, name, r) => {
      if (parts.events.isListening) parts.events.emit({ type: 'hook', id, name, at: parts.now(), event: r.event, hook: r.hook, decision: r.decision, reason: r.reason })
    })
  }

  /**
   * Takes a batch: each call's result goes into `sink` at its index (plus `base`). Returns a promise
   * only when the batch's place in the schedule is taken later (its before-hooks run first): a caller
   * that admits calls one by one (a model's stream) waits for it to keep arrival order.
   */
  handle(given: readonly ToolCall[], options: RunOptions, sink: ResultSink, base = 0): Promise<void> | undefined {
    const staged = this.#parse(given)
    const hooks = this.#hooks.inForce()
    const batch = new Batch(++this.#batches, options, hooks, sink, base, this.#onOutcome)
    return this.#admitStage(staged, batch)
  }

  /** A call that cannot be run as it arrived (a model's stream cut it off): its error result into `sink` at `index`. */
  refuse(call: ToolCall, error: ToolError, options: RunOptions, sink: ResultSink, index: number): void {
    const batch = new Batch(++this.#batches, options, undefined, sink, index, this.#onOutcome)
    this.#refuse(batch, 0, call, error)
  }

  // 1. Parse: each call looked up and its arguments parsed and validated, after the nulls strict
  // mode introduced are taken out of the calls to tools offered strictly.
  #parse(given: readonly ToolCall[]): Staged[] {
    const { strict, admit } = this.#parts
    return stageCalls(strict.prepare(given, admit.registry, argumentLimitsOf(admit.config)), admit)
  }

  // 2. Admit: which tools are hidden now (availability, re-checked at call time). With before-hooks
  // for a call of the batch, the hooks stage is next; else authorisation.
  #admitStage(staged: readonly Staged[], batch: Batch): Promise<void> | undefined {
    const hidden = hiddenTools(staged, this.#parts.admit)
    if (batch.hooks !== undefined && this.#hooks.hasBefore(staged, batch.hooks)) return this.#hooksStage(staged, hidden, batch, batch.hooks)
    this.#authorise(staged, hidden, batch)
    return undefined
  }

  // 3. Hooks: before-hooks run after availability and before the permission system; the batch takes
  // its place in the schedule once they have answered, with the arguments they left, so every
  // reservation is made for the arguments that will run.
  async #hooksStage(staged: readonly Staged[], given: HiddenTools | Promise<HiddenTools>, batch: Batch, hooks: CallHookSet): Promise<void> {
    const hidden = await given
    const hooked = await this.#hooks.before(staged, hidden, hooks, batch.options.signal, batch.options.principal)
    // The host closed while the hooks ran: nothing of the batch may start on it now.
    if (this.#hooks.isClosing) {
      for (const s of hooked) this.#refuse(batch, s.index, s.call, s.ok ? HOST_CLOSED : s.error)
      return
    }
    this.#authorise(hooked, hidden, batch)
  }

  // 4. Authorise: decided at once where availability is known and the authoriser can answer now
  // (`#authoriseNow`); else every call with valid arguments is scheduled behind a gate that opens
  // once it is decided (`#authoriseLater`).
  #authorise(staged: readonly Staged[], hidden: HiddenTools | Promise<HiddenTools>, batch: Batch): void {
    if (hidden instanceof Promise || !this.#authoriseNow(staged, hidden, batch)) this.#authoriseLater(staged, hidden, batch)
  }

  // Everything decided at once: the calls allowed are scheduled now, the others refused. False when
  // the authoriser must be waited for (nothing was done).
  #authoriseNow(staged: readonly Staged[], hidden: HiddenTools, batch: Batch): boolean {
    const admit = this.#admitFor(batch.options)
    const admissions: Admission[] = new Array(staged.length)
    const items: AuthoriseItem[] = []
    for (let i = 0; i < staged.length; i++) {
      const a = (admissions[i] = settleStaged(staged[i]!, hidden, admit))
      if (a.ok) items.push(itemOf(a, batch.options))
    }
    const decisions = items.length > 0 ? this.#decide(items, batch.options.signal, true) : []
    if (decisions === undefined) return false
    for (const a of admissions) if (!a.ok) this.#refuse(batch, a.index, a.call, a.error)
    // Checked once per batch: with no listener, no event object is built (see Scheduler).
    const listening = this.#parts.events.isListening
    const toSchedule: SchedulableCall[] = []
    for (let k = 0; k < items.length; k++) {
      const item = items[k]!
      const decision = decisions[k] ?? NO_DECISION
      if (!decision.run) {
        this.#refuse(batch, item.index, item.call, decision.error)
        continue
      }
      const call = this.#admitted(item, decision)
      if (listening) announce(this.#parts, item, call, batch.number, decision.args)
      batch.schedule(item, decision.args)
      toSchedule.push(call)
    }
    this.#schedule(toSchedule, admissions, batch)
    return true
  }

  // Something must be waited for: every call with valid arguments is scheduled now with the
  // footprint of its arguments, behind a gate that opens once availability and permission are decided.
  #authoriseLater(staged: readonly Staged[], hidden: HiddenTools | Promise<HiddenTools>, batch: Batch): void {
    const { options } = batch
    const admit = this.#admitFor(options)
    const known = Promise.resolve(hidden)
    const held: HeldCall[] = []
    for (const s of staged) {
      if (!s.ok || s.invalid) {
        // Not scheduled; its error waits for availability (a hidden tool is named as hidden, not invalid).
        void known.then((h) => {
          const a = settleStaged(s, h, admit)
          this.#refuse(batch, s.index, s.call, a.ok ? NO_DECISION.error : a.error)
        })
        continue
      }
      held.push({ item: itemOf(s, options), footprint: this.footprintOf(s.tool, s.args), args: s.args })
    }
    const decided = decideHeld(held, known, (items) => this.#decide(items, options.signal, false), admit)
    const footprintOf = (tool: AnyTool, args: Record<string, unknown>): Footprint => this.footprintOf(tool, args)
    const listening = this.#parts.events.isListening
    const open = (h: HeldCall, decision: AuthoriseDecision | ToolError): ReturnType<typeof openHeld> => (listening ? openAnnounced(this.#parts, h, decision, footprintOf) : openHeld(h, decision, footprintOf))
    const toSchedule = held.map((h, k): SchedulableCall => {
      const call: SchedulableCall = { id: h.item.call.id, footprint: h.footprint, gate: decided.then((all) => open(h, all[k]!)), start: this.#heldStarter(h), profile: this.#parts.scheduler.profileOf(h.item.tool.name, h.item.tool.toolset) }
      if (!claimsAcrossHosts(h.item.tool)) call.crossHost = false
      // The arguments the handler runs with: a permission check may narrow them at the gate.
      batch.schedule(h.item, () => h.args)
      return call
    })
    // Held while availability and permission are decided: listeners see 'check', then how it came out.
    if (listening) held.forEach((h, k) => this.#parts.events.emit({ type: 'admitted', id: h.item.call.id, name: h.item.tool.name, batch: batch.number, at: this.#parts.now(), footprint: toSchedule[k]!.footprint.kind, permission: 'check', arguments: h.args }))
    this.#schedule(toSchedule, staged, batch)
  }

  // The authoriser's decisions, made at once where it can (`authoriseNow`; undefined when it cannot
  // and `now` is asked), else awaited. A fault in it refuses each call instead of rejecting the batch.
  #decide(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: true): AuthoriseDecision[] | undefined
  #decide(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: false): AuthoriseDecision[] | Promise<AuthoriseDecision[]>
  #decide(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: boolean): AuthoriseDecision[] | Promise<AuthoriseDecision[]> | undefined {
    const { authoriser } = this.#parts
    const context: AuthoriseContext = signal === undefined ? this.#authoriseContext : { signal, host: this.#parts.context, tools: this.#parts.registry }
    try {
      const decided = authoriser.authoriseNow?.(items, context)
      if (decided !== undefined || now) return decided
      return authoriser.authorise(items, context).catch((error: unknown) => items.map(() => authoriserFailed(error)))
    } catch (error) {
      return items.map(() => authoriserFailed(error))
    }
  }

  // 5. Schedule: the batch's allowed calls enter the scheduler, which answers each outcome into the
  // batch (`Batch.answer`, then the shape stage). The dispatch mode adds its own waits.
  #schedule(toSchedule: SchedulableCall[], staged: readonly (Admission | Staged)[], batch: Batch): void {
    const { options } = batch
    const mode = options.mode ?? this.#parts.mode
    const submit: SubmitOptions = {}
    // `graph` adds no waits of its own; only `batch` reads the blocker.
    if (mode !== 'graph') submit.modeWaits = planModeWaits(mode, toSchedule, mode === 'batch' ? blockerOf(staged) : undefined)
    if (options.signal) submit.signal = options.signal
    this.#parts.scheduler.submitTo(toSchedule, batch, submit)
  }

  // What the scheduler gets for a call allowed at once: its footprint, how to start it, its profile, its gate.
  #admitted(item: AuthoriseItem, decision: Extract<AuthoriseDecision, { run: true }>): AdmittedCall {
    const args = decision.args
    const call = new AdmittedCall(item, args, this.footprintOf(item.tool, args), this.#parts.scheduler.profileOf(item.tool.name, item.tool.toolset), this.#startCall)
    if (!claimsAcrossHosts(item.tool)) call.crossHost = false
    if (decision.gate) call.gate = decision.gate
    return call
  }

  // 6. Execute: when a worker is free and every wait is over, the scheduler starts the handler with
  // its context (whose signal, progress, log and asker are made on first use). One start function
  // per host: every call decided at once starts through it (AdmittedCall).
  readonly #startCall: StartCall = (item, args) => this.#execute(item, args)

  // Hot path: the closure is returned, not assigned to a named property, because tsx (esbuild
  // keepNames) wraps a named closure in a defineProperty call that costs microseconds per call.
  #heldStarter(h: HeldCall): () => Execution {
    return () => this.#execute(h.item, h.args)
  }

  #execute(item: AuthoriseItem, args: Record<string, unknown>): Execution {
    const controller = new AbortController()
    const context = new CallContext(this.#parts.context, item.call.id, item.tool.name, controller, this.#reporter)
    const dispatch = this.#parts.context.settings.config.dispatch
    return executeCall(item.tool, args, context, controller, { timeoutMs: item.tool.timeoutMs ?? dispatch.timeout_ms, graceMs: dispatch.interrupt_grace_ms, onAbandon: this.#warnAbandoned, sources: this.#parts.registry })
  }

  // 7. Shape: a scheduled call's outcome as its result, at once or once it may be (a huge value waits
  // for the memory budget; over-long text is saved first). A result that cannot be shaped is still a
  // result, in its call's slot.
  readonly #onOutcome = (batch: Batch, slot: number, outcome: JobOutcome): void => {
    const item = batch.items[slot]!
    const { shaper } = this.#parts
    let shaped: ToolResult | Promise<ToolResult>
    try {
      shaped = shaper.shapeDone(item, outcome, batch.trace)
    } catch (thrown) {
      shaped = shaper.unreadable(item, outcome, batch.trace, thrown)
    }
    if (shaped instanceof Promise) {
      shaped.then(
        (result) => this.#answer(batch, slot, outcome, result),
        (thrown: unknown) => this.#answer(batch, slot, outcome, shaper.unreadable(item, outcome, batch.trace, thrown)),
      )
    } else {
      this.#answer(batch, slot, outcome, shaped)
    }
  }

  // 8. Answer: after-hooks read the result of a call whose handler ran (and may rewrite or withhold
  // it), then it is delivered into the caller's sink.
  #answer(batch: Batch, slot: number, outcome: JobOutcome, result: ToolResult): void {
    const item = batch.items[slot]!
    const hooks = batch.hooks
    if (hooks === undefined || !outcome.ran || !this.#hooks.hasAfter(hooks, item.tool.name)) {
      this.#deliver(batch, item.index, item.call.id, result)
      return
    }
    this.#hooks.after(hooks, outcome, result, item, batch.ranWith(slot), batch.options.signal).then(
      (after) => this.#deliver(batch, item.index, item.call.id, after),
      // A fault of the hook stage itself (each hook's own fault is its decision): the result stands.
      () => this.#deliver(batch, item.index, item.call.id, result),
    )
  }

  #deliver(batch: Batch, index: number, id: string, result: ToolResult): void {
    const { events } = this.#parts
    if (events.isListening) events.emit({ type: 'answered', id, at: this.#parts.now(), result })
    batch.put(index, result)
  }

  // A call refused before scheduling: its error result, and (for listeners) a 'refused' event, then
  // its answer like any.
  #refuse(batch: Batch, index: number, call: ToolCall, error: ToolError): void {
    const result = this.#parts.shaper.error(call, error, batch.trace)
    const { events } = this.#parts
    if (events.isListening) events.emit({ type: 'refused', id: call.id, name: result.name, batch: batch.number, at: this.#parts.now(), code: error.code, message: error.message })
    this.#deliver(batch, index, call.id, result)
  }

  /**
   * The plan for a batch without running anything, through the same parse and admit stages as
   * `handle`: footprints (and who decided them), what the permission system would decide, who waits
   * for whom and why, each call's priority, the hooks each would go through.
   */
  async preview(given: readonly ToolCall[], mode: DispatchMode): Promise<PlannedCall[]> {
    const staged = this.#parse(given)
    const hidden = await hiddenTools(staged, this.#parts.admit)
    const admissions = staged.map((s) => settleStaged(s, hidden, this.#parts.admit))
    const runnable = admissions.filter((a): a is Extract<Admission, { ok: true }> => a.ok)
    const { authoriser, scheduler } = this.#parts
    const permissions = authoriser.preview ? await authoriser.preview(runnable.map((a) => ({ index: a.index, call: a.call, tool: a.tool, args: a.args })), this.#authoriseContext) : []
    const inputs = runnable.map((a, i) => ({ id: a.call.id, footprint: this.footprintOf(a.tool, a.args), profile: scheduler.profileOf(a.tool.name, a.tool.toolset), ...(permissions[i] ? { permission: permissions[i] } : {}) }))
    const pool = scheduler.pool
    const plan = explainPlan(mode, inputs, blockerOf(admissions), { workers: pool.concurrency, estimates: scheduler.estimates, ruleOf: (profile) => pool.ruleOf(profile) })
    const byIndex = new Map(runnable.map((a, i) => [a.index, i]))
    return admissions.map((a): PlannedCall => {
      const i = byIndex.get(a.index)
      if (!a.ok || i === undefined) return { id: a.call.id, name: a.call.name, ...(a.ok ? {} : { error: a.error }), waitsFor: [] }
      const permission = permissions[i]
      const hooks = this.#hooks.namesFor(a.tool.name)
      return { id: a.call.id, name: a.call.name, footprint: inputs[i]!.footprint, footprintFrom: footprintOrigin(a.tool, this.#parts.footprints.sets), ...(permission ? { permission } : {}), ...(hooks.length > 0 ? { hooks } : {}), ...plan[i]! }
    })
  }

  /** A call's footprint with this host's root and behaviour sets. */
  footprintOf(tool: AnyTool, args: Record<string, unknown>): Footprint {
    return computeFootprint(tool, args, this.#parts.footprints)
  }

  /** The host is closing: before-hooks still running are stopped, and their batches refused (E_ABORTED). */
  close(): Promise<void> {
    return this.#hooks.close()
  }

  // The admit context whose messages suit who reads these calls' errors (`RunOptions.audience`, else the host's).
  #admitFor(options: RunOptions): AdmitContext {
    const audience = options.audience
    const base = this.#parts.admit
    if (audience === undefined || audience === base.audience) return base
    return { registry: base.registry, get config() { return base.config }, env: base.env, canAsk: base.canAsk, audience }
  }

  readonly #warnAbandoned = (why: string, callId: string): void => {
    this.#parts.context.offers.log.warn(`${why}; its worker slot and path reservations are released now (tools must honour ctx.call.signal)`, { callId })
  }

  // A handler's `ctx.report.progress`: a `progress` event; its `ctx.report.log` line: into the host's
  // log, and a `log` event for listeners (MCP clients).
  readonly #reporter: CallReporter = {
    progress: (callId, message, progress, total) => {
      this.#parts.events.emit({ type: 'progress', id: callId, message, ...(progress === undefined ? {} : { progress }), ...(total === undefined ? {} : { total }) })
    },
    log: (callId, level, message, fields) => {
      this.#parts.context.offers.log[level](message, fields)
      if (this.#parts.events.isListening) this.#parts.events.emit({ type: 'log', id: callId, level, message, ...(fields === undefined ? {} : { fields }) })
    },
  }
}

// What the authoriser gets for an admitted call (plain fields only when set: the common item stays small).
function itemOf(a: { index: number; call: ToolCall; tool: AnyTool; args: Record<string, unknown>; hookAsk?: string | undefined }, options: RunOptions): AuthoriseItem {
  const item: AuthoriseItem = { index: a.index, call: a.call, tool: a.tool, args: a.args }
  if (a.hookAsk !== undefined) item.hookAsk = a.hookAsk
  if (options.principal !== undefined) item.principal = options.principal
  if (options.audience !== undefined) item.audience = options.audience
  return item
}
