import { isCallToolResult, renderBlocksAsText } from '../content-blocks.js'
import { describeSchemaErrors, type ValidateFunction } from '../schema.js'
import type { ContentBlock, ToolError } from '../types.js'

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
export function shapeValue(name: string, value: unknown, validateOutput: ValidateFunction | undefined): ShapedValue {
  if (typeof value === 'string') return validateOutput ? noStructured(name) : { ok: true, content: value }
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
  const json = toContent(name, value)
  if (!json.ok || !validateOutput) return json
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
import { savedResultName, saveWholeResult, type ResultsFolder } from '../workspace/save-result.js'

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
    return { ok: false, error: { code: 'E_TOOL_FAILED', message: `${name} returned a value that cannot be sent as JSON (${(error as Error).message}); a tool must return a string, content blocks or a JSON-serialisable value` } }
  }
  if (text === undefined) {
    return { ok: false, error: { code: 'E_TOOL_FAILED', message: `${name} returned ${value === undefined ? 'nothing (undefined)' : typeof value}; a tool must return a string, content blocks or a JSON-serialisable value` } }
  }
  return { ok: true, content: text }
}

export interface LimitedContent {
  content: string
  truncated?: true
  savedTo?: string
}

/**
 * Keeps a result within `limit` characters. A longer one is cut at a line boundary, ends with a
 * note giving the full size and the file holding the whole text, which is saved in `folder` (see
 * `saveWholeResult`: never through a planted link, never left half-written); `shown` words the file's
 * path in the note (the host shows it relative to the workspace root). Rejects when the text cannot
 * be saved.
 *
 * @example
 * await limitContent(hugeText, 100_000, { root: '/w', dir: '/w/.toolhost/results', caseInsensitive: false }, 'call_1')
 * // { content: '…\n[truncated: showing 99790 of 250000 characters; the whole result is saved at /w/.toolhost/results/call_1-….txt]', truncated: true, savedTo: '/w/.toolhost/results/call_1-….txt' }
 */
export async function limitContent(content: string, limit: number | false, folder: ResultsFolder, callId: string, shown: (file: string) => string = (f) => f): Promise<LimitedContent> {
  if (limit === false || content.length <= limit) return { content }
  const file = await saveWholeText(content, folder, callId)
  const note = `\n[truncated: showing PLACEHOLDER of ${content.length} characters; the whole result is saved at ${shown(file)}]`
  const kept = cutAtLine(content, Math.max(0, limit - note.length - 12))
  // With a limit shorter than the note itself the note is cut too: the limit always holds, and
  // `savedTo` still says where the whole text is.
  const shaped = (kept + note.replace('PLACEHOLDER', String(kept.length))).slice(0, limit)
  return { content: shaped, truncated: true, savedTo: file }
}

/** Saves the whole text of an over-long result in the results folder; resolves with the file's path. */
export function saveWholeText(text: string, folder: ResultsFolder, callId: string): Promise<string> {
  return saveWholeResult(folder, savedResultName(callId), text)
}

/** The first `room` characters of `text`, ending at a line break when one falls in the second half. */
export function cutAtLine(text: string, room: number): string {
  const cut = text.lastIndexOf('\n', room)
  return text.slice(0, cut > room / 2 ? cut : room)
}

/**
 * What a result keeps when its whole text could not be saved (a full disk, a planted link): the start
 * that fits within `limit`, and a note saying why the rest is missing (no partial file is left).
 *
 * @example
 * unsavedContent(text, 1000, 'ENOSPC: no space left on device') // '…\n[truncated: 5000 characters in all; the whole text could not be saved (ENOSPC: …), so only this part is available]'
 */
export function unsavedContent(text: string, limit: number, why: string): string {
  const note = `\n[truncated: ${text.length} characters in all; the whole text could not be saved (${why}), so only this part is available]`
  return (text.slice(0, Math.max(0, limit - note.length)) + note).slice(0, limit)
}

/**
 * Cuts short text (an error message) to `limit` characters, saying so; nothing is saved to disk.
 *
 * @example
 * capText('e'.repeat(500), 100) // 'eee… [cut: 500 characters in all]' (100 characters)
 */
export function capText(text: string, limit: number | false): string {
  if (limit === false || text.length <= limit) return text
  const note = ` [cut: ${text.length} characters in all]`
  return (text.slice(0, Math.max(0, limit - note.length)) + note).slice(0, limit)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
