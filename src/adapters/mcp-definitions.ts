import type { AnyTool, ContentBlock, ObjectJsonSchema, ToolResult } from '../contract/types.js'

/** MCP tool annotations (hints a client may show or use; never trusted for security). */
export interface McpToolAnnotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: boolean
}

/** One entry of an MCP `tools/list` answer; assignable to the MCP SDK's `Tool`. */
export interface McpToolDefinition {
  name: string
  description: string
  inputSchema: ObjectJsonSchema
  /** The JSON Schema of the tool's `structuredContent`, when it declares one. */
  outputSchema?: ObjectJsonSchema
  annotations: McpToolAnnotations
}

/** An MCP `tools/call` answer. */
export interface McpCallToolResult {
  [key: string]: unknown
  content: ContentBlock[]
  structuredContent?: Record<string, unknown>
  isError: boolean
}

/**
 * Derives MCP annotations from a tool's declarations. `readOnly` and `destructive` are functions of
 * the arguments, while a hint must hold for every call, so:
 * - `readOnlyHint` is true only when `readOnly` ignores its arguments (declared with no parameter)
 *   and returns true;
 * - `destructiveHint` is false for a read-only tool; otherwise it is true when `destructive` returns
 *   true for `{}`, throws, or reads its arguments (it may say true for some call).
 * Predicates are evaluated on `{}` inside try/catch: a throw counts as "cannot promise". A tool that
 * declares no `destructive` gets `destructiveHint: false`, mirroring how the host itself treats it
 * (the MCP default would be true; declare `destructive` to say so).
 *
 * @example
 * toMcpAnnotations(defineTool({ ..., readOnly: () => true })) // { readOnlyHint: true, destructiveHint: false, ... }
 */
export function toMcpAnnotations(tool: AnyTool): McpToolAnnotations {
  const readOnlyHint = tool.readOnly.length === 0 && evaluate(tool.readOnly) === true
  const destructive = evaluate(tool.destructive)
  const destructiveHint = !readOnlyHint && (destructive !== false || tool.destructive.length > 0)
  return { readOnlyHint, destructiveHint, idempotentHint: tool.idempotent, openWorldHint: tool.openWorld }
}

/**
 * The MCP form of a tool: its JSON Schemas (input, and output when declared) pass through as-is.
 *
 * @example
 * const tools = host.registry.list().map(toMcpDefinition)
 */
export function toMcpDefinition(tool: AnyTool): McpToolDefinition {
  // defineTool refuses parameters and an outputSchema whose type is not 'object'.
  const output = tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as ObjectJsonSchema }
  return { name: tool.name, description: tool.description, inputSchema: tool.parameters as ObjectJsonSchema, ...output, annotations: toMcpAnnotations(tool) }
}

/**
 * A result as an MCP `tools/call` answer: its content blocks as they are (or its text as one block),
 * its `structuredContent`, and `isError` on failure (a failure without blocks reads `E_CODE: message`,
 * so the model can act on it).
 *
 * @example
 * return toMcpCallResult(await host.call(call)) // from a tools/call handler
 */
export function toMcpCallResult(result: ToolResult): McpCallToolResult {
  const text = result.ok || !result.error ? result.content : `${result.error.code}: ${result.error.message}`
  const content = result.blocks ?? [{ type: 'text', text }]
  return { content, ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }), isError: !result.ok }
}

function evaluate(predicate: (args: Record<string, unknown>) => boolean): boolean | 'threw' {
  try {
    return predicate({}) === true
  } catch {
    return 'threw'
  }
}
