import { describeThrown } from '../../contract/errors.js'
import { isCallToolResult, renderBlocksAsText } from '../../contract/content-blocks.js'
import { describeSchemaErrors, type ValidateFunction } from '../../registry/schema.js'
import type { ContentBlock, ToolError } from '../../contract/types.js'
import { detachString } from './limit-content.js'

/** A handler's value, shaped: the text rendering, and the blocks and structured content when there are any. */
export type ShapedValue =
  | { ok: true; content: string; blocks?: ContentBlock[]; structuredContent?: Record<string, unknown> }
  | { ok: false; error: ToolError; blocks?: ContentBlock[] }

/**
 * A handler's value as a result. Three forms are accepted:
 * - a string: the text;
 * - an MCP `CallToolResult`-shaped object (`{ content: ContentBlock[], structuredContent?, isError? }`,
 *   recognised strictly by `isCallToolResult`): its blocks, with `isError: true` an E_TOOL_FAILED
 *   result carrying the blocks' text;
 * - any other JSON value: its JSON text (and, when the tool declares an `outputSchema`, a plain
 *   object is its structured content too).
 * With `validateOutput` (the tool's compiled `outputSchema`) a successful result must carry
 * structured content that matches it; a mismatch is E_TOOL_FAILED naming the field.
 *
 * @example
 * shapeValue('chart', { content: [{ type: 'image', data, mimeType: 'image/png' }] }, undefined)
 * // { ok: true, content: '[image image/png, 12 KB, not shown]', blocks: [{ type: 'image', … }] }
 */
export function shapeValue(name: string, given: unknown, validateOutput: ValidateFunction | undefined): ShapedValue {
  if (typeof given === 'string') return validateOutput ? noStructured(name) : { ok: true, content: given }
  // The handler's value is read once, here, as JSON: its getters, toJSON methods and Proxy traps run
  // inside this guard (a throw, a cycle, a BigInt or nesting past the stack is this call's
  // E_TOOL_FAILED), and everything after (recognising blocks, the outputSchema, a transport's
  // serialiser) sees plain data that cannot throw or change between reads.
  const json = toContent(name, given)
  if (!json.ok) return json
  const value: unknown = JSON.parse(json.content)
  if (isCallToolResult(value)) {
    const blocks = value.content
    // Blocks are kept only when text alone would lose something: non-text content, or several blocks.
    const rich = blocks.length > 1 || (blocks.length === 1 && blocks[0]!.type !== 'text') ? { blocks } : {}
    const structured = value.structuredContent
    const text = blocks.length > 0 ? renderBlocksAsText(blocks) : JSON.stringify(structured)
    if (value.isError === true) {
      return { ok: false, error: { code: 'E_TOOL_FAILED', message: text.trim() === '' ? `${name} reported an error without saying what` : text }, ...rich }
    }
    if (validateOutput) {
      if (structured === undefined) return noStructured(name)
      const mismatch = checkOutput(name, validateOutput, structured)
      if (mismatch) return { ok: false, error: mismatch }
    }
    return { ok: true, content: text, ...rich, ...(structured === undefined ? {} : { structuredContent: structured }) }
  }
  if (!validateOutput) return json
  if (!isPlainObject(value)) return noStructured(name)
  const mismatch = checkOutput(name, validateOutput, value)
  return mismatch ? { ok: false, error: mismatch } : { ok: true, content: json.content, structuredContent: value }
}

function checkOutput(name: string, validate: ValidateFunction, structured: Record<string, unknown>): ToolError | undefined {
  if (validate(structured)) return undefined
  const problems = describeSchemaErrors(validate.errors, structured, 'the structured content')
  return { code: 'E_TOOL_FAILED', message: `${name} returned structured content that does not match its outputSchema: ${problems.join('; ')}` }
}

function noStructured(name: string): ShapedValue {
  return {
    ok: false,
    error: { code: 'E_TOOL_FAILED', message: `${name} declares an outputSchema but returned no structured content; return an object, or { content, structuredContent }` },
  }
}

/**
 * A handler's value as result text: strings as they are, anything else as JSON.
 *
 * @example
 * toContent('count', { n: 3 }) // { ok: true, content: '{"n":3}' }
 */
export function toContent(name: string, value: unknown): { ok: true; content: string } | { ok: false; error: ToolError } {
  if (typeof value === 'string') return { ok: true, content: value }
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    return { ok: false, error: { code: 'E_TOOL_FAILED', message: `${name} returned a value that cannot be sent as JSON (${describeThrown(error)}); a tool must return a string, content blocks or a JSON-serialisable value` } }
  }
  if (text === undefined) {
    return { ok: false, error: { code: 'E_TOOL_FAILED', message: `${name} returned ${value === undefined ? 'nothing (undefined)' : typeof value}; a tool must return a string, content blocks or a JSON-serialisable value` } }
  }
  return { ok: true, content: text }
}

/**
 * Cuts short text (an error message) to `limit` characters, saying so; nothing is saved to disk.
 * The text returned never references a larger string (see `detachString`).
 *
 * @example
 * capText('e'.repeat(500), 100) // 'eee… [cut: 500 characters in all]' (100 characters)
 */
export function capText(text: string, limit: number | false): string {
  // Detached either way: a message built from a slice of a huge text (a response body, a file)
  // must not keep that text alive for as long as the result lives.
  if (limit === false || text.length <= limit) return detachString(text)
  const note = ` [cut: ${text.length} characters in all]`
  return detachString([text.slice(0, Math.max(0, limit - note.length)), note].join('').slice(0, limit))
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
