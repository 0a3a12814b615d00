import { lstat, open, opendir, unlink, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { isTempFileName, isThisWriter, tempFileWriter, THIS_MACHINE, type TempFileWriter } from './temp-file-names.js'
import { DIR_NOFOLLOW, fdPath, hasFdPaths } from './fd-paths.js'

export interface SweepOptions {
  /**
   * A temp file whose name names no writer on this machine (an earlier version's, or another
   * machine's on a shared folder) is removed only once last changed longer ago than this. Default one hour.
   */
  olderThanMs?: number
  /**
   * Whether a writer of this machine still runs (its pid alive, and the same process: started when
   * its name says). A dead writer's temp files go at once, whatever their age. Default: the pid is
   * alive (a reused pid then keeps a dead writer's files until they age out); createHost passes the
   * check by start time.
   */
  isWriterAlive?: (writer: TempFileWriter) => boolean
  /** Stop after looking at this many entries (a huge tree is swept in part). Default 100,000. */
  maxEntries?: number
  /** Stops the sweep (the host is closing). */
  signal?: AbortSignal
  /** The clock (ms since the epoch) the age is measured on. */
  now?: () => number
}

/** Folders never descended into: large, and never written through the wall. */
const SKIPPED = new Set(['node_modules', '.git'])

/**
 * Removes the temp files that writes killed half-way (kill -9, a crash) left in the workspace: only
 * files named as `writeFileAtomic` names them (temp-file-names.ts), only regular files; those of a
 * writer of this machine that no longer runs at once, whatever their age, never those of a live
 * writer; those whose writer it cannot see (another machine's, an earlier version's) once old (a
 * live write's temp file is seconds old). Never follows a symbolic link: each folder
 * is opened from its parent's descriptor with O_NOFOLLOW where the platform allows, so a folder
 * swapped for a link mid-sweep is skipped, not entered. Skips node_modules and .git. Never throws;
 * resolves with the root-relative paths it removed.
 *
 * @example
 * const { removed } = await sweepStaleTempFiles('/work') // ['src/.toolhost-3f2a9c1d-41236-m3x0k2a1-0a1b2c.tmp']
 */
export async function sweepStaleTempFiles(root: string, options: SweepOptions = {}): Promise<{ removed: string[] }> {
  const removed: string[] = []
  const cutoff = (options.now ?? Date.now)() - (options.olderThanMs ?? 3_600_000)
  const isAlive = options.isWriterAlive ?? pidExists
  // A file goes when its writer (of this machine) is dead; else, when it is old.
  const cutoffFor = (name: string): number => {
    const writer = tempFileWriter(name)
    if (writer === undefined || writer.machine !== THIS_MACHINE) return cutoff
    return isThisWriter(writer) || isAlive(writer) ? -Infinity : Infinity
  }
  let budget = options.maxEntries ?? 100_000
  // Depth-first, one open folder per level: [its handle (or path), its relative path, subfolders left].
  const stack: { folder: Folder; relative: string; subfolders: string[] }[] = []
  const enter = async (folder: Folder | undefined, relative: string): Promise<void> => {
    if (folder === undefined) return
    const subfolders: string[] = []
    try {
      for await (const entry of await opendir(folder.path())) {
        if (--budget < 0 || options.signal?.aborted) break
        if (entry.isDirectory()) {
          if (!SKIPPED.has(entry.name)) subfolders.push(entry.name)
        } else if (entry.isFile() && isTempFileName(entry.name) && (await removeIfStale(folder, entry.name, cutoffFor(entry.name)))) {
          removed.push(relative === '' ? entry.name : `${relative}/${entry.name}`)
        }
      }
    } catch {
      // Gone or unreadable meanwhile: nothing to sweep there.
    }
    stack.push({ folder, relative, subfolders })
  }
  await enter(await openRoot(root), '')
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    const name = budget > 0 && options.signal?.aborted !== true ? top.subfolders.pop() : undefined
    if (name === undefined) {
      stack.pop()
      await top.folder.close()
      continue
    }
    await enter(await top.folder.child(name), top.relative === '' ? name : `${top.relative}/${name}`)
  }
  return { removed }
}

/** A folder being swept: by descriptor where `/proc/self/fd` exists, else by path. */
interface Folder {
  path(name?: string): string
  child(name: string): Promise<Folder | undefined>
  close(): Promise<void>
}

async function openRoot(root: string): Promise<Folder | undefined> {
  if (!hasFdPaths) return byPath(root)
  try {
    return byDescriptor(await open(root, DIR_NOFOLLOW))
  } catch {
    return undefined
  }
}

function byDescriptor(handle: FileHandle): Folder {
  return {
    path: (name) => fdPath(handle.fd, name),
    async child(name) {
      try {
        // O_NOFOLLOW on the folder held open: a link swapped in is refused, never entered.
        return byDescriptor(await open(fdPath(handle.fd, name), DIR_NOFOLLOW))
      } catch {
        return undefined
      }
    },
    close: () => handle.close().catch(() => undefined),
  }
}

// Without descriptors: lstat before entering (a narrower race remains, as for the wall's fallback).
function byPath(folder: string): Folder {
  return {
    path: (name) => (name === undefined ? folder : path.join(folder, name)),
    async child(name) {
      const child = path.join(folder, name)
      const stats = await lstat(child).catch(() => undefined)
      return stats?.isDirectory() === true && !stats.isSymbolicLink() ? byPath(child) : undefined
    },
    close: async () => undefined,
  }
}

/** True when a process of that pid exists (ours or not: EPERM means it exists). */
function pidExists(writer: TempFileWriter): boolean {
  try {
    process.kill(writer.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Removes the file when it was last changed before `cutoff` (Infinity: whatever its age; -Infinity: never). */
async function removeIfStale(folder: Folder, name: string, cutoff: number): Promise<boolean> {
  if (cutoff === -Infinity) return false
  try {
    const stats = await lstat(folder.path(name))
    if (!stats.isFile() || stats.mtimeMs > cutoff) return false
    await unlink(folder.path(name))
    return true
  } catch {
    return false
  }
}

/** A sweep running in the background: what it removed, once done, and how to stop it. */
export interface TempSweep {
  readonly done: Promise<{ removed: string[] }>
  /** Stops the sweep and waits for it (for `host.close()`). */
  stop(): Promise<void>
}

/**
 * Starts the sweep of a host's workspace in the background (it never delays start-up), logging what
 * it removed; createHost keeps `done` as `host.services.tempSweep` and stops it when the host closes.
 *
 * @example
 * const sweep = startTempSweep({ root, log })
 * host.onClose(() => sweep.stop())
 */
export function startTempSweep(host: { root: string; log: { info(message: string): void }; isWriterAlive?: (writer: TempFileWriter) => boolean }): TempSweep {
  const stop = new AbortController()
  const done = sweepStaleTempFiles(host.root, { signal: stop.signal, ...(host.isWriterAlive ? { isWriterAlive: host.isWriterAlive } : {}) })
  void done.then(({ removed }) => {
    if (removed.length > 0) host.log.info(`removed ${removed.length} temp file(s) left by interrupted writes: ${removed.slice(0, 5).join(', ')}${removed.length > 5 ? ', …' : ''}`)
  })
  return {
    done,
    async stop() {
      stop.abort()
      await done
    },
  }
}
