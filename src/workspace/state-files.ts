import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import path from 'node:path'

// The host's own files inside the workspace (`.toolhost/durations.json`, `.toolhost/audit.jsonl`,
// the process checkpoint): anything in the workspace can be planted by a cloned repository or a
// command, so they are never read or written through a symbolic link (a link at `.toolhost`, or at
// the file, would have the host overwrite or append to a file outside the root), and never opened
// when they are a FIFO or a device (opening or reading one blocks for good).

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK

/**
 * What is wrong with the folders from `root` down to `file`'s folder, for the host to write its own
 * file there: a symbolic link or something not a folder on the way. Folders not made yet are fine
 * (they are made as real folders). A file outside `root` is the operator's choice: not checked.
 *
 * @example
 * stateFolderProblem('/ws', '/ws/.toolhost/audit.jsonl') // '/ws/.toolhost is a symbolic link' when it is one
 */
export function stateFolderProblem(root: string, file: string): string | undefined {
  const relative = path.relative(root, path.dirname(file))
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined
  let at = root
  for (const part of relative.split(path.sep)) {
    at = path.join(at, part)
    let stats
    try {
      stats = lstatSync(at)
    } catch {
      return undefined // not made yet: mkdir makes real folders from here on
    }
    if (stats.isSymbolicLink()) return `${at} is a symbolic link (only the host writes there; remove the link)`
    if (!stats.isDirectory()) return `${at} is not a folder`
  }
  return undefined
}

/**
 * Reads one of the host's own files, at most `maxBytes`: undefined when it does not exist; a
 * problem when it is a link, not a regular file, or too large. Never blocks on a FIFO.
 *
 * @example
 * readStateFile('/ws/.toolhost/durations.json', 1 << 20) // { text: '{"version":1,…}' }
 */
export function readStateFile(file: string, maxBytes: number): { text: string } | { problem: string } | undefined {
  let fd: number
  try {
    fd = openSync(file, READ_FLAGS)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP') return { problem: `${file} is a symbolic link; it was not followed (only the host writes this file; remove the link)` }
    return { problem: `cannot read ${file}: ${(error as Error).message}` }
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) return { problem: `${file} is not a regular file; it was not read` }
    if (stats.size > maxBytes) return { problem: `${file} is ${stats.size} bytes, over the ${maxBytes}-byte limit; it was not read` }
    const buffer = Buffer.alloc(stats.size)
    let read = 0
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read)
      if (n === 0) break
      read += n
    }
    return { text: buffer.subarray(0, read).toString('utf8') }
  } catch (error) {
    return { problem: `cannot read ${file}: ${(error as Error).message}` }
  } finally {
    closeSync(fd)
  }
}

/**
 * Appends `text` to one of the host's own files, creating it: never through a link at the file
 * (O_NOFOLLOW), and only to a regular file (a FIFO with no reader is refused at once, O_NONBLOCK).
 * The caller checks the folders first (`stateFolderProblem`). Throws what went wrong.
 *
 * @example
 * await appendStateFile('/ws/.toolhost/audit.jsonl', '{"decision":"allow"}\n')
 */
export async function appendStateFile(file: string, text: string): Promise<void> {
  const handle = await openStateFileToAppend(file)
  try {
    await handle.writeFile(text, 'utf8')
  } finally {
    await handle.close()
  }
}

/**
 * Opens one of the host's own files to append to (as `appendStateFile` does), for a writer that
 * writes it in pieces; the caller closes the handle. Throws what went wrong.
 *
 * @example
 * const handle = await openStateFileToAppend('/ws/.toolhost/audit.jsonl')
 * try { await handle.write(chunk) } finally { await handle.close() }
 */
export async function openStateFileToAppend(file: string): Promise<FileHandle> {
  let handle
  try {
    handle = await open(file, APPEND_FLAGS, 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new Error(`${file} is a symbolic link; it was not followed (only the host writes this file; remove the link)`)
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw new Error(`${file} is not a regular file`)
    throw error
  }
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${file} is not a regular file`)
  } catch (error) {
    await handle.close()
    throw error
  }
  return handle
}
