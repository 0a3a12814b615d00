import { closeSync, constants, openSync, readlinkSync } from 'node:fs'
import { readlink } from 'node:fs/promises'

// On Linux, `/proc/self/fd/N/name` looks `name` up inside the folder that descriptor N holds open,
// whatever has since been renamed or swapped along the path that opened it: the `openat` family,
// reachable from Node. Where it is missing, the wall falls back to path checks (see docs/workspace.md).
const FD_DIR = '/proc/self/fd'

/** True when this process can address open folders by descriptor (`/proc/self/fd`, Linux). */
export const hasFdPaths: boolean = probe()

function probe(): boolean {
  if (process.platform !== 'linux') return false
  let fd: number | undefined
  try {
    fd = openSync('/', constants.O_RDONLY | constants.O_DIRECTORY)
    return readlinkSync(fdPath(fd)) === '/'
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** The path that names `name` inside the folder open as `fd` (or the descriptor itself). */
export function fdPath(fd: number, name?: string): string {
  return name === undefined ? `${FD_DIR}/${fd}` : `${FD_DIR}/${fd}/${name}`
}

/** Where the kernel says descriptor `fd` points, or undefined where it cannot say. */
export async function realPathOfFd(fd: number): Promise<string | undefined> {
  if (!hasFdPaths) return undefined
  try {
    return await readlink(fdPath(fd))
  } catch {
    return undefined
  }
}

/** Flags: open a folder without following a final symlink. */
export const DIR_NOFOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
/** Flags: open a file to read without following a final symlink or blocking on a FIFO. */
export const READ_NOFOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
/** Flags: create a new file, failing if anything (file or symlink) already has the name. */
export const CREATE_EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
