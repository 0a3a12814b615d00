import { MAX_LINE_CHARS } from './search-limits.js'

/**
 * The lines a search keeps: at most `max`; one more sets `more` and tells the engine to stop.
 *
 * @example
 * const found = new Findings(1)
 * found.addLine('a.ts', 3, 'x') // true: kept as 'a.ts:3: x'
 * found.add('b.ts')             // false: more exist, stop
 */
export class Findings {
  readonly lines: string[] = []
  more = false
  readonly #max: number

  constructor(max: number) {
    this.#max = max
  }

  /** Keeps `line` if there is room; false (and `more`) when the search should stop. */
  add(line: string): boolean {
    if (this.lines.length >= this.#max) {
      this.more = true
      return false
    }
    this.lines.push(line)
    return true
  }

  /** A content match as `file:line: text`, the text cut at MAX_LINE_CHARS with "…". */
  addLine(file: string, line: number, text: string): boolean {
    return this.add(`${file}:${line}: ${text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text}`)
  }
}
