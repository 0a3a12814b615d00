import { readdirSync, rmSync, statSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { NumberedLine } from '../contract/process-service.js'
import { RollingBuffer } from './rolling-buffer.js'

/** A point in a log file where the number of newlines before it is known. */
export interface LineMark {
  byte: number
  /** Newlines in the file before `byte`. */
  line: number
}

const CHUNK_BYTES = 64 * 1024
const MAX_MARKS = 2048
/** Lines paged from a file are cut to this many bytes each (a process may print one endless line). */
export const MAX_LINE_BYTES = 4000

/**
 * Follows a process's log file (the process writes it directly) into a rolling buffer, reading
 * what was appended since the last call in fixed-size chunks, so memory stays bounded however
 * large the file grows. Remembers sparse marks (byte offset, line) for paging old lines from disk.
 * When the host gets the output as it is written (`push`, through the `tee` relay), the file is not
 * read: the same bytes go to the buffer and the marks, and the file holds them as long as it can grow.
 *
 * @example
 * const tail = new LogTail('/ws/.toolhost/processes/proc_x.log', 200_000)
 * await tail.catchUp()
 * tail.buffer.tail(1000)
 */
export class LogTail {
  readonly file: string
  readonly buffer: RollingBuffer
  #position = 0
  #newlines = 0
  #decoder = new StringDecoder('utf8')
  #marks: LineMark[] = [{ byte: 0, line: 0 }]
  #stride = 1
  #reads = 0
  #handle: FileHandle | undefined
  #chunk = Buffer.alloc(CHUNK_BYTES)
  #running: Promise<void> = Promise.resolve()
  #queued: Promise<void> | undefined
  #closed = false
  #pushed = false

  constructor(file: string, capacity: number) {
    this.file = file
    this.buffer = new RollingBuffer(capacity)
  }

  /** Bytes of the file read so far. */
  get bytesRead(): number {
    return this.#position
  }

  /**
   * From now on the output comes through `push`, not from the file (which holds the same bytes, or
   * fewer when it could not grow). Called before the first read.
   */
  followPushes(): void {
    this.#pushed = true
  }

  /** Output as the process wrote it, handed over by the host (the relay): appended to the buffer at once. */
  push(bytes: Buffer): void {
    if (!this.#closed) this.#take(bytes)
  }

  /** Reads everything appended to the file so far. Calls made while one runs share the next run. */
  catchUp(): Promise<void> {
    if (this.#pushed) return Promise.resolve()
    if (this.#queued) return this.#queued
    const run = this.#running.then(() => {
      this.#queued = undefined
      return this.#readToEnd()
    })
    this.#queued = run
    this.#running = run.catch(() => undefined)
    return run
  }

  /** The mark to start scanning from to find the beginning of line `n` (1-based). */
  markBefore(n: number): LineMark {
    let lo = 0
    let hi = this.#marks.length - 1
    // The last mark strictly inside an earlier line (line < n - 1), so line n starts after it.
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (this.#marks[mid]!.line < n - 1) lo = mid
      else hi = mid - 1
    }
    return this.#marks[lo]!
  }

  /** Stops following; a final catch-up should come first if the tail matters. */
  async close(): Promise<void> {
    this.#closed = true
    await this.#running
    await this.#handle?.close().catch(() => undefined)
    this.#handle = undefined
  }

  async #readToEnd(): Promise<void> {
    if (this.#closed) return
    try {
      this.#handle ??= await open(this.file, 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    for (;;) {
      const { bytesRead } = await this.#handle.read(this.#chunk, 0, CHUNK_BYTES, this.#position)
      if (bytesRead === 0 || this.#closed || this.#pushed) return
      this.#take(this.#chunk.subarray(0, bytesRead))
    }
  }

  #take(bytes: Buffer): void {
    this.#mark()
    this.#position += bytes.length
    this.#newlines += countNewlineBytes(bytes)
    this.buffer.append(this.#decoder.write(bytes))
  }

  #mark(): void {
    if (this.#reads++ % this.#stride !== 0) return
    this.#marks.push({ byte: this.#position, line: this.#newlines })
    if (this.#marks.length > MAX_MARKS) {
      this.#marks = this.#marks.filter((_, i) => i % 2 === 0)
      this.#stride *= 2
    }
  }
}

/**
 * Lines `from`..`to` (1-based, inclusive) of a log file, scanning from `mark` (a point before line
 * `from`) with a fixed-size read buffer. Lines longer than `MAX_LINE_BYTES` are cut and say so.
 * Rejects with ENOENT when the file is gone.
 *
 * @example
 * await readLogLines(file, 10, 20) // [{ n: 10, text: '…' }, …]
 */
export async function readLogLines(file: string, from: number, to: number, mark: LineMark = { byte: 0, line: 0 }): Promise<NumberedLine[]> {
  const out: NumberedLine[] = []
  if (from > to) return out
  const handle = await open(file, 'r')
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES)
    let position = mark.byte
    let line = mark.line + 1
    // Scanning starts inside a line earlier than `from` unless it starts at the file's first byte.
    let parts: Buffer[] = []
    let kept = 0
    let cut = 0
    const finishLine = (): void => {
      if (line >= from && line <= to) {
        const text = Buffer.concat(parts).toString('utf8')
        out.push({ n: line, text: cut > 0 ? `${text}… [line cut: ${cut} more bytes]` : text })
      }
      parts = []
      kept = 0
      cut = 0
    }
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position)
      if (bytesRead === 0) break
      position += bytesRead
      let start = 0
      while (start < bytesRead) {
        const nl = chunk.indexOf(10, start)
        const end = nl === -1 || nl >= bytesRead ? bytesRead : nl
        if (line >= from && line <= to) {
          const room = MAX_LINE_BYTES - kept
          const take = Math.min(room, end - start)
          if (take > 0) parts.push(Buffer.from(chunk.subarray(start, start + take)))
          kept += take
          cut += end - start - take
        }
        if (end === bytesRead) break
        finishLine()
        line++
        if (line > to) return out
        start = end + 1
      }
    }
    if (kept > 0 || cut > 0) finishLine()
    return out
  } finally {
    await handle.close()
  }
}

function countNewlineBytes(bytes: Buffer): number {
  let count = 0
  let i = bytes.indexOf(10)
  while (i !== -1) {
    count++
    i = bytes.indexOf(10, i + 1)
  }
  return count
}

/**
 * Deletes log files (`proc_<hex>.log`) in `dir` untouched for `retentionMs` that `isKept` does not
 * claim: logs of processes no host remembers any more.
 *
 * @example
 * removeStaleLogs('/ws/.toolhost/processes', 3_600_000, (file) => listed.has(file))
 */
export function removeStaleLogs(dir: string, retentionMs: number, isKept: (file: string) => boolean): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  const now = Date.now()
  for (const name of names) {
    const file = path.join(dir, name)
    if (!/^proc_[0-9a-f]+\.log$/.test(name) || isKept(file)) continue
    try {
      if (now - statSync(file).mtimeMs >= retentionMs) rmSync(file, { force: true })
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}
