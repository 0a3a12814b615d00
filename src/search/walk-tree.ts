// The JavaScript engine's walk: depth first, names sorted in each folder (files and folders
// together, by UTF-16 code unit), never following a link; it leaves out node_modules and .git
// folders below the start, toolhost's temp files, what workspace.deny denies and what .gitignore
// files (the root's down to each folder's own) ignore.
import { lstat, opendir } from 'node:fs/promises'
import path from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { ToolhostError } from '../contract/errors.js'
import { isTempFileName } from '../workspace/temp-file-names.js'
import type { ResolvedPath } from '../workspace/resolve-in-root.js'
import type { Workspace } from '../workspace/workspace.js'
import { foldersAbove, readGitignore } from './gitignore-files.js'
import { SKIPPED_FOLDERS } from './search-limits.js'

interface Rules { base: string; rules: Ignore }

/**
 * Visits every file under `start` (or `start` itself, a file) in walk order; `visit` returns
 * false to stop. A missing start is E_NOT_FOUND; an aborted signal E_INTERRUPTED.
 *
 * @example
 * await walkTree(ws, ws.resolve('src', 'read'), async (file) => (console.log(file.relative), true), signal)
 */
export async function walkTree(ws: Workspace, start: ResolvedPath, visit: (file: ResolvedPath) => Promise<boolean>, signal: AbortSignal): Promise<void> {
  const rules: Rules[] = []
  const isIgnored = (relative: string, isDir: boolean): boolean =>
    rules.some((r) => {
      const inside = r.base === '' ? relative : relative.startsWith(`${r.base}/`) ? relative.slice(r.base.length + 1) : undefined
      return inside !== undefined && r.rules.ignores(isDir ? `${inside}/` : inside)
    })
  for (const base of foldersAbove(start)) await loadIgnore(ws, base, rules)
  if ((await kindOf(start)) === 'file') {
    await visit(start)
    return
  }
  const descend = async (dir: ResolvedPath): Promise<boolean> => {
    if (signal.aborted) throw new ToolhostError('E_INTERRUPTED', 'search_files was interrupted')
    const names: { name: string; kind: 'dir' | 'file' }[] = []
    let hasGitignore = false
    try {
      for await (const d of await opendir(dir.path)) {
        if (d.isDirectory()) names.push({ name: d.name, kind: 'dir' })
        else if (d.isFile()) names.push({ name: d.name, kind: 'file' })
        if (d.name === '.gitignore' && d.isFile()) hasGitignore = true
      }
    } catch {
      return true
    }
    // Read through the wall only where the listing shows one (a link is no file here, as there).
    if (hasGitignore) await loadIgnore(ws, dir.relative === '.' ? '' : dir.relative, rules)
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const { name, kind } of names) {
      const relative = dir.relative === '.' ? name : `${dir.relative}/${name}`
      if (kind === 'dir' && SKIPPED_FOLDERS.has(name)) continue
      // A temp file left by a write that was killed half-way: never a match, never content.
      if (kind === 'file' && isTempFileName(name)) continue
      if (ws.isDenied(relative) || isIgnored(relative, kind === 'dir')) continue
      const child: ResolvedPath = { path: path.join(dir.path, name), relative, input: relative }
      if (!(kind === 'dir' ? await descend(child) : await visit(child))) return false
    }
    return true
  }
  await descend(start)
}

/** 'file' or 'dir' for the resolved start, or E_NOT_FOUND. */
export async function kindOf(file: ResolvedPath): Promise<'file' | 'dir'> {
  try {
    return (await lstat(file.path)).isDirectory() ? 'dir' : 'file'
  } catch {
    throw new ToolhostError('E_NOT_FOUND', `there is nothing at "${file.input}" to search; check the path`)
  }
}

async function loadIgnore(ws: Workspace, base: string, rules: Rules[]): Promise<void> {
  if (rules.some((r) => r.base === base)) return
  rules.push({ base, rules: ignore().add(await readGitignore(ws, base)) })
}
