// Built-in search_files: regex over file contents or names inside the workspace, skipping
// node_modules, .git, what .gitignore ignores, the deny list and toolhost's own temp files; never
// follows a symlink. The model's pattern and glob run on an RE2-class engine (linear time), and a
// long search yields to the event loop between lines, so no pattern can freeze the host.
import { lstat, opendir } from 'node:fs/promises'
import path from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import ignore, { type Ignore } from 'ignore'
import { defineTool, registry, ToolhostError } from 'toolhost'
import type { ToolContext } from 'toolhost'
import { compileLinearGlob, compileLinearRegex, isTempFileName, LINEAR_REGEX_SYNTAX, workspaceFor } from 'toolhost/workspace'
import type { LinearRegex, ResolvedPath, Workspace } from 'toolhost/workspace'

interface SearchArgs {
  pattern: string
  path?: string
  glob?: string
  target?: 'content' | 'files'
  max_results?: number
  ignore_case?: boolean
}

const SKIPPED_FOLDERS = new Set(['node_modules', '.git'])
const MAX_FILE_BYTES = 5 * 1024 * 1024
const MAX_LINE_CHARS = 300
// A model's pattern: its length, and the steps its compiled form may take per character.
const MAX_PATTERN_CHARS = 1000
const MAX_PATTERN_COMPLEXITY = 600
// Lines tested at once by the quick whole-chunk test, and work between two turns of the event loop.
const CHUNK_LINES = 256
const SLICE_MS = 10

