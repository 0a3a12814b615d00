import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { ToolhostError } from '../contract/errors.js'

/**
 * Refuses a file a scaffold (`init`, `new-plugin`) is about to write when it, or a folder on its way
 * from `folder`, is a symbolic link leading out of `folder` or to nothing: a cloned repository can
 * ship `.gitignore` or `plugins/` as a link, and writing through it changed a file outside. A link
 * that stays inside the folder is followed as usual. Throws `E_PATH_OUTSIDE_ROOT` naming the link.
 *
 * @example
 * refuseLinkOut('/home/me/app', '/home/me/app/.gitignore') // throws when .gitignore links to ~/.bashrc
 */
export function refuseLinkOut(command: string, folder: string, file: string): void {
  let real: string
  try {
    real = realpathSync.native(folder)
  } catch {
    return // no folder yet: everything under it is made fresh
  }
  let at = folder
  for (const part of path.relative(folder, file).split(path.sep)) {
    at = path.join(at, part)
    let isLink: boolean
    try {
      isLink = lstatSync(at).isSymbolicLink()
    } catch {
      return // not made yet: the scaffold makes real folders and files from here on
    }
    if (!isLink) continue
    const shown = path.relative(folder, at)
    let target: string
    try {
      target = realpathSync.native(at)
    } catch {
      throw new ToolhostError('E_PATH_OUTSIDE_ROOT', `${command}: ${shown} is a symbolic link to ${readlinkSync(at)}, which does not exist; ${command} never writes through a link: remove it (or make it a real file or folder), then run ${command} again`)
    }
    const relative = path.relative(real, target)
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new ToolhostError('E_PATH_OUTSIDE_ROOT', `${command}: ${shown} is a symbolic link leading out of this folder (to ${target}); ${command} never writes through such a link: remove it, then run ${command} again`)
    }
  }
}
