import { ToolhostError } from '../contract/errors.js'

/**
 * The model API formats the host speaks. `openai` is short for `openai-chat` (Chat Completions);
 * `mcp` renders definitions for an MCP `tools/list` answer.
 */
export type ModelFormat = 'openai-chat' | 'openai' | 'openai-responses' | 'anthropic' | 'mcp'

// A record, so a format added to the type and not here (or here and not there) fails to compile.
const EACH_FORMAT: Record<ModelFormat, true> = { 'openai-chat': true, openai: true, 'openai-responses': true, anthropic: true, mcp: true }

/** Every format, in the order errors list them. */
export const MODEL_FORMATS = Object.keys(EACH_FORMAT) as readonly ModelFormat[]

/**
 * True when `value` names a format.
 *
 * @example
 * isModelFormat('anthropic') // true
 */
export function isModelFormat(value: unknown): value is ModelFormat {
  return typeof value === 'string' && (MODEL_FORMATS as readonly string[]).includes(value)
}

/**
 * Throws `E_USAGE` naming the formats when `value` is not one.
 *
 * @example
 * assertModelFormat(options.format, 'definitions')
 */
export function assertModelFormat(value: unknown, where: string): asserts value is ModelFormat {
  if (!isModelFormat(value)) {
    throw new ToolhostError('E_USAGE', `${where}: the format must be one of ${MODEL_FORMATS.join(', ')}; got ${JSON.stringify(value)}`)
  }
}

/**
 * The text a model reads for a result: the content when it succeeded, the code and message when it
 * failed (formats without an error flag see the code in the text).
 *
 * @example
 * resultText({ ok: false, content: '', error: { code: 'E_DENIED', message: 'no' } }) // 'error E_DENIED: no'
 */
export function resultText(result: { ok: boolean; content: string; error?: { code: string; message: string } }): string {
  if (result.ok) return result.content
  if (!result.error) return result.content
  return `error ${result.error.code}: ${result.error.message}`
}
