import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import PQueue from 'p-queue'
import { relativeToRoot } from '../paths.js'
import type { ToolError } from '../types.js'

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

/** Saves of whole results in flight at once: each holds its text's UTF-8 copy while it is written. */
const SAVES_AT_ONCE = 4
const madeDirs = new Set<string>()

/** A string result at least this long counts against the saver's budget from the moment it is answered. */
const HEAVY_CHARS = 64 * 1024

/**
 * True for a value `ResultSaver` counts: a string of 64 k characters or more.
 *
 * @example
 * isHeavy('x'.repeat(100_000)) // true
 */
export function isHeavy(value: unknown): value is string {
  return typeof value === 'string' && value.length >= HEAVY_CHARS
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
 * await saver.releaseAfter(value, () => limitContent(value, 100_000, dir, 'call_1', root, saver))
 */
export class ResultSaver {
  readonly #queue = new PQueue({ concurrency: SAVES_AT_ONCE })
  readonly #budget: number
  readonly #onPressure: (high: boolean) => void
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

  /** Counts a handler's value against the budget if it is a huge string (same test as `release`). */
  claim(value: unknown): void {
    if (!isHeavy(value)) return
    this.#waiting += value.length
    if (!this.#high && this.#waiting > this.#budget) {
      this.#high = true
      this.#onPressure(true)
    }
  }

  release(value: unknown): void {
    if (!isHeavy(value)) return
    this.#waiting -= value.length
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

  save(file: string, content: string): Promise<void> {
    return this.#queue.add(() => saveWhole(file, content))
  }
}

const anySaver = new ResultSaver(Number.POSITIVE_INFINITY)

/**
 * Keeps a result within `limit` characters. A longer one is written whole to a file under `dir`;
 * the preview keeps at least a third of the limit as content (cut at a line boundary when one falls
 * in the second half of the room) and ends with a note giving the size and where the whole text is,
 * relative to `root`: the longest of three forms that fits (the file is always in `savedTo`).
 *
 * The preview is a fresh string, never a slice of the original: V8 keeps a sliced string's whole
 * parent alive, so a 100 kB preview of a 1 MB result would hold the megabyte for as long as the
 * result lives. Saves run at most four at once, so only their texts (not their encoded copies too)
 * wait in memory.
 *
 * @example
 * await limitContent(hugeText, 100_000, '/w/.toolhost/results', 'call_1', '/w')
 * // { content: '…\n[truncated: showing 99790 of 250000 characters; the whole result is saved at .toolhost/results/call_1-….txt]', truncated: true, savedTo: '/w/.toolhost/results/call_1-….txt' }
 */
export async function limitContent(content: string, limit: number | false, dir: string, callId: string, root?: string, saver: ResultSaver = anySaver): Promise<LimitedContent> {
  if (limit === false || content.length <= limit) return { content }
  const file = path.join(dir, `${safeName(callId)}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.txt`)
  try {
    await saver.save(file, content)
  } catch (error) {
    // The whole text could not be saved: still answer, with what fits and why the rest is missing.
    const why = `saving the whole result failed: ${(error as Error).message}`
    return { content: preview(content, limit, [why, 'the whole result was not saved']), truncated: true }
  }
  const shown = root === undefined ? file : relativeToRoot(file, root)
  return { content: preview(content, limit, [`the whole result is saved at ${shown}`, `whole text: ${shown}`]), truncated: true, savedTo: file }
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

async function saveWhole(file: string, content: string): Promise<void> {
  const dir = path.dirname(file)
  if (!madeDirs.has(dir)) {
    await mkdir(dir, { recursive: true })
    madeDirs.add(dir)
  }
  try {
    await writeFile(file, content, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    // The folder went away since it was made: make it again once.
    await mkdir(dir, { recursive: true })
    await writeFile(file, content, 'utf8')
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
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

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64) || 'call'
}
