import type { NumberedLine } from '../contract/process-service.js'

/**
 * The latest `capacity` characters of a stream, with line numbers that stay stable as old text
 * rolls out. Memory is bounded by the capacity however much is appended: text is kept as the
 * chunks it arrived in, a chunk longer than the capacity is cut to its tail (copied, so the long
 * string can be collected), and dropped text is only counted (characters and newlines).
 *
 * @example
 * const buffer = new RollingBuffer(10)
 * buffer.append('one\ntwo\nthree\n')
 * buffer.droppedChars   // 4
 * buffer.lines(1, 10)   // [{ n: 2, text: 'two' }, { n: 3, text: 'three' }]
 */
export class RollingBuffer {
  readonly capacity: number
  #chunks: string[] = []
  /** For each chunk: how many newlines came before its first character. */
  #chunkLine: number[] = []
  #head = 0
  #retained = 0
  #dropped = 0
  #newlines = 0
  #total = 0
  /** The first retained character begins a line (nothing dropped, or a dropped '\n' before it). */
  #startsAtLine = true
  #endsWithNewline = false

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new TypeError(`RollingBuffer: capacity must be an integer ≥ 1, got ${String(capacity)} (${typeof capacity})`)
    }
    this.capacity = capacity
  }

  /** Characters appended so far. */
  get totalChars(): number {
    return this.#total
  }

  /** Characters that rolled out of memory. */
  get droppedChars(): number {
    return this.#dropped
  }

  /** Lines so far (a last line without its newline counts). */
  get lineCount(): number {
    return this.#newlines + (this.#total > 0 && !this.#endsWithNewline ? 1 : 0)
  }

  /** Number of the first line whose beginning is still in memory (lineCount + 1 when none is). */
  get firstLineInMemory(): number {
    if (this.#head >= this.#chunks.length) return this.lineCount + 1
    const index = this.#chunkLine[this.#head]! + 1
    return this.#startsAtLine ? index : index + 1
  }

  append(text: string): void {
    if (text.length === 0) return
    const newlines = countNewlines(text, 0, text.length)
    const previousEndedLine = this.#total === 0 || this.#endsWithNewline
    this.#total += text.length
    this.#endsWithNewline = text.endsWith('\n')
    if (text.length >= this.capacity) {
      // Everything in memory and the head of this text roll out; keep a copy of its tail only.
      const cut = text.length - this.capacity
      this.#dropped += this.#retained + cut
      this.#chunks = [copyString(text.slice(cut))]
      this.#chunkLine = [this.#newlines + countNewlines(text, 0, cut)]
      this.#head = 0
      this.#retained = this.capacity
      this.#startsAtLine = cut === 0 ? previousEndedLine : text.charCodeAt(cut - 1) === 10
      this.#newlines += newlines
      return
    }
    this.#chunks.push(text)
    this.#chunkLine.push(this.#newlines)
    this.#newlines += newlines
    this.#retained += text.length
    this.#trim()
  }

  /** The last `chars` characters in memory (fewer if less is kept). */
  tail(chars: number): string {
    let need = Math.min(chars, this.#retained)
    const parts: string[] = []
    for (let i = this.#chunks.length - 1; i >= this.#head && need > 0; i--) {
      const chunk = this.#chunks[i]!
      parts.push(chunk.length <= need ? chunk : chunk.slice(chunk.length - need))
      need -= Math.min(need, chunk.length)
    }
    return parts.reverse().join('')
  }

  /** Lines `from`..`to` (1-based, inclusive) that are whole in memory; earlier ones are left out. */
  lines(from: number, to: number): NumberedLine[] {
    const first = this.firstLineInMemory
    const last = Math.min(to, this.lineCount)
    const start = Math.max(from, first)
    if (start > last) return []
    const segments = this.#chunks.slice(this.#head).join('').split('\n')
    // segments[0] is line (chunkLine[head] + 1), partial when the text does not start at a line.
    const segmentBase = this.#chunkLine[this.#head]! + 1
    const out: NumberedLine[] = []
    for (let n = start; n <= last; n++) out.push({ n, text: segments[n - segmentBase] ?? '' })
    return out
  }

  #trim(): void {
    while (this.#retained > this.capacity) {
      const excess = this.#retained - this.capacity
      const chunk = this.#chunks[this.#head]!
      if (chunk.length <= excess) {
        this.#startsAtLine = chunk.endsWith('\n')
        this.#dropped += chunk.length
        this.#retained -= chunk.length
        // Release the dropped text now; the slot itself goes at the next compaction.
        this.#chunks[this.#head] = ''
        this.#head++
        continue
      }
      this.#startsAtLine = chunk.charCodeAt(excess - 1) === 10
      this.#chunkLine[this.#head] = this.#chunkLine[this.#head]! + countNewlines(chunk, 0, excess)
      this.#chunks[this.#head] = chunk.slice(excess)
      this.#dropped += excess
      this.#retained -= excess
    }
    // Compact the dropped head now and then, so the arrays do not grow without bound.
    if (this.#head > 64 && this.#head * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#head)
      this.#chunkLine = this.#chunkLine.slice(this.#head)
      this.#head = 0
    }
  }
}

/** Newlines in `text[start, end)`, counted without allocating. */
export function countNewlines(text: string, start: number, end: number): number {
  let count = 0
  let i = text.indexOf('\n', start)
  while (i !== -1 && i < end) {
    count++
    i = text.indexOf('\n', i + 1)
  }
  return count
}

// A slice of a long string keeps the whole string alive in V8; copying the bytes lets it go.
function copyString(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le')
}
