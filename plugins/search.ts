// Built-in search_files: regex over file contents or names inside the workspace, skipping
// node_modules, .git, what .gitignore ignores, the deny list and toolhost's own temp files; never
// follows a symlink. It runs ripgrep when there is one, else the JavaScript engine (searchTree,
// src/search/); either way the pattern is checked on an RE2-class engine first (linear time).
import { defineTool, registry } from 'toolhost'
import type { ToolContext } from 'toolhost'
import { LINEAR_REGEX_SYNTAX, searchTree, workspaceFor } from 'toolhost/workspace'

interface SearchArgs {
  pattern: string
  path?: string
  glob?: string
  target?: 'content' | 'files'
  max_results?: number
  ignore_case?: boolean
}

// A model's pattern and glob: their length.
const MAX_PATTERN_CHARS = 1000

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

async function searchFiles(args: SearchArgs, ctx: ToolContext): Promise<string> {
  const config = ctx.settings.config
  const ws = workspaceFor(ctx)
  const start = ws.resolve(args.path ?? '.', 'read')
  const cap = config.search_files.max_results
  const max = Math.min(args.max_results ?? cap, cap)
  const target = args.target ?? 'content'
  const found = await searchTree(
    ws,
    { start, pattern: args.pattern, ignoreCase: args.ignore_case === true, target, glob: args.glob, maxResults: max, signal: ctx.call.signal },
    { deny: config.workspace.deny },
  )
  const where = start.relative === '.' ? 'the workspace' : start.relative
  if (found.lines.length === 0) {
    const searched = found.filesSearched === undefined ? '' : ` (${found.filesSearched} file${found.filesSearched === 1 ? '' : 's'} searched)`
    return `no ${target === 'files' ? 'file names' : 'lines'} match /${args.pattern}/ in ${where}${searched}`
  }
  const note = found.more ? `\n[showing the first ${max} matches; more exist. Narrow the pattern, path or glob, or raise max_results (at most ${cap})]` : ''
  return found.lines.join('\n') + note
}
