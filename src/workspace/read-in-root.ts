import { open, realpath, stat, type FileHandle } from 'node:fs/promises'
import { ToolhostError } from '../contract/errors.js'
import { comparablePath } from './paths.js'
import { READ_NOFOLLOW, realPathOfFd } from './fd-paths.js'
import type { ResolvedPath } from './resolve-in-root.js'

/**
 * Reads a file the wall already resolved, and proves that what was opened is what was checked: it
 * opens without following a final symlink (and without blocking on a FIFO), asks the kernel where the
 * open descriptor really points, and hands any different place to `recheck` (the wall), which throws
 * if it is outside or denied — so a folder swapped for a symlink between check and open leaks
 * nothing. Folders and other non-regular files are refused.
 *
 * @example
 * const bytes = await readFileInRoot(resolved, (real) => workspace.recheck(real, 'read', resolved.input), false)
 */
export async function readFileInRoot(target: ResolvedPath, recheck: (real: string) => void, caseInsensitive: boolean, portable = false): Promise<Buffer> {
  let handle: FileHandle
  try {
    handle = await open(target.path, READ_NOFOLLOW)
  } catch (error) {
    throw describeOpenError(target, error)
  }
  try {
    const real = (portable ? undefined : await realPathOfFd(handle.fd)) ?? (await fallbackRealPath(handle, target))
    if (comparablePath(real, caseInsensitive) !== comparablePath(target.path, caseInsensitive)) recheck(real)
    const stats = await handle.stat()
    if (stats.isDirectory()) throw new ToolhostError('E_ARGS_INVALID', `"${target.input}" is a folder, not a file; use search_files with target "files" to list it`)
    if (!stats.isFile()) throw new ToolhostError('E_ARGS_INVALID', `"${target.input}" is not a regular file (a device, socket or FIFO); only regular files can be read`)
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

// Without /proc: the path must still lead to the very file that is open (same device and inode).
async function fallbackRealPath(handle: FileHandle, target: ResolvedPath): Promise<string> {
  const [opened, named, real] = await Promise.all([handle.stat(), stat(target.path), realpath(target.path)])
  if (opened.ino !== named.ino || opened.dev !== named.dev) {
    throw new ToolhostError('E_PATH_OUTSIDE_ROOT', `"${target.input}" changed while it was being opened; nothing was read. Try again`)
  }
  return real
}

function describeOpenError(target: ResolvedPath, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return new ToolhostError('E_NOT_FOUND', `there is no file at "${target.input}"; check the path (search_files with target "files" lists names)`)
  if (code === 'ELOOP') return new ToolhostError('E_PATH_OUTSIDE_ROOT', `"${target.input}" became a symbolic link while the call ran; nothing was read. Try again`)
  if (code === 'EACCES' || code === 'EPERM') return new ToolhostError('E_TOOL_FAILED', `"${target.input}" cannot be read: permission denied`)
  return error as Error
}
