import type { ToolhostConfig } from '../config/types.js'
import { unavailableMessage, type Audience } from '../messages.js'
import type { ToolRegistry } from '../registry.js'
import type { AnyTool, ToolCall, ToolError } from '../types.js'
import { computeFootprint, type BehaviourSets, type Footprint } from './footprint.js'
import { parseArguments, resolveTool, unknownToolError, validateArguments } from './prepare.js'
import { nameMatcher } from './name-matcher.js'

/** A call after parse, resolve, availability and validation: either ready to authorise, or failed. */
export type Admission =
  | { ok: true; index: number; call: ToolCall; tool: AnyTool; args: Record<string, unknown> }
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
 * Parse, resolve, availability (re-checked at call time: a hidden tool never runs, even by name) and
 * validation for a batch. Availability checks run once per distinct tool.
 */
export async function admitCalls(calls: readonly ToolCall[], context: AdmitContext): Promise<Admission[]> {
  const { registry, config } = context
  const maxChars = config.limits.max_argument_chars
  // One loop, no per-call arrays: this runs for every call of every batch.
  const staged: Staged[] = new Array(calls.length)
  // Tools to check: those called, and those an unknown name would be pointed to (a hidden tool is
  // not suggested: the model would only get E_TOOL_UNAVAILABLE next). Distinct, first use first.
  const names = new Set<string>()
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!
    const parsed = parseArguments(call.arguments, maxChars)
    if (!parsed.ok) {
      staged[index] = { ok: false, index, call, error: parsed.error, parsed: false }
      continue
    }
    const resolved = resolveTool(registry, call.name)
    if (!resolved.ok) {
      staged[index] = { ok: false, index, call, error: resolved.error, parsed: true, suggestions: resolved.suggestions }
      for (const name of resolved.suggestions) names.add(name)
      continue
    }
    staged[index] = { ok: true, index, call, tool: resolved.tool, args: parsed.args }
    names.add(resolved.tool.name)
  }
  const needsCheck: string[] = []
  for (const n of names) {
    const tool = registry.get(n)
    if (tool !== undefined && (tool.check !== undefined || tool.requiresEnv.length > 0)) needsCheck.push(n)
  }
  const hidden = new Map<string, string>()
  if (needsCheck.length > 0) {
    for (const a of await registry.explainAvailability(needsCheck, { checkTimeoutMs: config.availability.check_timeout_ms, canAsk: context.canAsk ?? false, ...(context.env ? { env: context.env } : {}) })) {
      if (!a.available) hidden.set(a.name, a.reason ?? 'unavailable')
    }
  }
  const admissions: Admission[] = new Array(staged.length)
  const env = context.env ?? process.env
  const unavailable = (tool: AnyTool, reason: string): string =>
    unavailableMessage({ tool: tool.name, reason, missingEnv: tool.requiresEnv.filter((n) => !(Object.hasOwn(env, n) && env[n])) }, context.audience ?? 'model')
  for (let i = 0; i < staged.length; i++) admissions[i] = settle(staged[i]!, registry, hidden, unavailable)
  return admissions
}

type Staged =
  | { ok: true; index: number; call: ToolCall; tool: AnyTool; args: Record<string, unknown> }
  | { ok: false; index: number; call: ToolCall; error: ToolError; parsed: boolean; suggestions?: string[] }

// Availability (hidden tools) and validation of one staged call.
function settle(s: Staged, registry: ToolRegistry, hidden: ReadonlyMap<string, string>, unavailable: (tool: AnyTool, reason: string) => string): Admission {
  if (!s.ok) {
    const suggestions = s.suggestions ?? []
    const error = hidden.size > 0 && suggestions.some((n) => hidden.has(n)) ? unknownToolError(String(s.call.name), suggestions.filter((n) => !hidden.has(n))) : s.error
    return { ok: false, index: s.index, call: s.call, error, parsed: s.parsed }
  }
  const reason = hidden.size > 0 ? hidden.get(s.tool.name) : undefined
  if (reason !== undefined) {
    return { ok: false, index: s.index, call: s.call, parsed: true, error: { code: 'E_TOOL_UNAVAILABLE', message: unavailable(s.tool, reason) } }
  }
  const invalid = validateArguments(registry, s.tool, s.args)
  if (invalid) return { ok: false, index: s.index, call: s.call, parsed: true, error: invalid }
  return s
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
