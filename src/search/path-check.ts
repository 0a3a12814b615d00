// The wall applied again to each path ripgrep prints (ripgrep's own rules only spare it work): inside
// the start, no node_modules or .git folder below it, no temp file, not denied, and reached without
// any link (links are never followed).
import path from 'node:path'
import { isTempFileName } from '../workspace/temp-file-names.js'
import { canonicalPath, comparablePath } from '../workspace/paths.js'
import type { Workspace } from '../workspace/workspace.js'
import { passesGlob, type CompiledSearch } from './compile-search.js'
import { SKIPPED_FOLDERS } from './search-limits.js'

// An absolute path, an empty part, or a "." or ".." part.
const UNSAFE = /^\/|\/\/|(?:^|\/)\.\.?(?:\/|$)|\/$/

/**
 * Decides each printed path once (ripgrep prints a file's matches together, so the last decision is kept).
 *
 * @example
 * const check = new PathCheck(ws, 'src')
 * check.relative('src/a.ts') // 'src/a.ts'; check.relative('../x') // undefined
 */
export class PathCheck {
  readonly #ws: Workspace
  readonly #start: string
  #last: { relative: string; admitted: boolean } | undefined

  constructor(ws: Workspace, startRelative: string) {
    this.#ws = ws
    this.#start = startRelative
  }

  /** The root-relative form of a path ripgrep printed, or undefined when it is not under the start. */
  relative(printed: string): string | undefined {
    const relative = printed.startsWith('./') ? printed.slice(2) : printed
    if (relative === '' || UNSAFE.test(relative)) return undefined
    if (this.#start !== '.' && !relative.startsWith(`${this.#start}/`)) return undefined
    return relative
  }

  /** The path relative to the start (what a glob with "/" is matched against). */
  fromStart(relative: string): string {
    return this.#start === '.' ? relative : relative.slice(this.#start.length + 1)
  }

  /** The cheap checks: no skipped folder below the start, not a temp file, not denied. */
  isListed(relative: string): boolean {
    const below = this.fromStart(relative).split('/')
    if (isTempFileName(below.at(-1)!)) return false
    for (let i = 0; i < below.length - 1; i++) if (SKIPPED_FOLDERS.has(below[i]!)) return false
    return !this.#ws.isDenied(relative)
  }

  /** True when no part of the path is a link and the wall lets it be read. */
  isLinkFree(relative: string): boolean {
    const ws = this.#ws
    const lexical = path.join(ws.root, ...relative.split('/'))
    try {
      const canonical = canonicalPath(relative, ws.root)
      if (comparablePath(canonical, ws.caseInsensitive) !== comparablePath(lexical, ws.caseInsensitive)) return false
      ws.recheck(canonical, 'read')
      return true
    } catch {
      return false
    }
  }

  /** Every check, and the glob, for a file whose lines ripgrep printed (decided once per file). */
  admits(relative: string, compiled: CompiledSearch): boolean {
    if (this.#last?.relative === relative) return this.#last.admitted
    const admitted = this.isListed(relative) && passesGlob(compiled, this.fromStart(relative)) && this.isLinkFree(relative)
    this.#last = { relative, admitted }
    return admitted
  }
}
