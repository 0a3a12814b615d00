// ripgrep's output read as it streams, in bounded memory: `path NUL line:text LF` records (content,
// each line already cut by --max-columns) then the --stats block, or `path NUL` records (files).

/** One matching line as ripgrep printed it. */
export interface LineRecord {
  readonly path: string
  readonly line: number
  /** The line's text, without its line end (CR LF or LF). */
  readonly text: string
}

// A record longer than this is not ripgrep's output (a path is at most a few KB, a line is cut).
const MAX_RECORD_BYTES = 1024 * 1024
const NUL = 0
const LF = 0x0a
const COLON = 0x3a

/**
 * Splits content output into records. `push` hands each complete record to `onRecord`, which
 * returns false to stop reading; `filesSearched` reads the --stats block once the output has ended.
 *
 * @example
 * const parser = new ContentOutput()
 * parser.push(Buffer.from('a.ts\u00002:x = 1\n'), (r) => (console.log(r), true)) // { path: 'a.ts', line: 2, text: 'x = 1' }
 */
export class ContentOutput {
  #pending: Buffer | undefined
  #stats = ''

  /** Reads `chunk`; false when `onRecord` asked to stop. */
  push(chunk: Buffer, onRecord: (record: LineRecord) => boolean): boolean {
    const buf = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk])
    this.#pending = undefined
    let pos = 0
    while (pos < buf.length) {
      if (this.#stats !== '' || buf[pos] === LF) {
        // The --stats block: after the last record, or all there is when nothing matched.
        this.#stats = `${this.#stats}${buf.toString('utf8', pos, Math.min(buf.length, pos + 4096))}`.slice(0, 4096)
        return true
      }
      const nul = buf.indexOf(NUL, pos)
      const end = nul === -1 ? -1 : buf.indexOf(LF, nul + 1)
      if (end === -1) {
        this.#pending = buf.subarray(pos)
        if (this.#pending.length > MAX_RECORD_BYTES) throw new Error(`ripgrep printed a record of over ${MAX_RECORD_BYTES} bytes`)
        return true
      }
      const colon = buf.indexOf(COLON, nul + 1)
      if (colon === -1 || colon > end) {
        pos = end + 1 // not a match record (ripgrep prints none other before --stats)
        continue
      }
      const textEnd = end > colon && buf[end - 1] === 0x0d ? end - 1 : end
      const record = { path: buf.toString('utf8', pos, nul), line: Number(buf.toString('latin1', nul + 1, colon)), text: buf.toString('utf8', colon + 1, textEnd) }
      pos = end + 1
      if (!onRecord(record)) return false
    }
    return true
  }

  /** The files ripgrep searched, from its --stats block (after the output ended). */
  filesSearched(): number | undefined {
    const text = this.#stats !== '' ? this.#stats : (this.#pending?.toString('utf8') ?? '')
    const found = /(\d+) files? searched/.exec(text)
    return found ? Number(found[1]) : undefined
  }
}

/**
 * Splits `--files --null` output into paths.
 *
 * @example
 * new FilesOutput().push(Buffer.from('a.ts\u0000b.md\u0000'), (p) => (console.log(p), true)) // a.ts, b.md
 */
export class FilesOutput {
  #pending: Buffer | undefined

  push(chunk: Buffer, onPath: (path: string) => boolean): boolean {
    const buf = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk])
    this.#pending = undefined
    let pos = 0
    while (pos < buf.length) {
      const nul = buf.indexOf(NUL, pos)
      if (nul === -1) {
        this.#pending = buf.subarray(pos)
        if (this.#pending.length > MAX_RECORD_BYTES) throw new Error(`ripgrep printed a path of over ${MAX_RECORD_BYTES} bytes`)
        return true
      }
      const path = buf.toString('utf8', pos, nul)
      pos = nul + 1
      if (!onPath(path)) return false
    }
    return true
  }
}
