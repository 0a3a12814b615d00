import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import path from 'node:path'
import { ToolhostError } from '../contract/errors.js'
import { CREATE_EXCLUSIVE } from './fd-paths.js'
import { openFolderInRoot } from './open-folder.js'
import type { ResolvedPath } from './resolve-in-root.js'
import { tempFileName } from './temp-file-names.js'
import { writeWhole } from './write-whole.js'

export interface WriteOutcome {
  /** True when no file had the name before. */
  created: boolean
  /** Bytes written. */
  bytes: number
}

/**
 * Writes `content` to a path the wall already resolved, atomically: the parent folders are created
 * and opened without following any symlink (see `openFolderInRoot`), the text goes to a fresh
 * temporary file in that same folder (`O_CREAT | O_EXCL | O_NOFOLLOW`), which is then renamed over
 * the name. Readers see the old file or the new one, never half; a symlink swapped in at the final
 * name is replaced, never followed; an existing file keeps its permission bits.
 *
 * @example
 * await writeFileAtomic('/work', resolveInRoot('notes/today.md', '/work'), '# Today\n', false)
 */
export async function writeFileAtomic(root: string, target: ResolvedPath, content: string | Uint8Array, caseInsensitive: boolean, portable = false): Promise<WriteOutcome> {
  const { parts, name } = splitTarget(target)
  const folder = await openFolderInRoot(root, parts, { create: true, caseInsensitive, expected: path.dirname(target.path), portable })
  try {
    const finalPath = folder.entry(name)
    const existing = await lstatOrUndefined(finalPath)
    if (existing?.isDirectory()) throw new ToolhostError('E_ARGS_INVALID', `"${target.input}" is a folder; give the path of a file`)
    const mode = existing?.isFile() ? existing.mode & 0o7777 : 0o666
    const temp = folder.entry(tempFileName())
    let handle: FileHandle | undefined
    let bytes: number
    try {
      handle = await open(temp, CREATE_EXCLUSIVE, mode)
      bytes = await writeWhole(handle, content)
      if (existing?.isFile()) await handle.chmod(mode)
      await handle.close()
      handle = undefined
      await rename(temp, finalPath)
    } catch (error) {
      await handle?.close().catch(() => undefined)
      await unlink(temp).catch(() => undefined)
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ToolhostError('E_NOT_FOUND', `the folder of "${target.input}" was removed while the call ran; nothing was written. Try again`)
      }
      throw error
    }
    return { created: existing === undefined, bytes }
  } finally {
    await folder.close()
  }
}

/**
 * Removes a file the wall already resolved (`unlink` never follows a symlink); used by `patch` to
 * delete a file and to roll back a file it created. Missing files are not an error.
 */
export async function removeFileInRoot(root: string, target: ResolvedPath, caseInsensitive: boolean, portable = false): Promise<void> {
  const { parts, name } = splitTarget(target)
  const folder = await openFolderInRoot(root, parts, { create: false, caseInsensitive, expected: path.dirname(target.path), portable })
  try {
    const entry = folder.entry(name)
    const stats = await lstatOrUndefined(entry)
    if (stats === undefined) return
    if (stats.isDirectory()) throw new ToolhostError('E_ARGS_INVALID', `"${target.input}" is a folder; only files can be removed`)
    await unlink(entry)
  } finally {
    await folder.close()
  }
}

function splitTarget(target: ResolvedPath): { parts: string[]; name: string } {
  if (target.relative === '.') throw new ToolhostError('E_ARGS_INVALID', `"${target.input}" is the workspace root folder; give the path of a file inside it`)
  const parts = target.relative.split('/')
  const name = parts.pop()!
  return { parts, name }
}

async function lstatOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await lstat(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

