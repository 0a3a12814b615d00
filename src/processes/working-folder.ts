import { statSync } from 'node:fs'
import path from 'node:path'
import { ToolhostError } from '../contract/errors.js'
import { canonicalPath, comparablePath, isWithin } from '../workspace/paths.js'

/**
 * The canonical working folder for a command: `input` resolved against the workspace root (default:
 * the root itself). Outside the root (through `..`, an absolute path or a symlink) is
 * `E_PATH_OUTSIDE_ROOT`; a missing folder `E_NOT_FOUND`; a file `E_ARGS_INVALID`.
 *
 * @example
 * resolveWorkingFolder('sub/dir', '/ws', false) // '/ws/sub/dir'
 */
export function resolveWorkingFolder(input: string | undefined, root: string, caseInsensitive: boolean): string {
  const canonical = canonicalPath(input ?? '.', root)
  if (!isWithin(comparablePath(canonical, caseInsensitive), comparablePath(root, caseInsensitive))) {
    throw new ToolhostError('E_PATH_OUTSIDE_ROOT', `the working folder ${JSON.stringify(input)} leads outside the workspace root; give a folder inside the root (relative paths are relative to it)`)
  }
  let isFolder = false
  try {
    isFolder = statSync(canonical).isDirectory()
  } catch {
    throw new ToolhostError('E_NOT_FOUND', `the working folder ${JSON.stringify(input)} does not exist (${path.relative(root, canonical) || '.'} in the workspace root); create it first or use another folder`)
  }
  if (!isFolder) throw new ToolhostError('E_ARGS_INVALID', `the working folder ${JSON.stringify(input)} is a file, not a folder`)
  return canonical
}
