import { describeThrown } from '../../contract/errors.js'
import PQueue from 'p-queue'
import { relativeToRoot } from '../../workspace/paths.js'
import { savedResultName, saveWholeResult, type ResultsFolder } from '../../workspace/save-result.js'

// Over-long result text: the preview a model reads, the whole text saved to disk (a few at a time),
// and the budget that keeps huge results from piling up in memory faster than the disk takes them.

export interface LimitedContent {
  content: string
  truncated?: true
  savedTo?: string
}

/** Saves of whole results in flight at once: each holds its text's UTF-8 copy while it is written. */
const SAVES_AT_ONCE = 4

/** A result carrying at least this many characters of text counts against the saver's budget from the moment it is answered. */
const HEAVY_CHARS = 64 * 1024

/**
 * True for a value `ResultSaver` counts: a string of 64 k characters or more, or content blocks
 * (a `CallToolResult`-shaped value) whose text blocks and embedded text resources carry that much.
 *
 * @example
 * isHeavy('x'.repeat(100_000)) // true
 * isHeavy({ content: [{ type: 'text', text: 'x'.repeat(100_000) }, image] }) // true
 */
export function isHeavy(value: unknown): boolean {
  return heavyChars(value) > 0
}

// The text a value carries if it is heavy, else 0. Never throws (a plugin's odd object counts 0).
function heavyChars(value: unknown): number {
  if (typeof value === 'string') return value.length >= HEAVY_CHARS ? value.length : 0
  if (typeof value !== 'object' || value === null) return 0
  try {
    const content = (value as { content?: unknown }).content
    if (!Array.isArray(content)) return 0
    let chars = 0
    for (const block of content as Array<{ type?: unknown; text?: unknown; resource?: { text?: unknown } } | null>) {
      const text = block?.type === 'text' ? block.text : block?.type === 'resource' ? block.resource?.text : undefined
      if (typeof text === 'string') chars += text.length
    }
    return chars >= HEAVY_CHARS ? chars : 0
  } catch {
    return 0
  }
}

/**
 * Writes whole results to disk, four at a time, and keeps count of the huge result text not yet
 * shaped: `claim` it as the handler answers (before its worker is freed), `release` it once the
 * result is shaped. Past `budget` characters it reports pressure (the host then holds new handlers
 * off), and below half of it the pressure is off again: results cannot pile up in memory faster than
 * the disk takes them.
 *
 * @example
 * const saver = new ResultSaver(16 * 2 ** 20, (high) => pool.throttle(high))
 * saver.claim(value) // as the handler answers
 * await saver.releaseAfter(value, () => limitContent(value, 100_000, folder, 'call_1', saver))
 */
export class ResultSaver {
  readonly #queue = new PQueue({ concurrency: SAVES_AT_ONCE })
  readonly #budget: number
  readonly #onPressure: (high: boolean) => void
  // What each claimed object counted (a string is measured again: it cannot change).
  readonly #claimed = new WeakMap<object, number>()
  #waiting = 0
  #high = false

  constructor(budget: number, onPressure: (high: boolean) => void = () => {}) {
    this.#budget = budget
    this.#onPressure = onPressure
  }

  /** Characters of huge results answered and not yet shaped. */
  get waiting(): number {
    return this.#waiting
  }

