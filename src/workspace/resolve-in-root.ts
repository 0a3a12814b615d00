import { ToolhostError, isToolhostError } from '../contract/errors.js'
import { canonicalPath, comparablePath, isCaseInsensitiveFs, isWithin, relativeToRoot } from './paths.js'

/** A model's path after the wall: canonical (absolute, symlinks followed) and root-relative. */
export interface ResolvedPath {
  /** The canonical absolute path (same form the scheduler uses for footprints). */
  path: string
  /** Relative to the root with `/` separators; '.' for the root itself. */
  relative: string
  /** The text the model sent, for messages. */
  input: string
}

export interface ResolveOptions {
  /** Compare case-insensitively (default: probed on the root's file system). */
  caseInsensitive?: boolean
}

/**
 * Resolves a path the model sent to a canonical path inside `root`, or throws a `ToolhostError`:
 * `E_ARGS_INVALID` for a non-string, empty or NUL-carrying path, `E_PATH_OUTSIDE_ROOT` for anything
 * that leads outside (absolute paths, `..`, `~`, a sibling folder sharing the root's prefix, symlinks
 * pointing out, dangling or chained). Relative paths resolve against the root, never the process cwd.
 * `root` must itself be canonical (the host's root is).
 *
 * @example
 * resolveInRoot('src/../a.txt', '/work')    // { path: '/work/a.txt', relative: 'a.txt', input: 'src/../a.txt' }
 * resolveInRoot('../work-sibling/x', '/work') // throws E_PATH_OUTSIDE_ROOT
 */
export function resolveInRoot(input: unknown, root: string, options: ResolveOptions = {}): ResolvedPath {
  let canonical: string
  try {
    canonical = canonicalPath(input, root)
  } catch (error) {
    if (isToolhostError(error)) throw new ToolhostError(error.code, `path: ${error.message}`)
    throw error
  }
  const text = input as string
  if (!isInsideRoot(canonical, root, options.caseInsensitive ?? isCaseInsensitiveFs(root))) {
    throw outsideRoot(text, root)
  }
  return { path: canonical, relative: relativeToRoot(canonical, root), input: text }
}

/** True when the canonical `candidate` is `root` or lies beneath it (by whole components). */
export function isInsideRoot(candidate: string, root: string, caseInsensitive: boolean): boolean {
  return isWithin(comparablePath(candidate, caseInsensitive), comparablePath(root, caseInsensitive))
}

/**
 * The error for a path that leads outside; it never says where a link points, nor where the root
 * is on the server (clients see paths relative to the root only).
 */
export function outsideRoot(input: string, _root?: string): ToolhostError {
  return new ToolhostError(
    'E_PATH_OUTSIDE_ROOT',
    `the path "${input}" leads outside the workspace root (absolute paths, "..", "~" and symbolic links may not leave it); use a path inside the root, relative to it`,
  )
}
