// Built-in search_files: regex over file contents or names inside the workspace, skipping
// node_modules, .git, what .gitignore ignores and the deny list; never follows a symlink.
import { lstat, opendir } from 'node:fs/promises'
import path from 'node:path'
import ignore, { type Ignore } from 'ignore'
import picomatch from 'picomatch'
import { defineTool, registry, ToolhostError, workspaceFor } from 'toolhost'
import type { ResolvedPath, ToolContext, Workspace } from 'toolhost'

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

registry.register(
  defineTool<SearchArgs>({
    name: 'search_files',
    toolset: 'files',
    description:
      'Search the workspace with a regular expression: in file contents (each match as "file:line: text") or in file paths (target "files"). ' +
      'Skips node_modules, .git, files ignored by .gitignore, binary files and denied paths. Results are bounded; a note says when more exist.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'A JavaScript regular expression, e.g. "function\\\\s+load" or "TODO|FIXME".' },
        path: { type: 'string', minLength: 1, description: 'The folder (or file) to search, relative to the workspace root. Default: the whole root.' },
        glob: { type: 'string', minLength: 1, description: 'Only files whose path matches this glob, e.g. "*.ts" (a name anywhere) or "src/**/*.md" (relative to `path`).' },
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

async function searchFiles(args: SearchArgs, ctx: ToolContext): Promise<string> {
  let regex: RegExp
  try {
    regex = new RegExp(args.pattern, args.ignore_case === true ? 'i' : '')
  } catch (error) {
    throw new ToolhostError('E_ARGS_INVALID', `pattern is not a valid regular expression: ${(error as Error).message}. Escape special characters such as ( [ { . * + ? with a backslash`)
  }
  const ws = workspaceFor(ctx)
  const start = ws.resolve(args.path ?? '.', 'read')
  const cap = ctx.config.search_files.max_results
  const max = Math.min(args.max_results ?? cap, cap)
  const target = args.target ?? 'content'
  const glob = args.glob === undefined ? undefined : picomatch(args.glob, { dot: true, basename: !args.glob.includes('/'), nocase: ws.caseInsensitive })
  const found: Found = { lines: [], more: false, filesSearched: 0 }
  const visit = async (file: ResolvedPath): Promise<boolean> => {
    const fromStart = path.relative(start.path, file.path).split(path.sep).join('/') || path.basename(file.path)
    if (glob !== undefined && !glob(fromStart)) return true
    found.filesSearched++
    if (target === 'files') return add(found, regex.test(file.relative) ? file.relative : undefined, max)
    return searchContent(ws, file, regex, found, max)
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

async function searchContent(ws: Workspace, file: ResolvedPath, regex: RegExp, found: Found, max: number): Promise<boolean> {
  let bytes: Buffer
  try {
    bytes = await ws.readFile(file)
  } catch {
    return true // vanished, swapped or unreadable since it was listed: skip it
  }
  if (bytes.length > MAX_FILE_BYTES || bytes.subarray(0, 8192).includes(0)) return true
  const lines = bytes.toString('utf8').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!
    if (!regex.test(text)) continue
    const shown = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text
    if (!add(found, `${file.relative}:${i + 1}: ${shown}`, max)) return false
  }
  return true
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
