import { closeSync, openSync, renameSync, rmdirSync, rmSync, writeSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import os from 'node:os'
import path from 'node:path'
import type { Logger } from '../contract/types.js'
import { readStateFile, stateFolderProblem } from '../workspace/state-files.js'
import type { StateBackend } from './state-store.js'
import { tryLockFolder, unlockFolder } from './folder-lock.js'
import { emptyState, isEmptyState, isStoreState, pruneState, type HostEntry, type StoreState } from './store-state.js'

// Thousands of leases take well under this; a larger file is not one a host wrote.
const MAX_STATE_BYTES = 8 << 20
// A holder keeps the lock for a transaction (a read and a rename); one that died holding it is
// passed over after LOCK_STALE_MS.
const LOCK_STALE_MS = 2000
// Past this, a lock still held by a live holder is a fault of the store (E_STORE_UNAVAILABLE).
const LOCK_WAIT_MS = 10_000

/**
 * The local store's state: `state.json` in a folder under the root (`.toolhost/store/`), read and
 * rewritten whole inside a lock (`folder-lock.ts`: a folder made with mkdir, stale after 2 s). Written to a new file and renamed over, so a reader never sees
 * half of it; never read or written through a link planted on the way (`state-files.ts`).
 *
 * @example
 * const file = new StateFile('/ws', '/ws/.toolhost/store', log)
 * await file.transact((state) => ({ value: Object.keys(state.hosts), changed: false }))
 */
export class StateFile implements StateBackend {
  readonly where: string
  readonly #root: string
  readonly #dir: string
  readonly #file: string
  readonly #lock: string
  readonly #log: Logger
  readonly #machine = os.hostname()
  readonly #queue: Array<{ fn: (state: StoreState, now: number) => { value: unknown; changed: boolean; removeIfEmpty?: boolean }; resolve: (value: unknown) => void; reject: (error: unknown) => void }> = []
  #draining = false

  constructor(root: string, dir: string, log: Logger) {
    this.#root = root
    this.#dir = dir
    this.#file = path.join(dir, 'state.json')
    this.#lock = path.join(dir, 'state.lock')
    this.where = dir
    this.#log = log
  }

  transact<T>(fn: (state: StoreState, now: number) => { value: T; changed: boolean; removeIfEmpty?: boolean }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (value: unknown) => void, reject })
      if (!this.#draining) void this.#drain()
    })
  }

  // Transactions asked for while another is under way share one lock, read and write: under load a
  // host's releases and requests cost one rewrite of the file together, and never contend with
  // each other for the lock.
  async #drain(): Promise<void> {
    this.#draining = true
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0)
        let release: (() => Promise<void>) | undefined
        try {
          release = await this.#acquire()
          const state = this.#read()
          const now = Date.now()
          let changed = pruneState(state, now, (host) => this.#isGone(host))
          let removeIfEmpty = false
          const results: Array<() => void> = []
          for (const op of batch) {
            try {
              const result = op.fn(state, now)
              changed ||= result.changed
              removeIfEmpty ||= result.removeIfEmpty === true
              results.push(() => op.resolve(result.value))
            } catch (error) {
              results.push(() => op.reject(error))
            }
          }
          if (removeIfEmpty && isEmptyState(state)) rmSync(this.#file, { force: true })
          else if (changed) this.#write(state)
          for (const settle of results) settle()
        } catch (error) {
          for (const op of batch) op.reject(error)
        } finally {
          await release?.().catch((error: unknown) => this.#log.warn(`the coordination store's lock ${this.#lock} could not be released: ${(error as Error).message}`))
        }
      }
    } finally {
      this.#draining = false
    }
  }

  /**
   * Runs `fn` (a host leaving), then removes the state file inside the same lock when nothing is
   * left in it, and the folders left empty after it.
   */
  async leave(fn: (state: StoreState) => void): Promise<void> {
    const emptied = await this.transact((state) => {
      fn(state)
      return { value: isEmptyState(state), changed: true, removeIfEmpty: true }
    })
    if (!emptied) return
    // Folders go only when empty (another host may be making its own there right now: rmdir fails then).
    for (const folder of [this.#dir, path.dirname(this.#dir)]) {
      if (folder === this.#root || !folder.startsWith(this.#root + path.sep)) break
      try {
        rmdirSync(folder)
      } catch {
        break
      }
    }
  }

  // The lock, tried again after a short pause while another host holds it. Released by the
  // returned function.
  async #acquire(): Promise<() => Promise<void>> {
    const problem = stateFolderProblem(this.#root, this.#file)
    if (problem !== undefined) throw new Error(problem)
    const deadline = Date.now() + LOCK_WAIT_MS
    let pause = 1
    for (;;) {
      try {
        if (tryLockFolder(this.#lock, LOCK_STALE_MS, (why) => this.#log.warn(`the coordination store's lock ${this.#lock} was set aside: ${why}`))) return async () => unlockFolder(this.#lock)
      } catch (error) {
        // No folder yet (the first host, or the last one out removed it): make it and try again.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        await mkdir(this.#dir, { recursive: true, mode: 0o700 })
        continue
      }
      if (Date.now() > deadline) throw new Error(`its lock ${this.#lock} has been held by another host for over ${LOCK_WAIT_MS / 1000} s`)
      await sleep(pause)
      pause = Math.min(pause * 2, 20)
    }
  }

  #read(): StoreState {
    const read = readStateFile(this.#file, MAX_STATE_BYTES)
    if (read === undefined) return emptyState()
    // Every host renews its entry within a second, so starting over loses only a moment's leases.
    if ('problem' in read) return this.#setAside(read.problem)
    try {
      const state = JSON.parse(read.text) as StoreState
      if (isStoreState(state)) return state
    } catch {
      // fall through: unreadable
    }
    return this.#setAside(`${this.#file} is not a state this host can read`)
  }

  // A state no host wrote (a link, a folder, oversized, malformed: what a repository can ship) is
  // moved aside, never followed or deleted, and the store starts over.
  #setAside(problem: string): StoreState {
    const aside = `${this.#file}.${Date.now().toString(36)}.set-aside`
    try {
      renameSync(this.#file, aside)
      this.#log.warn(`the coordination store's state was set aside as ${aside} (${problem}); it starts over`)
    } catch (error) {
      throw new Error(`${problem}; it could not be set aside: ${(error as Error).message}`)
    }
    return emptyState()
  }

  #write(state: StoreState): void {
    const temp = `${this.#file}.${process.pid}.${Date.now().toString(36)}.tmp`
    // O_EXCL: never through a link planted at the temporary name; rename replaces a link at the file itself.
    const fd = openSync(temp, 'wx', 0o600)
    try {
      writeSync(fd, JSON.stringify(state))
    } finally {
      closeSync(fd)
    }
    renameSync(temp, this.#file)
  }

  // A host on this machine whose process is gone (kill -9): its leases go at once, not after its
  // time to live. The pid alone may have been reused: then it lapses with HOST_TTL_MS.
  #isGone(host: HostEntry): boolean {
    if (host.machine !== this.#machine || host.pid === process.pid) return false
    try {
      process.kill(host.pid, 0)
      return false
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH'
    }
  }
}