  /** Counts a handler's value against the budget if it is heavy (`isHeavy`: a huge string, or blocks carrying huge text). */
  claim(value: unknown): void {
    const chars = heavyChars(value)
    if (chars === 0) return
    if (typeof value === 'object' && value !== null) {
      if (this.#claimed.has(value)) return // the same object answered twice is counted once
      this.#claimed.set(value, chars)
    }
    this.#waiting += chars
    if (!this.#high && this.#waiting > this.#budget) {
      this.#high = true
      this.#onPressure(true)
    }
  }

  release(value: unknown): void {
    let chars: number
    if (typeof value === 'object' && value !== null) {
      chars = this.#claimed.get(value) ?? 0
      this.#claimed.delete(value)
    } else {
      chars = heavyChars(value)
    }
    if (chars === 0) return
    this.#waiting -= chars
    if (this.#high && this.#waiting <= this.#budget / 2) {
      this.#high = false
      this.#onPressure(false)
    }
  }

  /** Runs `shape`, then releases `value` (a no-op unless it is a huge string), also when shaping fails. */
  releaseAfter<T>(value: unknown, shape: () => T | Promise<T>): T | Promise<T> {
    if (!isHeavy(value)) return shape()
    let shaped: T | Promise<T>
    try {
      shaped = shape()
    } catch (error) {
      this.release(value)
      throw error
    }
    if (shaped instanceof Promise) return shaped.finally(() => this.release(value))
    this.release(value)
    return shaped
  }

  /** Saves `content` as `name` in `folder` (`saveWholeResult`); resolves with the file's path. */
  save(folder: ResultsFolder, name: string, content: string): Promise<string> {
    return this.#queue.add(() => saveWholeResult(folder, name, content))
  }
}

const anySaver = new ResultSaver(Number.POSITIVE_INFINITY)

/**
 * Keeps a result within `limit` characters. A longer one is saved whole in `folder` (see
 * `saveWholeResult`: never through a planted link, never left half-written); the preview keeps at
 * least a third of the limit as content (cut at a line boundary when one falls in the second half of
 * the room) and ends with a note giving the size and where the whole text is, relative to the
 * workspace root (`shown`): the longest of three forms that fits (the file is always in `savedTo`).
 * When the text cannot be saved (a full disk, a planted link) the note says why instead. Never rejects.
 *
 * The preview is a fresh string, never a slice of the original: V8 keeps a sliced string's whole
 * parent alive, so a 100 kB preview of a 1 MB result would hold the megabyte for as long as the
 * result lives. Saves run at most four at once, so only their texts (not their encoded copies too)
 * wait in memory.
 *
 * @example
 * await limitContent(hugeText, 100_000, { root: '/w', dir: '/w/.toolhost/results', caseInsensitive: false }, 'call_1')
 * // { content: '…\n[truncated: showing 99790 of 250000 characters; the whole result is saved at .toolhost/results/call_1-….txt]', truncated: true, savedTo: '/w/.toolhost/results/call_1-….txt' }
 */
export async function limitContent(content: string, limit: number | false, folder: ResultsFolder, callId: string, saver: ResultSaver = anySaver, shown: (file: string) => string = (file) => relativeToRoot(file, folder.root)): Promise<LimitedContent> {
  if (limit === false || content.length <= limit) return { content }
  let file: string
  try {
    file = await saver.save(folder, savedResultName(callId), content)
  } catch (error) {
    // The whole text could not be saved: still answer, with what fits and why the rest is missing.
    return { content: unsavedContent(content, limit, describeThrown(error)), truncated: true }
  }
  return { content: preview(content, limit, [`the whole result is saved at ${shown(file)}`, `whole text: ${shown(file)}`]), truncated: true, savedTo: file }
}

/**
 * What a result keeps when its whole text could not be saved: the start that fits within `limit`,
 * and a note saying why the rest is missing (no partial file is left).
 *
 * @example
 * unsavedContent(text, 1000, 'ENOSPC: no space left on device') // '…\n[truncated: showing 873 of 5000 characters; the whole text could not be saved (ENOSPC: …)]'
 */
export function unsavedContent(text: string, limit: number, why: string): string {
  return preview(text, limit, [`the whole text could not be saved (${why})`, 'the whole text was not saved'])
}

/**
 * The preview of `text` for `limit`: content first (at least a third of the limit), then a note in
 * the longest form that fits: `[truncated: showing K of N characters; <where>]`, `[truncated K/N
 * chars; <where, short>]`, `[truncated: K of N characters]`, `[truncated]`.
 *
 * @example
 * preview('a\nb\n…', 150, ['the whole result is saved at r/x.txt', 'whole text: r/x.txt'])
 */
export function preview(text: string, limit: number, where: readonly [string, string]): string {
  const total = text.length
  const notes = [
    (kept: number) => `\n[truncated: showing ${kept} of ${total} characters; ${where[0]}]`,
    (kept: number) => `\n[truncated ${kept}/${total} chars; ${where[1]}]`,
    (kept: number) => `\n[truncated: ${kept} of ${total} characters]`,
    () => '\n[truncated]',
  ]
  const noteRoom = limit - Math.ceil(limit / 3)
  // Kept is at most `limit`, so its digits are at most the limit's: size the note with those.
  const note = notes.find((n) => n(limit).length <= noteRoom)
  const room = note === undefined ? limit : limit - note(limit).length
  const cut = text.lastIndexOf('\n', room)
  let kept = cut > room / 2 ? cut : room
  // Never end on half of a surrogate pair.
  if (kept > 0 && kept < total && isHighSurrogate(text.charCodeAt(kept - 1))) kept--
  // join of two non-empty parts makes a new flat string: the preview keeps no reference to `text`.
  return note === undefined ? detachString(text.slice(0, kept)) : [text.slice(0, kept), note(kept)].join('')
}

/**
 * A copy of `text` that references no other string. V8 keeps the whole parent of a sliced string
 * (and every part of a concatenated one) alive; a short preview of a huge text, kept in a result a
 * model's conversation holds, would keep the huge text too. (Joining with an empty string returns
 * the same string, so the copy is made by flattening one more character, then dropping it.)
 *
 * @example
 * const snippet = detachString(hugeBody.slice(0, 200)) // 200 characters, hugeBody can be freed
 */
export function detachString(text: string): string {
  return text.length < 13 ? text : (' ' + text).slice(1)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

/** The first `room` characters of `text`, ending at a line break when one falls in the second half. */
export function cutAtLine(text: string, room: number): string {
  const cut = text.lastIndexOf('\n', room)
  return text.slice(0, cut > room / 2 ? cut : room)
}
