import { mkdirSync, renameSync, rmdirSync, statSync } from 'node:fs'

/**
 * The local store's lock: a folder made with mkdir (atomic on every local file system: exactly one
 * maker succeeds), removed to release. Held for one transaction (a read and a rename, milliseconds),
 * so a lock older than `staleMs` belongs to a host that died holding it: it is moved aside under a
 * unique name (only one breaker's rename succeeds) and removed.
 *
 * Not proper-lockfile: it loads signal-exit, which installs handlers for a dozen signals in the
 * whole process, so a signal the parent set to be ignored (SIGHUP under nohup, SIGXFSZ) kills the
 * host instead — in every host, and in every app embedding one.
 *
 * @example
 * if (tryLockFolder('/ws/.toolhost/store/state.lock', 2000)) try { update() } finally { unlockFolder('/ws/.toolhost/store/state.lock') }
 */
export function tryLockFolder(lock: string, staleMs: number): boolean {
  try {
    mkdirSync(lock, { mode: 0o700 })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  let age: number
  try {
    age = Date.now() - statSync(lock).mtimeMs
  } catch {
    return false // released meanwhile: the next attempt takes it
  }
  if (age > staleMs) {
    const aside = `${lock}.${process.pid}.${Date.now().toString(36)}.stale`
    try {
      renameSync(lock, aside)
      rmdirSync(aside)
    } catch {
      // another host broke it first, or it is not a folder (then mkdir keeps failing: the caller's deadline reports it)
    }
  }
  return false
}

/** Releases a lock taken with `tryLockFolder`. */
export function unlockFolder(lock: string): void {
  rmdirSync(lock)
}
