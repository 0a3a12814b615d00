import type { ToolError } from '../types.js'
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
    return { ok: false, error: { code: 'E_TOOL_FAILED', message: `${name} returned a value that cannot be sent as JSON (${(error as Error).message}); a tool must return a string or a JSON-serialisable value` } }
  }
  if (text === undefined) {
    return { ok: false, error: { code: 'E_TOOL_FAILED', message: `${name} returned ${value === undefined ? 'nothing (undefined)' : typeof value}; a tool must return a string or a JSON-serialisable value` } }
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
 * `saveWholeResult`: never through a planted link, never left half-written). Rejects when the text
 * cannot be saved.
 *
 * @example
 * await limitContent(hugeText, 100_000, { root: '/w', dir: '/w/.toolhost/results', caseInsensitive: false }, 'call_1')
 * // { content: '…\n[truncated: showing 99790 of 250000 characters; the whole result is saved at /w/.toolhost/results/call_1-….txt]', truncated: true, savedTo: '/w/.toolhost/results/call_1-….txt' }
 */
export async function limitContent(content: string, limit: number | false, folder: ResultsFolder, callId: string): Promise<LimitedContent> {
  if (limit === false || content.length <= limit) return { content }
  const file = await saveWholeResult(folder, savedResultName(callId), content)
  const note = `\n[truncated: showing PLACEHOLDER of ${content.length} characters; the whole result is saved at ${file}]`
  const room = Math.max(0, limit - note.length - 12)
  const cut = content.lastIndexOf('\n', room)
  const kept = content.slice(0, cut > room / 2 ? cut : room)
  // With a limit shorter than the note itself the note is cut too: the limit always holds, and
  // `savedTo` still says where the whole text is.
  const shaped = (kept + note.replace('PLACEHOLDER', String(kept.length))).slice(0, limit)
  return { content: shaped, truncated: true, savedTo: file }
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
