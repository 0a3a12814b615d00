import PQueue from 'p-queue'
import type { HiddenTools, Staged } from '../dispatch/admit/admit.js'
import { argumentLimitsOf } from '../dispatch/admit/argument-limits.js'
import type { AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import { capText } from '../dispatch/results/shape-result.js'
import type { JobOutcome } from '../dispatch/schedule/scheduler-types.js'
import { CallHookSet } from '../hooks/call-hooks.js'
import type { CallHooks } from '../contract/hook-types.js'
import { runAfterHooks } from '../hooks/run-after-hooks.js'
import { runBeforeHooks, type HookRecord } from '../hooks/run-before-hooks.js'
import type { Authoriser } from '../permissions/authoriser.js'
import type { HostContext } from '../contract/host-context.js'
import type { ToolEntries } from '../registry/registry.js'
import { abbreviate } from '../permissions/canonical-json.js'
import type { ToolResult } from '../contract/types.js'
import type { PluginHooks } from '../registry/plugin-hooks.js'

/**
 * The ports the hook stage is given (the host builds them; the stage never sees the host): the host's
 * context (its config in force carries config.yaml's `hooks`), the hooks given in code, the
 * registry's entries and plugin hooks, and the audit log each decision is added to.
 */
export interface HookStageParts {
  readonly context: HostContext
  readonly codeHooks: CallHooks | undefined
  readonly registry: ToolEntries & { readonly hooks: PluginHooks }
  readonly authoriser: Pick<Authoriser, 'audit'>
}

/** A hook's decision about one call, as the stage reports it (the host makes it a `hook` event). */
export type HookDecisionReport = (callId: string, tool: string, record: HookRecord) => void

// Hooks of many calls run at once, but no more than this many at a time (each may be a process).
const HOOKS_AT_ONCE = 8

/**
 * Hooks in the pipeline. Before-hooks run after validation and availability and before the
 * permission system: a rewrite is checked like the model's arguments, then authorised and
 * footprinted like any call, so nothing is reserved for arguments that will not run. After-hooks run
 * on the shaped result of a call whose handler ran. Every hook's decision goes to the audit log.
 * The hooks in force are config.yaml's (live: a reloaded file's hooks apply to the next batch),
 * then the host's code hooks.
 *
 * @example
 * const hooks = stage.inForce()
 * if (stage.hasBefore(staged, hooks)) staged = await stage.before(staged, hidden, hooks, signal)
 */
export class HookStage {
  readonly #parts: HookStageParts
  readonly #queue = new PQueue({ concurrency: HOOKS_AT_ONCE })
  // The host is closing: hooks still running are stopped, and no batch is admitted after them.
  readonly #closing = new AbortController()
  readonly #inFlight = new Set<Promise<unknown>>()
  readonly #report: HookDecisionReport
  #from: HostContext['settings']['config']['hooks'] | undefined
  #pluginsVersion = -1
  #set: CallHookSet | undefined

  constructor(parts: HookStageParts, report: HookDecisionReport = () => {}) {
    this.#parts = parts
    this.#report = report
  }

  /** The hooks in force now; undefined when there are none (the common case costs two comparisons). */
  inForce(): CallHookSet | undefined {
    const config = this.#parts.context.settings.config.hooks
    const plugins = this.#parts.registry.hooks
    if (config !== this.#from || plugins.version !== this.#pluginsVersion) {
      this.#from = config
      this.#pluginsVersion = plugins.version
      const set = CallHookSet.from(config, this.#parts.codeHooks, plugins.list())
      this.#set = set.isEmpty ? undefined : set
    }
    return this.#set
  }

  /** The hooks a call of `tool` goes through now, in order (`before_call hooks.before_call[0]`): what `explain` names. */
  namesFor(tool: string): string[] {
    const hooks = this.inForce()
    if (hooks === undefined) return []
    return [...hooks.beforeFor(tool).map((h) => `before_call ${h.name}`), ...hooks.afterFor(tool).map((h) => `after_call ${h.name}`)]
  }

  /** True when a call of the batch that may run has a before-hook. */
  hasBefore(staged: readonly Staged[], hooks: CallHookSet): boolean {
    return hooks.before.length > 0 && staged.some((s) => s.ok && s.invalid === undefined && hooks.beforeFor(s.tool.name).length > 0)
  }

  /**
   * The batch after its before-hooks: a refused call becomes a failed one (its error is its result),
   * a rewritten call carries its new arguments, a call a hook asks about carries `hookAsk`. Calls of
   * hidden tools and calls with invalid arguments are left as they are (they never run).
   */
  before(staged: readonly Staged[], hidden: HiddenTools, hooks: CallHookSet, signal: AbortSignal | undefined, principal?: string): Promise<Staged[]> {
    const { context: host, registry } = this.#parts
    const check = { limits: argumentLimitsOf(host.settings.config), registry }
    const context = { root: host.workspace.root, env: host.settings.env, signal: signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal }
    const done = Promise.all(
      staged.map(async (s): Promise<Staged> => {
        if (!s.ok || s.invalid !== undefined || hidden.has(s.tool.name)) return s
        const chain = hooks.beforeFor(s.tool.name)
        if (chain.length === 0) return s
        const out = await this.#queue.add(() => runBeforeHooks(chain, { id: s.call.id, tool: s.tool.name, args: s.args }, check, context))
        this.#record(out.records, s.call.id, s.tool.name, s.args, principal)
        if (!out.run) return { ok: false, index: s.index, call: s.call, error: out.error, parsed: true }
        const next: Staged = { ...s, args: out.args }
        if (out.ask !== undefined) next.hookAsk = out.ask
        return next
      }),
    )
    this.#inFlight.add(done)
    void done.finally(() => this.#inFlight.delete(done))
    return done
  }

  /** True once the host is closing: a batch whose hooks were running is not admitted. */
  get isClosing(): boolean {
    return this.#closing.signal.aborted
  }

  /** The host is closing: stops the hooks still running (their calls are E_ABORTED) and waits for them. */
  async close(): Promise<void> {
    this.#closing.abort(new Error('the host closed'))
    await Promise.allSettled([...this.#inFlight])
  }

  /** True when a call of `tool` has after-hooks in `hooks`. */
  hasAfter(hooks: CallHookSet, tool: string): boolean {
    return hooks.after.length > 0 && hooks.afterFor(tool).length > 0
  }

  /**
   * The call's result once its after-hooks have read it (only for a call whose handler ran: `done.ran`;
   * a call refused or skipped keeps its error). `ran`: the arguments the handler ran with.
   */
  async after(hooks: CallHookSet, done: JobOutcome, result: ToolResult, item: AuthoriseItem, ran: Record<string, unknown>, signal: AbortSignal | undefined): Promise<ToolResult> {
    const chain = hooks.afterFor(item.tool.name)
    if (chain.length === 0 || !done.ran) return result
    const host = this.#parts.context
    const limit = item.tool.maxResultChars === undefined ? host.settings.config.limits.max_result_chars : item.tool.maxResultChars
    const out = await this.#queue.add(() => runAfterHooks(chain, ran, result, (text) => capText(text, limit), { root: host.workspace.root, env: host.settings.env, signal }))
    this.#record(out.records, item.call.id, item.tool.name, ran, item.principal)
    return out.result
  }

  // One audit line per hook decision, beside the permission system's (when the authoriser keeps a
  // log), and one report (the host's `hook` event) each.
  #record(records: readonly HookRecord[], callId: string, tool: string, args: Record<string, unknown>, principal: string | undefined): void {
    for (const r of records) this.#report(callId, tool, r)
    const audit = this.#parts.authoriser.audit
    if (audit === undefined || records.length === 0) return
    const time = new Date().toISOString()
    const mode = this.#parts.context.settings.config.permissions.mode
    let shown: unknown
    try {
      shown = abbreviate(args, 2000)
    } catch {
      shown = '[the arguments could not be recorded]'
    }
    for (const r of records) audit.record({ time, callId, tool, args: shown, subject: '', mode, decision: r.decision, by: 'hook', hook: `${r.event} ${r.hook}`, reason: r.reason, ...(principal === undefined ? {} : { principal }) })
  }
}
