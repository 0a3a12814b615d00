import { closeSync, linkSync, mkdirSync, openSync, renameSync, rmSync, lstatSync, writeSync } from 'node:fs'
import path from 'node:path'
import { isSameProcess, processStartTime } from './start-time.js'
import { readStateFile, stateFolderProblem } from '../workspace/state-files.js'

/**
 * The lock around every read-modify-write of a checkpoint, so two hosts starting together on one
 * workspace never both adopt a process or both deliver a completion. The lock is a file
 * (`<checkpoint>.lock`) holding its owner's pid and OS start time, written whole to a temporary file
 * and then hard-linked into place (link, like O_EXCL, fails when the lock exists, and a reader never
 * sees a half-written owner). A lock is stale, and is broken, when its owner is no longer alive (a
 * host killed while holding it) or it is older than `STALE_AFTER_MS` (a host holds it for
 * milliseconds: an older one was planted, or its owner hangs). Synchronous, because a checkpoint
 * rewrite is.
 *
 * No library fits here: proper-lockfile's locks are asynchronous with mtime-based staleness, and the
 * checkpoint is rewritten synchronously from process exit handlers.
 */

const WAIT_STEP_MS = 5
/** A lock older than this is stale whoever it names. */
export const STALE_AFTER_MS = 3000
const sleeper = new Int32Array(new SharedArrayBuffer(4))

interface LockOwner {
  pid: number
  startTime: number
}

/**
 * A re-entrant lock for one checkpoint file (one instance per process registry).
 *
 * @example
 * const lock = new CheckpointLock('/ws/.toolhost/processes.json')
 * lock.hold(() => writeCheckpoint(file, merged))
 */
export class CheckpointLock {
  readonly file: string
  readonly #owner: LockOwner
  readonly #root: string | undefined
  #depth = 0

  /** `root`: the workspace root, when the checkpoint lies in it (its folders are checked for links). */
  constructor(checkpoint: string, root?: string) {
    this.file = `${checkpoint}.lock`
    this.#root = root
    this.#owner = { pid: process.pid, startTime: processStartTime(process.pid) ?? 0 }
  }

  /** Runs `fn` holding the lock; waits up to `timeoutMs` for another holder, then throws saying who holds it. */
  hold<T>(fn: () => T, timeoutMs = 2 * STALE_AFTER_MS): T {
    this.acquire(timeoutMs)
    try {
      return fn()
    } finally {
      this.release()
    }
  }

  /** Takes the lock (re-entrant). Throws when another live host still holds it after `timeoutMs`. */
  acquire(timeoutMs = 2 * STALE_AFTER_MS): void {
    if (this.#depth > 0) {
      this.#depth++
      return
    }
    // Every read and write of the checkpoint happens under this lock: a link planted at .toolhost
    // would have them all land outside the root (state-files.ts).
    const problem = this.#root === undefined ? undefined : stateFolderProblem(this.#root, this.file)
    if (problem !== undefined) throw new Error(`the process checkpoint was not used: ${problem}`)
    mkdirSync(path.dirname(this.file), { recursive: true })
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (this.#tryCreate()) {
        this.#depth = 1
        return
      }
      const holder = readOwner(this.file)
      if (holder === 'gone') continue
      // Dated in the future, a lock was never a live holder's (a planted one waited out every start).
      if (holder === undefined || !isSameProcess(holder.pid, holder.startTime) || Math.abs(lockAgeMs(this.file)) > STALE_AFTER_MS) {
        this.#breakStale(holder)
        continue
      }
      if (Date.now() > deadline) throw new Error(`the process checkpoint lock ${this.file} is held by process ${holder.pid} (another toolhost host on this workspace) for over ${timeoutMs} ms`)
      Atomics.wait(sleeper, 0, 0, WAIT_STEP_MS)
    }
  }

  /** Releases one level of the lock; the file goes when the outermost level is released. */
  release(): void {
    if (this.#depth === 0) return
    this.#depth--
    if (this.#depth > 0) return
    const holder = readOwner(this.file)
    if (holder !== 'gone' && holder !== undefined && holder.pid === this.#owner.pid && holder.startTime === this.#owner.startTime) rmSync(this.file, { force: true })
  }

  #tryCreate(): boolean {
    const temp = `${this.file}.${process.pid}.${Date.now().toString(36)}.tmp`
    const fd = openSync(temp, 'wx', 0o600)
    try {
      writeSync(fd, JSON.stringify(this.#owner))
    } finally {
      closeSync(fd)
    }
    try {
      linkSync(temp, this.file)
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw error
    } finally {
      rmSync(temp, { force: true })
    }
  }

  // Moves the stale lock aside under a unique name, then checks it really was the stale one: two
  // hosts breaking the same stale lock at once must not remove a fresh lock the other just made.
  #breakStale(seen: LockOwner | undefined): void {
    const aside = `${this.file}.${process.pid}.${Date.now().toString(36)}.stale`
    try {
      renameSync(this.file, aside)
    } catch {
      return
    }
    const moved = readOwner(aside)
    const wasStale = moved === undefined || moved === 'gone' || seen === undefined || (moved.pid === seen.pid && moved.startTime === seen.startTime)
    if (!wasStale) {
      // A fresh lock was moved by mistake: put it back unless someone has taken the lock since
      // (link fails then, and that newer lock stands).
      try {
        linkSync(aside, this.file)
      } catch {
        // someone holds the lock now
      }
    }
    rmSync(aside, { force: true })
  }
}

function lockAgeMs(file: string): number {
  try {
    return Date.now() - lstatSync(file).mtimeMs
  } catch {
    return 0
  }
}

// The owner written in a lock file; undefined when the file is unreadable or half-written (an owner
// that died between create and write), 'gone' when there is no file.
function readOwner(file: string): LockOwner | undefined | 'gone' {
  // Never through a link, never a FIFO (a synchronous read of one would block the host for good):
  // anything but a small regular file is an unreadable lock, broken like a stale one.
  const read = readStateFile(file, 4096)
  if (read === undefined) return 'gone'
  if ('problem' in read) return undefined
  const text = read.text
  try {
    const value = JSON.parse(text) as Partial<LockOwner>
    return Number.isInteger(value.pid) && typeof value.startTime === 'number' ? { pid: value.pid!, startTime: value.startTime } : undefined
  } catch {
    return undefined
  }
}
