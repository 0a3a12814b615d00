import type { StrictTools } from '../dispatch/admit/strict-tools.js'
import { blockerOf, hiddenTools, settleStaged, stageCalls, type AdmitContext, type Admission, type HiddenTools, type Staged } from '../dispatch/admit/admit.js'
import { argumentLimitsOf } from '../dispatch/admit/argument-limits.js'
import { CallContext, type CallReporter, type SharedContext } from '../dispatch/execute/call-context.js'
import { executeCall, type Execution } from '../dispatch/execute/execute-call.js'
import type { Footprint } from '../dispatch/admit/footprint.js'
import { claimsAcrossHosts } from '../store/claims.js'
import { authoriserFailed, decideHeld, NO_DECISION, openHeld, type HeldCall } from '../dispatch/admit/held-calls.js'
import { planModeWaits } from '../dispatch/schedule/plan.js'
import type { ResultShaper } from '../dispatch/results/result-shaper.js'
import type { JobOutcome, SchedulableCall, Scheduler, SubmitOptions } from '../dispatch/schedule/scheduler.js'
import type { AuthoriseDecision, AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { HostEvent } from '../observe/host-events.js'
import type { RunOptions } from './host-types.js'
import type { Authoriser, AuthorisingHost } from '../permissions/authoriser.js'
import type { DispatchMode } from '../config/types.js'
import type { ToolRegistry } from '../registry/registry.js'
import type { Listeners } from '../contract/listeners.js'
import type { AnyTool, ToolCall, ToolError, ToolResult } from '../contract/types.js'
import type { CallHookSet } from '../hooks/call-hooks.js'
import { AdmittedCall, type StartCall } from './admitted-call.js'
import { BatchResults } from './batch-results.js'
import { HookStage, type HookingHost } from './hook-stage.js'

const HOST_CLOSED: ToolError = { code: 'E_ABORTED', message: 'the call was not run: the host closed while its batch\'s hooks ran' }

/**
 * What admission reads of its host (the host satisfies it as it is): the calls' shared context, what
 * an authoriser is shown, the authoriser and mode, and each call's footprint. The config is read per
 * batch and per call (a reloaded config.yaml's live keys apply at once).
 */
export interface AdmittingHost extends SharedContext, AuthorisingHost, HookingHost {
  readonly registry: ToolRegistry
  readonly authoriser: Authoriser
  readonly mode: DispatchMode
  footprintOf(tool: AnyTool, args: Record<string, unknown>): Footprint
}

/** The host's parts a batch goes through on arrival. */
export interface AdmissionParts {
  host: AdmittingHost
  scheduler: Scheduler
  /** OpenAI strict mode's tools: the nulls it made the model send are removed first. */
  strict: StrictTools
  admit: AdmitContext
  events: Listeners<HostEvent>
  results: ResultShaper
  now: () => number
}

/**
 * Admission at arrival: a batch's calls take their places in the schedule the moment they arrive
 * (arrival order is scheduling order across every run and client). When everything is decided at
 * once they are scheduled as decided; when something must be waited for (an availability check, a
 * tool's permission check, a custom authoriser) each call is scheduled behind a gate that holds up
 * only the calls that conflict with it. Calls refused before scheduling get their error results.
 *
 * @example
 * const admission = new HostAdmission({ host, scheduler, strict, admit, events, results, now })
 * const results = await Promise.all(admission.schedule(calls, { trace: true }))
 */
export class HostAdmission {
  readonly #host: AdmittingHost
  readonly #scheduler: Scheduler
  readonly #strict: StrictTools
  readonly #admit: AdmitContext
  readonly #events: Listeners<HostEvent>
  readonly #results: ResultShaper
  readonly #now: () => number
  readonly #hooks: HookStage
  #batches = 0

  constructor(parts: AdmissionParts) {
    this.#host = parts.host
    this.#scheduler = parts.scheduler
    this.#strict = parts.strict
    this.#admit = parts.admit
    this.#events = parts.events
    this.#results = parts.results
    this.#now = parts.now
    this.#hooks = new HookStage(parts.host, (id, name, r) => {
      if (this.#events.isListening) this.#events.emit({ type: 'hook', id, name, at: this.#now(), event: r.event, hook: r.hook, decision: r.decision, reason: r.reason })
    })
  }

  /** The host is closing: before-hooks still running are stopped, and their batches refused (E_ABORTED). */
  close(): Promise<void> {
    return this.#hooks.close()
  }

  /** The hooks a call of `tool` would go through now (`explain` names them; it runs none). */
  hooksFor(tool: string): string[] {
    return this.#hooks.namesFor(tool)
  }

  /**
   * Every result of the batch, in call order, as one promise (`host.run`); never rejects for a
   * call's fault. A batch with no hooks in force and nobody listening, decided at once, is answered
   * through a sink (`BatchResults`): no promise per call. Any other goes through `schedule`.
   */
  run(given: readonly ToolCall[], options: RunOptions): Promise<ToolResult[]> {
    if (this.#hooks.inForce() !== undefined || this.#events.isListening) return Promise.all(this.schedule(given, options))
    const staged = this.#stage(given)
    const batch = ++this.#batches
    const hidden = hiddenTools(staged, this.#admit)
    return (hidden instanceof Promise ? undefined : this.#admitNowInto(staged, hidden, options, batch)) ?? Promise.all(this.#admitGated(staged, hidden, options, batch, undefined))
  }

  /** One promised result per call, in call order; none rejects for a call's fault. */
  schedule(given: readonly ToolCall[], options: RunOptions): Promise<ToolResult>[] {
    const staged = this.#stage(given)
    const batch = ++this.#batches
    const hooks = this.#hooks.inForce()
    if (hooks !== undefined && this.#hooks.hasBefore(staged, hooks)) return this.#admitHooked(staged, hooks, options, batch)
    const hidden = hiddenTools(staged, this.#admit)
    return (hidden instanceof Promise ? undefined : this.#admitNow(staged, hidden, options, batch, hooks)) ?? this.#admitGated(staged, hidden, options, batch, hooks)
  }

  // The batch's calls staged (each looked up and its arguments validated), after the nulls strict
  // mode introduced are taken out of the calls to tools offered strictly.
  #stage(given: readonly ToolCall[]): Staged[] {
    const host = this.#host
    return stageCalls(this.#strict.prepare(given, host.registry, argumentLimitsOf(host.config)), this.#admit)
  }

  // The context whose messages suit who reads these calls' errors (`RunOptions.audience`, else the host's).
  #admitFor(options: RunOptions): AdmitContext {
    const audience = options.audience
    if (audience === undefined || audience === this.#admit.audience) return this.#admit
    const base = this.#admit
    return { registry: base.registry, get config() { return base.config }, env: base.env, canAsk: base.canAsk, audience }
  }

  // Before-hooks first (after availability, before the permission system): the batch takes its
  // place in the schedule once they have answered, with the arguments they left, so every
  // reservation is made for the arguments that will run.
  #admitHooked(staged: readonly Staged[], hooks: CallHookSet, options: RunOptions, batch: number): Promise<ToolResult>[] {
    const admitted = Promise.resolve(hiddenTools(staged, this.#admit)).then(async (hidden) => {
      const hooked = await this.#hooks.before(staged, hidden, hooks, options.signal, options.principal)
      // The host closed while the hooks ran: nothing of the batch may start on it now.
      if (this.#hooks.isClosing) return hooked.map((s) => Promise.resolve(this.#refuse(s.call, s.ok ? HOST_CLOSED : s.error, options.trace ?? false, batch)))
      return this.#admitNow(hooked, hidden, options, batch, hooks) ?? this.#admitGated(hooked, hidden, options, batch, hooks)
    })
    return staged.map((_, i) => admitted.then((results) => results[i]!))
  }

  // Everything decided at once (no check to wait for): the calls allowed are scheduled now.
  #admitNow(staged: readonly Staged[], hidden: HiddenTools, options: RunOptions, batch: number, hooks: CallHookSet | undefined): Promise<ToolResult>[] | undefined {
    const decided = this.#decideNow(staged, hidden, options)
    if (decided === undefined) return undefined
    const { admissions, items, decisions } = decided
    const trace = options.trace ?? false
    const results: Promise<ToolResult>[] = new Array(staged.length)
    for (const a of admissions) if (!a.ok) results[a.index] = Promise.resolve(this.#refuse(a.call, a.error, trace, batch))
    // Checked once per batch: with no listener, no event object is built (see Scheduler).
    const listening = this.#events.isListening
    // Parallel arrays (no wrapper object per call): the call to schedule, and the item it came from.
    const scheduledItems: AuthoriseItem[] = []
    const scheduledArgs: Record<string, unknown>[] = []
    const toSchedule: SchedulableCall[] = []
    for (let k = 0; k < items.length; k++) {
      const item = items[k]!
      const decision = decisions[k] ?? NO_DECISION
      if (!decision.run) {
        results[item.index] = Promise.resolve(this.#refuse(item.call, decision.error, trace, batch))
        continue
      }
      const args = decision.args
      const call = this.#schedulable(item, decision)
      if (listening) this.#announce(item, call, batch, args)
      scheduledItems.push(item)
      scheduledArgs.push(args)
      toSchedule.push(call)
    }
    const outcomes = this.#submit(toSchedule, admissions, options)
    for (let k = 0; k < scheduledItems.length; k++) {
      const item = scheduledItems[k]!
      const shaped = this.#results.whenDone(outcomes[k]!, item, trace)
      results[item.index] = this.#reportAnswer(item.call.id, hooks === undefined ? shaped : this.#hooks.after(hooks, outcomes[k]!, shaped, item, scheduledArgs[k]!, options.signal))
    }
    return results
  }

  // `#admitNow` for `run`, with no hooks and nobody listening: results go into the batch's sink.
  #admitNowInto(staged: readonly Staged[], hidden: HiddenTools, options: RunOptions, batch: number): Promise<ToolResult[]> | undefined {
    const decided = this.#decideNow(staged, hidden, options)
    if (decided === undefined) return undefined
    const { admissions, items, decisions } = decided
    const trace = options.trace ?? false
    const into = new BatchResults(staged.length, this.#results, trace)
    for (const a of admissions) if (!a.ok) into.put(a.index, this.#refuse(a.call, a.error, trace, batch))
    const toSchedule: SchedulableCall[] = []
    for (let k = 0; k < items.length; k++) {
      const item = items[k]!
      const decision = decisions[k] ?? NO_DECISION
      if (!decision.run) {
        into.put(item.index, this.#refuse(item.call, decision.error, trace, batch))
        continue
      }
      into.items.push(item)
      toSchedule.push(this.#schedulable(item, decision))
    }
    this.#scheduler.submitTo(toSchedule, into, this.#submitOptions(toSchedule, admissions, options))
    return into.promise
  }

  // Availability settled and the authoriser asked, for a batch decided at once; undefined when the
  // authoriser must be waited for.
  #decideNow(staged: readonly Staged[], hidden: HiddenTools, options: RunOptions): { admissions: Admission[]; items: AuthoriseItem[]; decisions: AuthoriseDecision[] } | undefined {
    const admit = this.#admitFor(options)
    const admissions: Admission[] = new Array(staged.length)
    const items: AuthoriseItem[] = []
    for (let i = 0; i < staged.length; i++) {
      const a = (admissions[i] = settleStaged(staged[i]!, hidden, admit))
      if (a.ok) items.push(itemOf(a, options))
    }
    const decisions = items.length > 0 ? this.#authorise(items, options.signal, true) : []
    return decisions === undefined ? undefined : { admissions, items, decisions }
  }

  // What the scheduler gets for an allowed call: its footprint, how to start it, its profile, its gate.
  #schedulable(item: AuthoriseItem, decision: Extract<AuthoriseDecision, { run: true }>): SchedulableCall {
    const args = decision.args
    const call = new AdmittedCall(item, args, this.#host.footprintOf(item.tool, args), this.#scheduler.profileOf(item.tool.name, item.tool.toolset), this.#startCall)
    if (!claimsAcrossHosts(item.tool)) call.crossHost = false
    if (decision.gate) call.gate = decision.gate
    return call
  }

  // Something must be waited for: every call with valid arguments is scheduled now with the
  // footprint of its arguments, behind a gate that opens once availability and permission are decided.
  #admitGated(staged: readonly Staged[], hidden: HiddenTools | Promise<HiddenTools>, options: RunOptions, batch: number, hooks: CallHookSet | undefined): Promise<ToolResult>[] {
    const trace = options.trace ?? false
    const admit = this.#admitFor(options)
    const known = Promise.resolve(hidden)
    const results: Promise<ToolResult>[] = new Array(staged.length)
    const held: HeldCall[] = []
    for (const s of staged) {
      if (!s.ok || s.invalid) {
        // Not scheduled; its error waits for availability (a hidden tool is named as hidden, not invalid).
        results[s.index] = known.then((h) => {
          const a = settleStaged(s, h, admit)
          return this.#refuse(s.call, a.ok ? NO_DECISION.error : a.error, trace, batch)
        })
        continue
      }
      const item = itemOf(s, options)
      held.push({ item, footprint: this.#host.footprintOf(s.tool, s.args), args: s.args })
    }
    const decided = decideHeld(held, known, (items) => this.#authorise(items, options.signal, false), admit)
    const footprintOf = (tool: AnyTool, args: Record<string, unknown>): Footprint => this.#host.footprintOf(tool, args)
    const listening = this.#events.isListening
    const open = (h: HeldCall, decision: AuthoriseDecision | ToolError): ReturnType<typeof openHeld> => (listening ? this.#openAnnounced(h, decision, footprintOf) : openHeld(h, decision, footprintOf))
    const toSchedule = held.map((h, k): SchedulableCall => {
      const call: SchedulableCall = { id: h.item.call.id, footprint: h.footprint, gate: decided.then((all) => open(h, all[k]!)), start: this.#heldStarter(h), profile: this.#scheduler.profileOf(h.item.tool.name, h.item.tool.toolset) }
      if (!claimsAcrossHosts(h.item.tool)) call.crossHost = false
      return call
    })
    // Held while availability and permission are decided: listeners see 'check', then how it came out.
    if (listening) held.forEach((h, k) => this.#events.emit({ type: 'admitted', id: h.item.call.id, name: h.item.tool.name, batch, at: this.#now(), footprint: toSchedule[k]!.footprint.kind, permission: 'check', arguments: h.args }))
    const outcomes = this.#submit(toSchedule, staged, options)
    for (let k = 0; k < held.length; k++) {
      const h = held[k]!
      const shaped = this.#results.whenDone(outcomes[k]!, h.item, trace)
      // The arguments the handler ran with: a permission check may have narrowed them at the gate.
      results[h.item.index] = this.#reportAnswer(h.item.call.id, hooks === undefined ? shaped : this.#hooks.after(hooks, outcomes[k]!, shaped, h.item, () => h.args, options.signal))
    }
    return results
  }

  #submit(toSchedule: SchedulableCall[], staged: readonly (Admission | Staged)[], options: RunOptions): Promise<JobOutcome>[] {
    return this.#scheduler.submit(toSchedule, this.#submitOptions(toSchedule, staged, options))
  }

  #submitOptions(toSchedule: SchedulableCall[], staged: readonly (Admission | Staged)[], options: RunOptions): SubmitOptions {
    const mode = options.mode ?? this.#host.mode
    const submit: SubmitOptions = {}
    // `graph` adds no waits of its own; only `batch` reads the blocker.
    if (mode !== 'graph') submit.modeWaits = planModeWaits(mode, toSchedule, mode === 'batch' ? blockerOf(staged) : undefined)
    if (options.signal) submit.signal = options.signal
    return submit
  }

  // The authoriser's decisions, made at once where it can (`authoriseNow`; undefined when it cannot
  // and `now` is asked), else awaited. A fault in it refuses each call instead of rejecting the batch.
  #authorise(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: true): AuthoriseDecision[] | undefined
  #authorise(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: false): AuthoriseDecision[] | Promise<AuthoriseDecision[]>
  #authorise(items: readonly AuthoriseItem[], signal: AbortSignal | undefined, now: boolean): AuthoriseDecision[] | Promise<AuthoriseDecision[]> | undefined {
    const host = this.#host
    const context = { signal, host }
    try {
      const decided = host.authoriser.authoriseNow?.(items, context)
      if (decided !== undefined || now) return decided
      return host.authoriser.authorise(items, context).catch((error: unknown) => items.map(() => authoriserFailed(error)))
    } catch (error) {
      return items.map(() => authoriserFailed(error))
    }
  }

  // One per host: every call decided at once starts through it (AdmittedCall).
  readonly #startCall: StartCall = (item, args) => this.#start(item, args)

  // Hot path: the closure is returned, not assigned to a named property, because tsx (esbuild
  // keepNames) wraps a named closure in a defineProperty call that costs microseconds per call.
  #heldStarter(h: HeldCall): () => Execution {
    return () => this.#start(h.item, h.args)
  }

  // The handler starts, with its context (whose signal, progress, log and asker are made on first use).
  #start(item: AuthoriseItem, args: Record<string, unknown>): Execution {
    const host = this.#host
    const controller = new AbortController()
    const context = new CallContext(host, item.call.id, controller, this.#reporter)
    const dispatch = host.config.dispatch
    return executeCall(item.tool, args, context, controller, { timeoutMs: item.tool.timeoutMs ?? dispatch.timeout_ms, graceMs: dispatch.interrupt_grace_ms, onAbandon: this.#warnAbandoned })
  }

  readonly #warnAbandoned = (why: string, callId: string): void => {
    this.#host.log.warn(`${why}; its worker slot and path reservations are released now (tools must honour ctx.signal)`, { callId })
  }

  // A handler's `ctx.progress` report: a `progress` event; its `ctx.log` line: into the host's log,
  // and a `log` event for listeners (MCP clients).
  readonly #reporter: CallReporter = {
    progress: (callId, message, progress, total) => {
      this.#events.emit({ type: 'progress', id: callId, message, ...(progress === undefined ? {} : { progress }), ...(total === undefined ? {} : { total }) })
    },
    log: (callId, level, message, fields) => {
      this.#host.log[level](message, fields)
      if (this.#events.isListening) this.#events.emit({ type: 'log', id: callId, level, message, ...(fields === undefined ? {} : { fields }) })
    },
  }

  // A call refused before scheduling: its error result, and (for listeners) a 'refused' event.
  #refuse(call: ToolCall, error: ToolError, trace: boolean, batch: number): ToolResult {
    const result = this.#results.error(call, error, trace)
    if (this.#events.isListening) this.#events.emit({ type: 'refused', id: call.id, name: result.name, batch, at: this.#now(), code: error.code, message: error.message })
    return result
  }

  // For listeners, just before the call is submitted: 'admitted' (its tool, batch, footprint kind,
  // and whether it waits for a person), and an 'approval' event when its gate opens or refuses.
  #announce(item: AuthoriseItem, call: SchedulableCall, batch: number, args: Record<string, unknown>): void {
    const id = item.call.id
    const gate = call.gate
    if (gate) {
      call.gate = gate.then((error) => {
        this.#events.emit({ type: 'approval', id, at: this.#now(), outcome: error ? 'denied' : 'approved', ...(error ? { code: error.code } : {}) })
        return error
      })
    }
    this.#events.emit({ type: 'admitted', id, name: item.tool.name, batch, at: this.#now(), footprint: call.footprint.kind, permission: gate ? 'ask' : 'allow', arguments: args })
  }

  // For listeners: an 'answered' event once the caller's result is ready (the promise itself is
  // returned untouched; a result promise never rejects, the guard only keeps a fault quiet).
  #reportAnswer(id: string, result: Promise<ToolResult>): Promise<ToolResult> {
    if (this.#events.isListening) {
      result.then((r) => {
        if (this.#events.isListening) this.#events.emit({ type: 'answered', id, at: this.#now(), result: r })
      }, () => {})
    }
    return result
  }

  // A held call's checks came out (for listeners): allowed, refused, or asking a person, whose
  // answer is then an 'approval' event. Only a person's answer is an approval.
  #openAnnounced(h: HeldCall, decision: AuthoriseDecision | ToolError, footprintOf: (tool: AnyTool, args: Record<string, unknown>) => Footprint): ReturnType<typeof openHeld> {
    const id = h.item.call.id
    const opened = openHeld(h, decision, footprintOf)
    if (!(opened instanceof Promise)) {
      this.#events.emit({ type: 'checked', id, at: this.#now(), outcome: opened ? 'refused' : 'allowed', ...(opened ? { code: opened.code } : {}) })
      return opened
    }
    this.#events.emit({ type: 'checked', id, at: this.#now(), outcome: 'asking' })
    return opened.then((error) => {
      this.#events.emit({ type: 'approval', id, at: this.#now(), outcome: error ? 'denied' : 'approved', ...(error ? { code: error.code } : {}) })
      return error
    })
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
