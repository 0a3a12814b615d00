import type { ToolhostConfig } from '../../config/types.js'
import { unavailableMessage, type Audience } from '../../contract/messages.js'
import type { ToolRegistry } from '../../registry/registry.js'
import { missingEnvReason, missingEnvVars } from '../../registry/tool-availability.js'
import type { AnyTool, ToolCall, ToolError } from '../../contract/types.js'
import { argumentLimitsOf } from './argument-limits.js'
import { computeFootprint, type BehaviourSets, type Footprint } from './footprint.js'
import { parseArguments, resolveTool, unknownToolError, validateArguments } from './prepare.js'
import { nameMatcher } from './name-matcher.js'

/** A call after parse, resolve, availability and validation: either ready to authorise, or failed. */
export type Admission =
  | { ok: true; index: number; call: ToolCall; tool: AnyTool; args: Record<string, unknown>; hookAsk?: string }
  | { ok: false; index: number; call: ToolCall; error: ToolError; parsed: boolean }

export interface AdmitContext {
  registry: ToolRegistry
  config: ToolhostConfig
  /** The environment `requiresEnv` is checked against (default `process.env`). */
  env?: NodeJS.ProcessEnv
  /** The host has an ask handler (tools like clarify are hidden without one). */
  canAsk?: boolean
  /** Who reads the errors (default `model`). */
  audience?: Audience
}

/**
 * A call after the synchronous steps (parse with the size and depth limits, resolve, validate),
 * before availability: `invalid` holds a schema error, reported only if the tool turns out available
 * (a hidden tool's calls are E_TOOL_UNAVAILABLE whatever their arguments).
 */
export type Staged =
  | { ok: true; index: number; call: ToolCall; tool: AnyTool; args: Record<string, unknown>; invalid: ToolError | undefined; hookAsk?: string }
  | { ok: false; index: number; call: ToolCall; error: ToolError; parsed: boolean; suggestions?: string[] }

/** Hidden tools of a batch and why, by name. */
export type HiddenTools = ReadonlyMap<string, string>

/**
 * Parse, resolve, availability (re-checked at call time: a hidden tool never runs, even by name) and
 * validation for a batch. Availability checks run once per distinct tool.
 */
export async function admitCalls(calls: readonly ToolCall[], context: AdmitContext): Promise<Admission[]> {
  const staged = stageCalls(calls, context)
  const hidden = await hiddenTools(staged, context)
  return staged.map((s) => settleStaged(s, hidden, context))
}

/**
 * The synchronous part of admission, for every call of a batch: nothing here waits, so a host can
 * run it at the moment calls arrive and reserve their places in the schedule at once.
 */
export function stageCalls(calls: readonly ToolCall[], context: AdmitContext): Staged[] {
  const { registry, config } = context
  const limits = argumentLimitsOf(config)
  // One loop, no per-call arrays: this runs for every call of every batch.
  const staged: Staged[] = new Array(calls.length)
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!
    const parsed = parseArguments(call.arguments, limits)
    if (!parsed.ok) {
      staged[index] = { ok: false, index, call, error: parsed.error, parsed: false }
      continue
    }
    // A registered name (the usual case) without resolveTool's result object.
    let tool = typeof call.name === 'string' ? registry.get(call.name) : undefined
    if (tool === undefined) {
      const resolved = resolveTool(registry, call.name)
      if (!resolved.ok) {
        staged[index] = { ok: false, index, call, error: resolved.error, parsed: true, suggestions: resolved.suggestions }
        continue
      }
      tool = resolved.tool
    }
    staged[index] = { ok: true, index, call, tool, args: parsed.args, invalid: validateArguments(registry, tool, parsed.args) }
  }
  return staged
}

/**
 * Which of the tools a batch names (or would be pointed to: a hidden tool is not suggested) are
 * hidden now, and why. Synchronous (a Map) when none of them has an availability `check` to wait
 * for; a promise otherwise, which never rejects (a check's fault or timeout hides its tool).
 */
