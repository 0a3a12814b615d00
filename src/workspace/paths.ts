import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ToolhostError } from '../contract/errors.js'

/**
 * The one canonical form of a path, used by the scheduler (do two calls overlap?) and by the
 * workspace wall (is it inside the root?).
 *
 * Steps: reject non-strings and NUL bytes; expand `~`; resolve against the root (never the process
 * cwd); normalise `.`/`..` lexically; then walk the components, following every symlink that exists
 * (dangling and chained ones too), so a link and its target canonicalise to the same string; finally
 * take the OS's spelling of the existing prefix (true case on case-insensitive file systems).
 *
 * @example
 * canonicalPath('src/../a.txt', '/work') // '/work/a.txt'
 */
export function canonicalPath(input: unknown, root: string): string {
  if (typeof input !== 'string') {
    throw new ToolhostError('E_ARGS_INVALID', `a path must be a string, got ${input === null ? 'null' : typeof input}`)
  }
  if (input.includes('\0')) throw new ToolhostError('E_ARGS_INVALID', 'a path must not contain a NUL byte')
  if (input.trim() === '') throw new ToolhostError('E_ARGS_INVALID', 'a path must not be empty')
  return resolveLinks(path.resolve(root, expandHome(input)))
}

/**
 * `~` and `~/x` name the home folder (and lead outside any workspace that is not under it).
 *
 * @example
 * expandHome('~/notes.txt') // '/home/ada/notes.txt'
 */
export function expandHome(input: string): string {
  if (input === '~') return os.homedir()
  if (input.startsWith('~/') || input.startsWith('~' + path.sep)) return path.join(os.homedir(), input.slice(2))
  return input
}

const MAX_LINKS = 40

function resolveLinks(absolute: string): string {
  const pending = absolute.split(path.sep).filter(Boolean)
  let current = path.parse(absolute).root
  let exists = true
  let links = 0
  let lastExisting = current
  while (pending.length > 0) {
    const part = pending.shift()!
    if (part === '.') continue
    if (part === '..') {
      // Only a link's target can still hold '..' here (input was normalised lexically). Going up
      // may climb back out of a missing part into existing folders, whose links must be followed.
      current = path.dirname(current)
      exists = pathExists(current)
      if (exists) lastExisting = current
      continue
    }
    const next = path.join(current, part)
    if (!exists) {
      current = next
      continue
    }
    let isLink = false
    try {
      isLink = lstatSync(next).isSymbolicLink()
    } catch {
      exists = false
      current = next
      continue
    }
    if (isLink) {
      if (++links > MAX_LINKS) throw new ToolhostError('E_ARGS_INVALID', `too many symbolic links while resolving ${absolute}`)
      const target = readlinkSync(next)
      pending.unshift(...target.split(path.sep).filter(Boolean))
      if (path.isAbsolute(target)) {
        current = path.parse(target).root
        lastExisting = current
      }
      continue
    }
    current = next
    lastExisting = current
  }
  return withOsSpelling(current, lastExisting)
}

function pathExists(candidate: string): boolean {
  try {
    lstatSync(candidate)
    return true
  } catch {
    return false
  }
}

// On case-insensitive file systems the OS knows the true spelling of what exists; use it so that
// `SRC/A.ts` and `src/a.ts` give the same string.
function withOsSpelling(full: string, existingPrefix: string): string {
  let spelled: string
  try {
    spelled = realpathSync.native(existingPrefix)
  } catch {
    return full
  }
  if (spelled === existingPrefix) return full
  return spelled + full.slice(existingPrefix.length)
}

const caseCache = new Map<string, boolean>()

/**
 * True when the file system holding `dir` ignores case (macOS, Windows by default). Probed once per
 * folder by looking the folder up with its name's case swapped.
 *
 * @example
 * isCaseInsensitiveFs('/Users/ada/work') // true on a default macOS volume, false on Linux ext4
 */
export function isCaseInsensitiveFs(dir: string): boolean {
  const cached = caseCache.get(dir)
  if (cached !== undefined) return cached
  let result = false
  let probe = dir
  // Find an ancestor whose name has letters, so swapping case changes it.
  while (probe !== path.dirname(probe) && path.basename(probe).toUpperCase() === path.basename(probe).toLowerCase()) {
    probe = path.dirname(probe)
  }
  const name = path.basename(probe)
  if (name !== '') {
    const swapped = path.join(path.dirname(probe), swapCase(name))
    try {
      const a = statSync(probe)
      const b = statSync(swapped)
      result = a.ino === b.ino && a.dev === b.dev
    } catch {
      result = false
    }
  } else {
    result = process.platform === 'win32' || process.platform === 'darwin'
  }
  caseCache.set(dir, result)
  return result
}

function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')
}

/**
 * The form two canonical paths are compared in: case folded where the file system ignores case.
 *
 * @example
 * comparablePath('/W/Src/A.ts', true) // '/w/src/a.ts'
 */
export function comparablePath(canonical: string, caseInsensitive: boolean): string {
  return caseInsensitive ? canonical.toLowerCase() : canonical
}

/**
 * True when one path is the other or lies beneath it, compared by whole components:
 * `a` overlaps `a/b`; `a/b` does not overlap `a/bc`. Inputs are comparable canonical paths.
 *
 * @example
 * pathsOverlap('/w/a', '/w/a/b') // true
 * pathsOverlap('/w/a/b', '/w/a/bc') // false
 */
export function pathsOverlap(a: string, b: string): boolean {
  return isWithin(a, b) || isWithin(b, a)
}

/**
 * True when `child` is `parent` or beneath it (by components). Inputs are comparable canonical paths.
 *
 * @example
 * isWithin('/w/src/a.ts', '/w') // true
 */
export function isWithin(child: string, parent: string): boolean {
  if (child === parent) return true
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep
  return child.startsWith(prefix)
}

/**
 * The path of `canonical` relative to `root`, with `/` separators ('.' for the root itself).
 *
 * @example
 * relativeToRoot('/w/src/a.ts', '/w') // 'src/a.ts'
 */
export function relativeToRoot(canonical: string, root: string): string {
  const relative = path.relative(root, canonical)
  return relative === '' ? '.' : relative.split(path.sep).join('/')
}

/** A path from config: absolute as given, else relative to the workspace root. */
export function underRoot(root: string, configured: string): string {
  return path.resolve(root, configured)
}
