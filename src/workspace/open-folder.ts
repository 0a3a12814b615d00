import { lstat, mkdir, open, realpath, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { ToolhostError } from '../contract/errors.js'
import { comparablePath } from './paths.js'
import { DIR_NOFOLLOW, fdPath, hasFdPaths, realPathOfFd } from './fd-paths.js'

/** A folder inside the root, held open where the platform allows, to create and rename names in. */
export interface OpenFolder {
  /** The path naming `name` inside this very folder (through its descriptor on Linux). */
  entry(name: string): string
  close(): Promise<void>
}

export interface OpenFolderOptions {
  /** Create missing folders (each one verified as it is made). */
  create: boolean
  caseInsensitive: boolean
  /** The canonical folder the walk must end in; anything else means the tree changed underneath. */
  expected: string
  /** Use the path-based fallback even where `/proc/self/fd` exists (tests of the fallback). */
  portable?: boolean
}

/**
 * Opens the folder `root/parts…` by walking down from the root one component at a time without
 * following any symbolic link (each step `O_DIRECTORY | O_NOFOLLOW` relative to the folder opened
 * before it), creating missing folders when asked, then checks with the kernel that the folder held
 * open is `expected`. A symlink swapped in anywhere along the way — before or during the walk — is
 * refused, never followed. Without `/proc/self/fd` it falls back to lstat checks per component and a
 * realpath check at the end (a narrower race remains; see docs/workspace.md).
 *
 * @example
 * const folder = await openFolderInRoot('/work', ['src', 'new'], { create: true, caseInsensitive: false, expected: '/work/src/new' })
 */
export async function openFolderInRoot(root: string, parts: readonly string[], options: OpenFolderOptions): Promise<OpenFolder> {
  return hasFdPaths && options.portable !== true ? walkByDescriptor(root, parts, options) : walkByPath(root, parts, options)
}

async function walkByDescriptor(root: string, parts: readonly string[], options: OpenFolderOptions): Promise<OpenFolder> {
  let handle: FileHandle = await open(root, DIR_NOFOLLOW)
  try {
    let shown = '.'
    for (const part of parts) {
      shown = shown === '.' ? part : `${shown}/${part}`
      const next = await openChild(handle, part, shown, options.create)
      await handle.close()
      handle = next
    }
    const real = await realPathOfFd(handle.fd)
    if (real === undefined || !samePath(real, options.expected, options.caseInsensitive)) throw changedUnderneath(options.expected)
  } catch (error) {
    await handle.close()
    throw error
  }
  const held = handle
  return { entry: (name) => fdPath(held.fd, name), close: () => held.close() }
}

async function openChild(parent: FileHandle, part: string, shown: string, create: boolean): Promise<FileHandle> {
  const where = fdPath(parent.fd, part)
  try {
    return await open(where, DIR_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && create) {
      try {
        await mkdir(where)
      } catch (made) {
        // ENOENT here: the folder held open was deleted meanwhile.
        if ((made as NodeJS.ErrnoException).code !== 'EEXIST') throw await describeBlocked(where, shown, made)
      }
      try {
        return await open(where, DIR_NOFOLLOW)
      } catch (again) {
        throw await describeBlocked(where, shown, again)
      }
    }
    throw await describeBlocked(where, shown, error)
  }
}

async function walkByPath(root: string, parts: readonly string[], options: OpenFolderOptions): Promise<OpenFolder> {
  let current = root
  let shown = '.'
  for (const part of parts) {
    current = path.join(current, part)
    shown = shown === '.' ? part : `${shown}/${part}`
    try {
      const stats = await lstat(current)
      if (stats.isSymbolicLink()) throw symlinkAppeared(shown)
      if (!stats.isDirectory()) throw notAFolder(shown)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      if (!options.create) throw missingFolder(shown)
      await mkdir(current).catch((made: NodeJS.ErrnoException) => {
        if (made.code !== 'EEXIST') throw made
      })
      const stats = await lstat(current)
      if (!stats.isDirectory() || stats.isSymbolicLink()) throw symlinkAppeared(shown)
    }
  }
  const folder = current
  const verify = async (): Promise<void> => {
    if (!samePath(await realpath(folder), options.expected, options.caseInsensitive)) throw changedUnderneath(options.expected)
  }
  await verify()
  return { entry: (name) => path.join(folder, name), close: async () => undefined }
}

async function describeBlocked(where: string, shown: string, error: unknown): Promise<Error> {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return missingFolder(shown)
  if (code === 'ENOTDIR' || code === 'ELOOP') {
    const stats = await lstat(where).catch(() => undefined)
    return stats?.isSymbolicLink() === true ? symlinkAppeared(shown) : notAFolder(shown)
  }
  return error as Error
}

function samePath(a: string, b: string, caseInsensitive: boolean): boolean {
  return comparablePath(a, caseInsensitive) === comparablePath(b, caseInsensitive)
}

function symlinkAppeared(shown: string): ToolhostError {
  return new ToolhostError('E_PATH_OUTSIDE_ROOT', `"${shown}" became a symbolic link while the call ran; nothing was written. Check the folder and try again`)
}

function notAFolder(shown: string): ToolhostError {
  return new ToolhostError('E_ARGS_INVALID', `"${shown}" is a file, not a folder, so nothing can be created beneath it; choose another path`)
}

function missingFolder(shown: string): ToolhostError {
  return new ToolhostError('E_NOT_FOUND', `the folder "${shown}" does not exist`)
}

function changedUnderneath(expected: string): ToolhostError {
  return new ToolhostError('E_PATH_OUTSIDE_ROOT', `the folder ${expected} was moved or replaced while the call ran; nothing was written. Try again`)
}
