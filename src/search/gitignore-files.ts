// The .gitignore files both engines honour, read through the wall (a .gitignore that is a link, or
// denied, counts as empty), and those above a search's start rewritten for ripgrep's --ignore-file.
import ignore from 'ignore'
import type { ResolvedPath } from '../workspace/resolve-in-root.js'
import type { Workspace } from '../workspace/workspace.js'

/** The text of `base/.gitignore` (`base` root-relative, '' for the root), or '' when none is readable. */
export async function readGitignore(ws: Workspace, base: string): Promise<string> {
  try {
    return (await ws.readFile(ws.resolve(base === '' ? '.gitignore' : `${base}/.gitignore`, 'read'))).toString('utf8')
  } catch {
    return ''
  }
}

/** The folders whose .gitignore applies to `start` from above: the root down to its parent. */
export function foldersAbove(start: ResolvedPath): string[] {
  if (start.relative === '.') return []
  const parts = start.relative.split('/')
  return parts.map((_, i) => parts.slice(0, i).join('/'))
}

/**
 * The rules of `base/.gitignore` as rules of a file in the root, so ripgrep (which reads no ignore
 * file above the folder it searches) applies them the same: an anchored pattern (a "/" before its
 * end) gets `/base/` in front, any other `/base/**\/`.
 *
 * @example
 * rebaseGitignore('*.log\n/dist\n!keep.log', 'pkg') // '/pkg/**\/*.log\n/pkg/dist\n!/pkg/**\/keep.log'
 */
export function rebaseGitignore(text: string, base: string): string {
  if (base === '') return text
  const out: string[] = []
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line.trim() === '' || line.startsWith('#')) continue
    const negated = line.startsWith('!')
    const body = negated ? line.slice(1) : line
    const anchored = body.slice(0, -1).includes('/')
    out.push(`${negated ? '!' : ''}/${base}/${anchored ? body.replace(/^\//, '') : `**/${body}`}`)
  }
  return out.join('\n')
}

/**
 * True when the rules of `base/.gitignore` ignore the folder `relative` (root-relative, below
 * `base`) or a folder above it: then, as in git, nothing inside it counts, whatever it says.
 *
 * @example
 * ignoresFolder('build/\n', '', 'build/x') // true
 */
export function ignoresFolder(text: string, base: string, relative: string): boolean {
  const inside = base === '' ? relative : relative.slice(base.length + 1)
  return ignore().add(text).ignores(`${inside}/`)
}