registry.register(
  defineTool<SearchArgs>({
    name: 'search_files',
    toolset: 'files',
    description:
      'Search the workspace with a regular expression: in file contents (each match as "file:line: text") or in file paths (target "files"). ' +
      `The pattern uses ${LINEAR_REGEX_SYNTAX}; it is matched against each line. ` +
      'Skips node_modules, .git, files ignored by .gitignore, binary files and denied paths. Results are bounded; a note says when more exist.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, maxLength: MAX_PATTERN_CHARS, description: 'A regular expression in RE2 syntax (no lookaround or backreferences), e.g. "function\\\\s+load" or "TODO|FIXME".' },
        path: { type: 'string', minLength: 1, description: 'The folder (or file) to search, relative to the workspace root. Default: the whole root.' },
        glob: { type: 'string', minLength: 1, maxLength: MAX_PATTERN_CHARS, description: 'Only files whose path matches this glob, e.g. "*.ts" (a name anywhere) or "src/**/*.md" (relative to `path`): * ** ? [abc] [!abc] {a,b}.' },
        target: { type: 'string', enum: ['content', 'files'], description: '"content" (default) searches the text of files; "files" matches the regex against file paths.' },
        max_results: { type: 'integer', minimum: 1, description: 'At most this many matches (default and upper bound: search_files.max_results in config).' },
        ignore_case: { type: 'boolean', description: 'Match letters regardless of case. Default false.' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    readOnly: () => true,
    parallelSafe: true,
    pathScoped: true,
    idempotent: true,
    scope: (args) => [{ path: args.path ?? '.', access: 'read' }],
    handler: (args, ctx) => searchFiles(args, ctx),
  }),
)

interface Found { lines: string[]; more: boolean; filesSearched: number }

/** The compiled pattern: per line, and (where it gives the same answers) per chunk of lines. */
interface Search {
  line: LinearRegex
  /** Tests a chunk of lines joined by "\n" at once; no match means no line of it matches. */
  chunk: LinearRegex | undefined
  /** Between pieces of work: lets other calls run every few ms, and stops once the call is aborted. */
  pace: () => Promise<void>
}

async function searchFiles(args: SearchArgs, ctx: ToolContext): Promise<string> {
  const ignoreCase = args.ignore_case === true
  const search: Search = { line: compilePattern(args.pattern, { ignoreCase }), chunk: undefined, pace: pacer(ctx.signal) }
  // Joining lines keeps every per-line match a chunk match, except where the pattern pins the whole
  // text (\A, \z) or turns line anchors off ((?-m)): those are tested line by line only.
  if (!/\\[Az]|\(\?[A-Za-z]*-/.test(args.pattern)) search.chunk = compilePattern(args.pattern, { ignoreCase, multiline: true })
  const ws = workspaceFor(ctx)
  const start = ws.resolve(args.path ?? '.', 'read')
  const cap = ctx.config.search_files.max_results
  const max = Math.min(args.max_results ?? cap, cap)
  const target = args.target ?? 'content'
  const glob = args.glob === undefined ? undefined : compileGlob(args.glob, ws.caseInsensitive)
  // A glob without a "/" matches a name at any depth.
  const byName = args.glob !== undefined && !args.glob.includes('/')
  const found: Found = { lines: [], more: false, filesSearched: 0 }
  const visit = async (file: ResolvedPath): Promise<boolean> => {
    const fromStart = path.relative(start.path, file.path).split(path.sep).join('/') || path.basename(file.path)
    if (glob !== undefined && !glob.testWhole(byName ? path.basename(fromStart) : fromStart)) return true
    found.filesSearched++
    await search.pace()
    if (target === 'files') return add(found, search.line.test(file.relative) ? file.relative : undefined, max)
    return searchContent(ws, file, search, found, max)
  }
  await walk(ws, start, visit, ctx.signal)
  const where = start.relative === '.' ? 'the workspace' : start.relative
  if (found.lines.length === 0) return `no ${target === 'files' ? 'file names' : 'lines'} match /${args.pattern}/ in ${where} (${found.filesSearched} file${found.filesSearched === 1 ? '' : 's'} searched)`
  const note = found.more ? `\n[showing the first ${max} matches; more exist. Narrow the pattern, path or glob, or raise max_results (at most ${cap})]` : ''
  return found.lines.join('\n') + note
}

function add(found: Found, line: string | undefined, max: number): boolean {
  if (line === undefined) return true
  if (found.lines.length >= max) {
    found.more = true
    return false
  }
  found.lines.push(line)
  return true
}

async function searchContent(ws: Workspace, file: ResolvedPath, search: Search, found: Found, max: number): Promise<boolean> {
  let bytes: Buffer
  try {
    bytes = await ws.readFile(file)
  } catch {
    return true // vanished, swapped or unreadable since it was listed: skip it
  }
  if (bytes.length > MAX_FILE_BYTES || bytes.subarray(0, 8192).includes(0)) return true
  const text = bytes.toString('utf8')
  const lines = text.split('\n')
  if (text.includes('\r')) for (let i = 0; i < lines.length; i++) if (lines[i]!.endsWith('\r')) lines[i] = lines[i]!.slice(0, -1)
  for (let from = 0; from < lines.length; from += CHUNK_LINES) {
    const to = Math.min(lines.length, from + CHUNK_LINES)
    await search.pace()
    if (search.chunk !== undefined && !search.chunk.test(lines.slice(from, to).join('\n'))) continue
    for (let i = from; i < to; i++) {
      const line = lines[i]!
      if (!search.line.test(line)) continue
      const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line
      if (!add(found, `${file.relative}:${i + 1}: ${shown}`, max)) return false
    }
  }
  return true
}

function compilePattern(pattern: string, options: { ignoreCase: boolean; multiline?: boolean }): LinearRegex {
  try {
    return compileLinearRegex(pattern, { ...options, maxComplexity: MAX_PATTERN_COMPLEXITY })
  } catch (error) {
    throw new ToolhostError('E_ARGS_INVALID', `pattern is not a regular expression this tool accepts (${(error as Error).message}). It uses ${LINEAR_REGEX_SYNTAX}; escape special characters such as ( [ { . * + ? with a backslash`)
  }
}

function compileGlob(glob: string, ignoreCase: boolean): LinearRegex {
  try {
    return compileLinearGlob(glob, { ignoreCase, maxComplexity: MAX_PATTERN_COMPLEXITY * 2 })
  } catch (error) {
    throw new ToolhostError('E_ARGS_INVALID', `glob is not one this tool accepts (${(error as Error).message}); use * ** ? [abc] [!abc] {a,b}`)
  }
}

// Yields to the event loop once `SLICE_MS` of work has passed since the last turn, so other calls
// and clients are served while a long search runs; an aborted call (timeout, interrupt) stops here.
function pacer(signal: AbortSignal): () => Promise<void> {
  let since = performance.now()
  return async () => {
    if (performance.now() - since < SLICE_MS) return
    await nextTurn()
    since = performance.now()
    if (signal.aborted) throw new ToolhostError('E_INTERRUPTED', 'search_files was stopped (it ran out of time or was interrupted)')
  }
}

/** Depth-first, names sorted, never following a symlink; `visit` returns false to stop. */
async function walk(ws: Workspace, start: ResolvedPath, visit: (file: ResolvedPath) => Promise<boolean>, signal: AbortSignal): Promise<void> {
  const rules: { base: string; rules: Ignore }[] = []
  const isIgnored = (relative: string, isDir: boolean): boolean =>
    rules.some((r) => {
      const inside = r.base === '' ? relative : relative.startsWith(`${r.base}/`) ? relative.slice(r.base.length + 1) : undefined
      return inside !== undefined && r.rules.ignores(isDir ? `${inside}/` : inside)
    })
  // .gitignore files above the start folder apply too.
  const above = start.relative === '.' ? [] : start.relative.split('/')
  for (let i = 0; i <= above.length - 1; i++) await loadIgnore(ws, above.slice(0, i).join('/'), rules)
  const entry = await lstatKind(start)
  if (entry === 'file') {
    await visit(start)
    return
  }
  const descend = async (dir: ResolvedPath): Promise<boolean> => {
    if (signal.aborted) throw new ToolhostError('E_INTERRUPTED', 'search_files was interrupted')
    await loadIgnore(ws, dir.relative === '.' ? '' : dir.relative, rules)
    let names: { name: string; kind: 'dir' | 'file' }[]
    try {
      names = []
      for await (const d of await opendir(dir.path)) {
        if (d.isDirectory()) names.push({ name: d.name, kind: 'dir' })
        else if (d.isFile()) names.push({ name: d.name, kind: 'file' })
      }
    } catch {
      return true
    }
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

async function lstatKind(file: ResolvedPath): Promise<'file' | 'dir'> {
  try {
    return (await lstat(file.path)).isDirectory() ? 'dir' : 'file'
  } catch {
    throw new ToolhostError('E_NOT_FOUND', `there is nothing at "${file.input}" to search; check the path`)
  }
}

async function loadIgnore(ws: Workspace, base: string, rules: { base: string; rules: Ignore }[]): Promise<void> {
  if (rules.some((r) => r.base === base)) return
  let text: string
  try {
    // Through the wall like any read: a .gitignore symlinked to outside is not read.
    text = (await ws.readFile(ws.resolve(base === '' ? '.gitignore' : `${base}/.gitignore`, 'read'))).toString('utf8')
  } catch {
    text = ''
  }
  rules.push({ base, rules: ignore().add(text) })
}
