import { MAX_LINE_CHARS } from './search-limits.js'

/**
 * A speed trick, for ripgrep on both cores: ripgrep's `--sort=path` (what gives today's order, and
 * the early stop at max_results + 1) makes it search with one thread. A full scan that finds few
 * matches runs it unsorted instead, and this keeps the first `max` + 1 matches in today's order
 * (path by its components, then line) as they come in any order, in memory bounded by `max`. What it
 * saves: a full scan of the 24k-file dependencies tree, 368 ms sorted against rg's 208 ms on two
 * cores (BENCHMARKS.md, search_files against ripgrep). A search that finds many matches is better
 * off sorted and stopped early: `dense` says when it has seen enough to know.
 *
 * @example
 * const first = new FirstMatches(200)
 * first.add('src/b.ts', 3, 'x'); first.add('src/a.ts', 9, 'y')
 * first.lines() // ['src/a.ts:9: y', 'src/b.ts:3: x']
 */
export class FirstMatches {
  readonly #max: number
  readonly #denseAfter: number
  #kept: Match[] = []
  #seen = 0

  constructor(max: number, denseAfter = Math.max(100, 2 * (max + 1))) {
    this.#max = max
    this.#denseAfter = denseAfter
  }

  /** Takes one match; false once so many have come that a sorted run with an early stop is cheaper. */
  add(file: string, line: number, text: string): boolean {
    this.#seen++
    this.#kept.push({ parts: file.split('/'), file, line, text })
    // Sorted and cut back to max + 1 now and then: the kept list never grows past twice that.
    if (this.#kept.length > 2 * (this.#max + 1)) this.#trim()
    return this.#seen <= this.#denseAfter
  }

  /** True when `add` said stop: the matches kept are not all there are. */
  get dense(): boolean {
    return this.#seen > this.#denseAfter
  }

  /** More matches than `max` were found. */
  get more(): boolean {
    return this.#seen > this.#max
  }

  /** The first `max` matches in today's order, as `file:line: text` (text cut as Findings cuts it). */
  lines(): string[] {
    this.#trim()
    return this.#kept.slice(0, this.#max).map((m) => `${m.file}:${m.line}: ${m.text.length > MAX_LINE_CHARS ? `${m.text.slice(0, MAX_LINE_CHARS)}…` : m.text}`)
  }

  #trim(): void {
    this.#kept.sort(byPathThenLine)
    if (this.#kept.length > this.#max + 1) this.#kept.length = this.#max + 1
  }
}

interface Match {
  parts: string[]
  file: string
  line: number
  text: string
}

// A folder's entries by name, as a sorted walk meets them (a/b before a-c), then lines in order.
function byPathThenLine(a: Match, b: Match): number {
  const n = Math.min(a.parts.length, b.parts.length)
  for (let i = 0; i < n; i++) {
    const x = a.parts[i]!
    const y = b.parts[i]!
    if (x !== y) {
      // The last part is a file, the others folders: a file and a folder of one name cannot both be there.
      return x < y ? -1 : 1
    }
  }
  return a.parts.length - b.parts.length || a.line - b.line
}
