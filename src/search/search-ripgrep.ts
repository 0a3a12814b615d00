// The ripgrep engine: the command line of ripgrep-args.ts, run in the root, its output read as it
// streams; every path ripgrep prints is checked against the wall and the glob again before it
// counts, and ripgrep is ended once one match more than can be shown has been found.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { ToolhostError } from '../contract/errors.js'
import type { Workspace } from '../workspace/workspace.js'
import { passesGlob, type CompiledSearch } from './compile-search.js'
import { Findings } from './findings.js'
import { FirstMatches } from './first-matches.js'
import { foldersAbove, ignoresFolder, readGitignore, rebaseGitignore } from './gitignore-files.js'
import { ripgrepArgs } from './ripgrep-args.js'
import { ContentOutput, FilesOutput } from './ripgrep-output.js'
import { runRipgrep } from './run-ripgrep.js'
import type { SearchOutcome, SearchRequest } from './search-types.js'
import { PathCheck } from './path-check.js'

export interface RipgrepSearch {
  readonly binary: string
  /** `workspace.deny` as configured (the plain patterns become ripgrep globs). */
  readonly deny: readonly string[]
}

/**
 * Searches a folder with ripgrep. Rejects with `RipgrepUnavailable` when the binary cannot start,
 * E_ARGS_INVALID when ripgrep refuses the pattern, E_INTERRUPTED on abort (ripgrep ended).
 *
 * @example
 * await searchWithRipgrep(ws, request, compileSearch(request, ws.caseInsensitive), { binary, deny })
 */
export async function searchWithRipgrep(ws: Workspace, request: SearchRequest, compiled: CompiledSearch, rg: RipgrepSearch): Promise<SearchOutcome> {
  const above = await ignoreFileAbove(ws, request)
  // ripgrep searches the folder it is given even where a .gitignore above ignores it.
  if (above === 'ignored') return { lines: [], more: false, filesSearched: 0, engine: 'ripgrep' }
  try {
    const argsInput = {
      pattern: request.pattern,
      ignoreCase: request.ignoreCase,
      target: request.target,
      startRelative: request.start.relative,
      glob: request.glob,
      caseInsensitiveFs: ws.caseInsensitive,
      deny: rg.deny,
      ignoreFile: above?.file,
    }
    const args = ripgrepArgs(argsInput)
    const found = new Findings(request.maxResults)
    const check = new PathCheck(ws, request.start.relative)
    let filesSearched = 0
    let onOutput: (chunk: Buffer) => boolean
    let content: ContentOutput | undefined
    if (request.target === 'files') {
      const output = new FilesOutput()
      const literal = compiled.literal?.text
      onOutput = (chunk) =>
        output.push(chunk, (file) => {
          const relative = check.relative(file)
          if (relative === undefined || !passesGlob(compiled, check.fromStart(relative))) return true
          // The wall is asked about matches only (the deny list costs ~12 µs a path: a third of a
          // full listing); a path denied by a pattern ripgrep was not given is counted, never shown.
          filesSearched++
          if (literal !== undefined && !relative.includes(literal)) return true
          return compiled.line.test(relative) && check.isListed(relative) && check.isLinkFree(relative) ? found.add(relative) : true
        })
    } else {
      // First on every core, unsorted, keeping the first matches in order (first-matches.ts); a
      // search that turns out to find many is run again sorted, stopping at max_results + 1.
      const first = new FirstMatches(request.maxResults)
      const unsorted = new ContentOutput()
      const ranUnsorted = await runRipgrep({
        binary: rg.binary, args: ripgrepArgs({ ...argsInput, sorted: false }), cwd: ws.root, signal: request.signal,
        onOutput: (chunk) => unsorted.push(chunk, (record) => {
          const relative = check.relative(record.path)
          if (relative === undefined || !check.admits(relative, compiled)) return true
          return first.add(relative, record.line, record.text)
        }),
      })
      if (!first.dense) {
        const lines = first.lines()
        if (ranUnsorted.failed && lines.length === 0 && ranUnsorted.stderr.trim() !== '') throw refusal(ranUnsorted.stderr)
        return { lines, more: first.more, filesSearched: unsorted.filesSearched(), engine: 'ripgrep' }
      }
      content = new ContentOutput()
      const output = content
      onOutput = (chunk) =>
        output.push(chunk, (record) => {
          const relative = check.relative(record.path)
          if (relative === undefined || !check.admits(relative, compiled)) return true
          return found.addLine(relative, record.line, record.text)
        })
    }
    const ran = await runRipgrep({ binary: rg.binary, args, cwd: ws.root, signal: request.signal, onOutput })
    // Exit 2 without a message is a file it could not read (--no-messages): the search stands.
    if (ran.failed && found.lines.length === 0 && ran.stderr.trim() !== '') throw refusal(ran.stderr)
    return { lines: found.lines, more: found.more, filesSearched: content === undefined ? filesSearched : content.filesSearched(), engine: 'ripgrep' }
  } finally {
    if (above !== undefined) await rm(above.dir, { recursive: true, force: true })
  }
}

// ripgrep exits 2 with a message when it refuses the pattern (and for nothing else it is asked).
function refusal(stderr: string): ToolhostError {
  const message = stderr.replace(/^rg: /gm, '').replace(/\n\s*\n/g, '\n').trim()
  if (/regex|literal|pattern/i.test(message)) {
    return new ToolhostError('E_ARGS_INVALID', `pattern is not a regular expression ripgrep accepts: ${message.split('\n').slice(0, 6).join(' ')}`)
  }
  return new ToolhostError('E_TOOL_FAILED', `ripgrep failed: ${message || 'exit 2 with no message'}`)
}

// ripgrep reads no ignore file above the folder it searches: the root's and those between, rebased,
// go in one --ignore-file (in a folder of the OS's temp dir, removed after the run); 'ignored' when
// one of them ignores the start folder itself.
async function ignoreFileAbove(ws: Workspace, request: SearchRequest): Promise<{ dir: string; file: string } | 'ignored' | undefined> {
  const rules: string[] = []
  for (const base of foldersAbove(request.start)) {
    const text = await readGitignore(ws, base)
    if (ignoresFolder(text, base, request.start.relative)) return 'ignored'
    const rebased = rebaseGitignore(text, base)
    if (rebased.trim() !== '') rules.push(rebased)
  }
  if (rules.length === 0) return undefined
  const dir = await mkdtemp(path.join(os.tmpdir(), 'toolhost-search-'))
  const file = path.join(dir, 'ignore')
  await writeFile(file, `${rules.join('\n')}\n`)
  return { dir, file }
}
