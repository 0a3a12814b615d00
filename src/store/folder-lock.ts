import { lstatSync, mkdirSync, renameSync, rmdirSync, rmSync } from 'node:fs'

/**
 * The local store's lock: a folder made with mkdir (atomic on every local file system: exactly one
 * maker succeeds), removed to release. Held for one transaction (a read and a rename, milliseconds),
 * so a lock older than `staleMs` belongs to a host that died holding it: it is moved aside under a
 * unique name (only one breaker's rename succeeds) and removed. So is one no host made: dated more
 * than `staleMs` in the future, or not a folder at all (a link, dangling or not, a file: what a
 * cloned repository can ship); `onBroken` hears why.
 *
 * Not proper-lockfile: it loads signal-exit, which installs handlers for a dozen signals in the
 * whole process, so a signal the parent set to be ignored (SIGHUP under nohup, SIGXFSZ) kills the
 * host instead — in every host, and in every app embedding one.
 *
 * @example
 * if (tryLockFolder('/ws/.toolhost/store/state.lock', 2000)) try { update() } finally { unlockFolder('/ws/.toolhost/store/state.lock') }
 */
export function tryLockFolder(lock: string, staleMs: number, onBroken?: (why: string) => void): boolean {
  try {
    mkdirSync(lock, { mode: 0o700 })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  let age: number
  let isFolder: boolean
  try {
    // lstat: a link is never followed (a dangling one made every host wait for ever).
    const stats = lstatSync(lock)
    age = Date.now() - stats.mtimeMs
    isFolder = stats.isDirectory()
  } catch {
    return false // released meanwhile: the next attempt takes it
  }
  const why = !isFolder ? 'it is not a folder a host made (a link or a file)' : age > staleMs ? undefined : age < -staleMs ? `it is dated ${Math.round(-age / 1000)} s in the future` : undefined
  if (!isFolder || age > staleMs || age < -staleMs) {
    const aside = `${lock}.${process.pid}.${Date.now().toString(36)}.stale`
    try {
      renameSync(lock, aside)
      // A rename moves a link itself, never what it points at; the link or file is then removed.
      if (isFolder) rmdirSync(aside)
      else rmSync(aside, { force: true })
      if (why !== undefined) onBroken?.(why)
    } catch {
      // another host broke it first
    }
  }
  return false
}

/** Releases a lock taken with `tryLockFolder`. */
export function unlockFolder(lock: string): void {
  rmdirSync(lock)
}
