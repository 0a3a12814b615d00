import { UnreadableArguments } from '../../adapters/parse-batch.js'
import { describeSchemaErrors } from '../../registry/schema.js'
import type { ToolRegistry } from '../../registry/registry.js'
import type { AnyTool, ToolCall, ToolError } from '../../contract/types.js'
import { checkArgumentLimits, copyArguments, type ArgumentLimits } from './argument-limits.js'
import { shownName, suggestNames } from './suggest.js'
import { CALL_ERRORS } from '../../contract/call-errors.js'

export type Prepared =
  | { ok: true; tool: AnyTool; args: Record<string, unknown> }
  | { ok: false; error: ToolError }

/**
 * Parse: raw JSON text -> object. "" or whitespace (or null/undefined) means {}; anything that is not a
 * JSON object is E_ARGS_INVALID quoting the parser; text over `limits.maxChars` is refused before
 * parsing. Every shape (text or an object) is then held to the size and depth limits, so nothing
 * later walks a value deeper or larger than they allow.
 */
export function parseArguments(raw: ToolCall['arguments'], limits: ArgumentLimits): { ok: true; args: Record<string, unknown> } | { ok: false; error: ToolError } {
  if (raw === undefined || raw === null) return { ok: true, args: {} }
  if (raw instanceof UnreadableArguments) return invalid(raw.reason)
  if (typeof raw === 'object') {
    // Objects handed over as objects (host.run, Anthropic input, MCP arguments) are read once, into
    // a copy: what the limits, schema, rules and handler see is the same plain data.
    const copied = copyArguments(raw, limits)
    if (!copied.ok) return invalid(copied.problem)
    return Array.isArray(copied.args) ? invalid('the arguments must be a JSON object, got an array') : { ok: true, args: copied.args }
  }
  if (typeof raw !== 'string') return invalid(`the arguments must be a JSON object, got ${typeof raw}`)
  const maxChars = limits.maxChars
  if (raw.length > maxChars) {
    return invalid(`the arguments are ${raw.length} characters, over the limit of ${maxChars}; send less data per call (split it, or write it to a file first)`)
  }
  if (raw.trim() === '') return { ok: true, args: {} }
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (error) {
    return invalid(`the arguments are not valid JSON (${(error as Error).message}); send one JSON object`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(`the arguments must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`)
  }
  const problem = checkArgumentLimits(value, limits, false)
  return problem === undefined ? { ok: true, args: value as Record<string, unknown> } : invalid(problem)
}

/**
 * Resolve: name -> tool, or E_TOOL_UNKNOWN naming the closest registered names (`suggestions`, so
 * the caller can drop the ones hidden right now and word the error again with `unknownToolError`).
 */
export function resolveTool(registry: ToolRegistry, name: string): { ok: true; tool: AnyTool } | { ok: false; error: ToolError; suggestions: string[] } {
  const tool = typeof name === 'string' ? registry.get(name) : undefined
  if (tool) return { ok: true, tool }
  const names = registry.list().map((t) => t.name)
  const suggestions = suggestNames(String(name), names)
  return { ok: false, error: unknownToolError(String(name), suggestions), suggestions }
}

/** The E_TOOL_UNKNOWN error for `name`, suggesting `suggestions` when there are any. */
export function unknownToolError(name: string, suggestions: readonly string[]): ToolError {
  return CALL_ERRORS.unknownTool(shownName(name), suggestions)
}

/** Validate: against the schema compiled at registration; each bad field named by its path. */
export function validateArguments(registry: ToolRegistry, tool: AnyTool, args: Record<string, unknown>): ToolError | undefined {
  const entry = registry.entry(tool.name)
  if (!entry) return CALL_ERRORS.removedTool(tool.name)
  if (entry.validate(args)) return undefined
  const problems = describeSchemaErrors(entry.validate.errors, args)
  return {
    code: 'E_ARGS_INVALID',
    message: `invalid arguments for ${tool.name}: ${problems.join('; ')}. Fix these fields and call again.`,
  }
}

function invalid(message: string): { ok: false; error: ToolError } {
  return { ok: false, error: { code: 'E_ARGS_INVALID', message } }
}