export function hiddenTools(staged: readonly Staged[], context: AdmitContext): HiddenTools | Promise<HiddenTools> {
  const { registry } = context
  const env = context.env ?? process.env
  const hidden = new Map<string, string>()
  const checked = new Set<string>()
  for (const s of staged) {
    if (s.ok) considerTool(s.tool, env, hidden, checked)
    else if (s.suggestions) for (const name of s.suggestions) considerTool(registry.get(name), env, hidden, checked)
  }
  if (checked.size === 0) return hidden
  const names = [...checked]
  const options = { checkTimeoutMs: context.config.availability.check_timeout_ms, canAsk: context.canAsk ?? false, env }
  return registry.explainAvailability(names, options).then(
    (availability) => {
      for (const a of availability) if (!a.available) hidden.set(a.name, a.reason ?? 'unavailable')
      return hidden
    },
    // The registry turns every check's fault into a reason; this is a last resort (fail closed).
    (error: unknown) => {
      for (const name of names) hidden.set(name, `its availability could not be checked (${String(error)})`)
      return hidden
    },
  )
}

// Whether `tool` is hidden for want of an env var it requires (into `hidden`), or has an availability
// check to run (into `checked`). A function, not a closure per batch: this runs for every batch.
function considerTool(tool: AnyTool | undefined, env: NodeJS.ProcessEnv, hidden: Map<string, string>, checked: Set<string>): void {
  if (tool === undefined || hidden.has(tool.name) || checked.has(tool.name)) return
  if (tool.check !== undefined) checked.add(tool.name)
  else if (tool.requiresEnv.length > 0) {
    const missing = missingEnvReason(tool, env)
    if (missing !== undefined) hidden.set(tool.name, missing)
  }
}

/** A staged call once availability is known: admitted, or failed with the error to answer. */
export function settleStaged(s: Staged, hidden: HiddenTools, context: Pick<AdmitContext, 'env' | 'audience'>): Admission {
  if (!s.ok) {
    const suggestions = s.suggestions ?? []
    const error = hidden.size > 0 && suggestions.some((n) => hidden.has(n)) ? unknownToolError(String(s.call.name), suggestions.filter((n) => !hidden.has(n))) : s.error
    return { ok: false, index: s.index, call: s.call, error, parsed: s.parsed }
  }
  const reason = hidden.size > 0 ? hidden.get(s.tool.name) : undefined
  if (reason !== undefined) return { ok: false, index: s.index, call: s.call, parsed: true, error: unavailableError(s.tool, reason, context) }
  if (s.invalid) return { ok: false, index: s.index, call: s.call, parsed: true, error: s.invalid }
  // Admitted: the staged call is its admission as it is (no copy per call).
  return s
}

/** The E_TOOL_UNAVAILABLE error of a hidden tool, worded for whoever reads it (what would make it available). */
export function unavailableError(tool: AnyTool, reason: string, context: Pick<AdmitContext, 'env' | 'audience'>): ToolError {
  const missingEnv = missingEnvVars(tool, context.env ?? process.env)
  return { code: 'E_TOOL_UNAVAILABLE', message: unavailableMessage({ tool: tool.name, reason, missingEnv }, context.audience ?? 'model') }
}

/**
 * What makes `batch` mode run a batch serially, among its calls that failed before scheduling
 * (parse failures and unknown names, known at arrival).
 */
export function blockerOf(admissions: readonly (Admission | Staged)[]): string | undefined {
  return batchBlocker(admissions.flatMap((a) => (a.ok ? [] : [{ id: a.call.id, parsed: a.parsed, code: a.error.code }])))
}

/** The config's behaviour sets as lookups. */
export function behaviourSets(config: ToolhostConfig): BehaviourSets {
  return {
    parallelSafe: nameMatcher(config.dispatch.parallel_safe),
    neverParallel: nameMatcher(config.dispatch.never_parallel),
    pathScoped: nameMatcher(config.dispatch.path_scoped),
  }
}

export { computeFootprint, type Footprint }

/**
 * What, among the calls that failed before scheduling, makes the Hermes rule run the batch serially:
 * arguments that do not parse, or a tool name that is not registered ("unknown tool → serial").
 *
 * @example
 * batchBlocker([{ id: 'c2', parsed: false, code: 'E_ARGS_INVALID' }]) // 'c2 has arguments that do not parse'
 */
export function batchBlocker(failed: ReadonlyArray<{ id: string; parsed: boolean; code: string }>): string | undefined {
  for (const f of failed) {
    if (!f.parsed) return `${f.id} has arguments that do not parse`
    if (f.code === 'E_TOOL_UNKNOWN') return `${f.id} names an unknown tool`
  }
  return undefined
}
