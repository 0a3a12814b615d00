import { existsSync, fstatSync, statSync } from 'node:fs'
import { mkdir, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import type { PermissionMode } from '../config/types.js'
import { openStateFileToAppend, stateFolderProblem } from '../workspace/state-files.js'
import { appendAll } from './audit-append.js'
import type { DecidedBy } from './decide.js'

/** One line of the audit log: one permission decision about one call. */
export interface AuditEntry {
  /** ISO 8601 UTC time of the decision. */
  time: string
  callId: string
  tool: string
  /** The arguments, keys sorted, strings over 2000 characters cut. */
  args: unknown
  /** What rules were matched against: the call's canonical paths, its command, or its value. */
  subject: string
  /**
   * `allow`, `ask`, `deny` from the permission system; `allow-once`, `allow-session`, `deny` from the
   * person; `pending` while the person has been asked and has not answered (no decision: the call
   * did not run, and runs again with the answer).
   */
  decision: 'allow' | 'ask' | 'deny' | 'allow-once' | 'allow-session' | 'pending'
  /** Who decided: a rule, the tool, the mode, an earlier session approval, the person, nobody to ask; `asking` for a pending question. */
  by: DecidedBy | 'person' | 'no-approver' | 'host' | 'asking'
  /** The rule that decided, e.g. `permissions.deny[0] read_file(**\/*.pem)`. */
  rule?: string
  /** For a hook's own decision (`by: 'hook'`): which hook, e.g. `before_call hooks.before_call[0]`. */
  hook?: string
  mode: PermissionMode
  reason: string
  /** For answers: who answered (`terminal`, `--yes`, …) when the handler said. */
  answeredBy?: string
  /** Who sent the call when not the embedding itself (`RunOptions.principal`, e.g. `console`). */
  principal?: string
}

/** An audit line whose fields are built when the log is written (see `AuditLog.recordDeferred`). */
export interface DeferredAuditEntry {
  /** The entry as it was at decision time; called once, when the buffer is written. */
  toEntry(): AuditEntry
}

/**
 * Appends decisions to a JSON-lines file off the hot path: `record` only buffers; the buffer is
 * serialised and written from the next turn of the event loop (one append per burst, in chunks), and `flush`
 * waits for every line recorded so far. A write that fails is reported once through `onError` and the
 * lines are dropped; calls are never held up or failed by the audit log. The file stays open between
 * appends less than a second apart (each append checks it is still the file at the path), and
 * `close` writes what is left and closes it (the host calls it on close).
 *
 * @example
 * const audit = new AuditLog('/work/.toolhost/audit.jsonl', { onError: (e) => log.warn(e.message) })
 * audit.record(entry)
 * await audit.close()
 */
export class AuditLog {
  /** The log file; "" when the audit log is off (`permissions.audit_log: ""`, `createHost({ audit: false })`). */
  readonly file: string
  readonly #onError: (error: Error) => void
  readonly #root: string | undefined
  #buffer: (string | DeferredAuditEntry)[] = []
  #writing: Promise<void> = Promise.resolve()
  #scheduled = false
  #failed = false
  #chunk: Buffer | undefined
  // The file, kept open between appends that come within KEEP_OPEN_MS of each other.
  #handle: FileHandle | undefined
  #idle: NodeJS.Timeout | undefined

  /** `root`: when given and gone (a deleted scratch workspace), lines are dropped instead of re-creating it. */
  constructor(file: string, options: { onError: (error: Error) => void; root?: string }) {
    this.file = file
    this.#onError = options.onError
    this.#root = options.root
  }

  /** Buffers one entry; it reaches the file soon after, in order. */
  record(entry: AuditEntry): void {
    if (this.file === '') return
    this.#buffer.push(JSON.stringify(entry) + '\n')
    this.#schedule()
  }

  /**
   * Buffers one entry whose serialisable form is built at write time (off the call path); the
   * entry must hold what it logs as it was when recorded (a snapshot, not live objects).
   */
  recordDeferred(entry: DeferredAuditEntry): void {
    if (this.file === '') return
    this.#buffer.push(entry)
    this.#schedule()
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => void this.flush())
  }

  /** Resolves once every entry recorded so far is written (or has failed to be). */
  flush(): Promise<void> {
    this.#scheduled = false
    if (this.#buffer.length > 0) {
      const buffered = this.#buffer
      this.#buffer = []
      this.#writing = this.#writing.then(() => this.#append(buffered))
    }
    return this.#writing
  }

  /** Writes out every line recorded so far, then closes the file (the host calls it on close). */
  async close(): Promise<void> {
    clearTimeout(this.#idle)
    this.#idle = undefined
    await this.flush()
    this.#writing = this.#writing.then(() => this.#closeFile())
    return this.#writing
  }

  async #append(entries: readonly (string | DeferredAuditEntry)[]): Promise<void> {
    if (this.#root !== undefined && !existsSync(this.#root)) return this.#closeFile()
    try {
      await this.#writeLines(await this.#openFile(), entries)
      this.#closeWhenIdle()
    } catch (error) {
      await this.#closeFile()
      if (this.#failed) return
      this.#failed = true
      this.#onError(new Error(`the permission audit log ${this.file} could not be written (${(error as Error).message}); decisions are not being recorded`))
    }
  }

  // The file kept from the last append while it is still the file at the path (not moved, removed or
  // replaced, by a link or anything else); else it is opened again, with every check.
  async #openFile(): Promise<FileHandle> {
    const held = this.#handle
    if (held !== undefined) {
      if (isSameFile(this.file, held.fd)) return held
      await this.#closeFile()
    }
    // Never through a link planted at .toolhost or at the file, never into a FIFO (state-files.ts).
    const problem = this.#root === undefined ? undefined : stateFolderProblem(this.#root, this.file)
    if (problem !== undefined) throw new Error(problem)
    await mkdir(path.dirname(this.file), { recursive: true })
    this.#handle = await openStateFileToAppend(this.file)
    return this.#handle
  }

  // Appends a burst apart reuse the file; after KEEP_OPEN_MS without one it is closed (after any
  // write under way: appends are one at a time), so an idle host holds no descriptor.
  #closeWhenIdle(): void {
    clearTimeout(this.#idle)
    this.#idle = setTimeout(() => {
      this.#idle = undefined
      this.#writing = this.#writing.then(() => this.#closeFile())
    }, KEEP_OPEN_MS)
    this.#idle.unref()
  }

  async #closeFile(): Promise<void> {
    const held = this.#handle
    this.#handle = undefined
    await held?.close().catch(() => {})
  }

  // The lines are encoded into one buffer kept for the purpose and written a chunk at a time: a
  // burst of thousands of decisions never becomes one huge string and one huge buffer, fresh memory
  // whose first touch cost more than serialising the lines did. (Appends are one at a time: see flush.)
  async #writeLines(handle: FileHandle, entries: readonly (string | DeferredAuditEntry)[]): Promise<void> {
    const chunk = (this.#chunk ??= Buffer.allocUnsafe(CHUNK_BYTES))
    let used = 0
    for (const entry of entries) {
      const line = typeof entry === 'string' ? entry : serialise(entry)
      const bytes = Buffer.byteLength(line)
      if (used + bytes > chunk.length && used > 0) {
        await appendAll(handle, chunk, used)
        used = 0
      }
      if (bytes > chunk.length) await appendAll(handle, Buffer.from(line), bytes)
      else used += chunk.write(line, used)
    }
    if (used > 0) await appendAll(handle, chunk, used)
  }
}

const CHUNK_BYTES = 256 * 1024
const KEEP_OPEN_MS = 1000

// True while `fd` is the file at `file` (the path, links followed, names the same inode).
function isSameFile(file: string, fd: number): boolean {
  try {
    const at = statSync(file)
    const held = fstatSync(fd)
    return at.ino === held.ino && at.dev === held.dev
  } catch {
    return false
  }
}

// Runs on a timer, where a throw would be uncaught and end the process: a line that cannot be
// built is written as what little is known, never thrown.
function serialise(entry: DeferredAuditEntry): string {
  try {
    return JSON.stringify(entry.toEntry()) + '\n'
  } catch (error) {
    return JSON.stringify({ time: new Date().toISOString(), decision: 'unknown', reason: `this audit line could not be written: ${error instanceof Error ? error.message : String(error)}` }) + '\n'
  }
}
