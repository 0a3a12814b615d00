// ripgrep's command line for a search, keeping search_files' promises: no config file, no PCRE2,
// links never followed (no -L), .gitignore honoured in a git repository or not (but never one above
// the root: those above `start` and inside the root come as --ignore-file), no .ignore/.rgignore,
// git's exclude or global ignore files; dot files searched; node_modules, .git, toolhost's temp files
// and the plain patterns of the deny list left out by --glob !…; binary files (a NUL byte) and files
// over MAX_FILE_BYTES skipped; lines longer than can be shown cut by ripgrep (--max-columns).
// Whatever ripgrep prints is re-checked against the wall by search-tree.ts: these rules only spare
// ripgrep work, so each may leave out less than the wall does, never more.
import picomatch from 'picomatch'
import { toRustRegex } from './rust-syntax.js'
import { MAX_FILE_BYTES, MAX_LINE_CHARS, SKIPPED_FOLDERS } from './search-limits.js'

// A line of MAX_LINE_CHARS UTF-16 units takes at most 3 bytes a unit: ripgrep cuts only longer
// lines, and what it keeps of them still holds the first MAX_LINE_CHARS units.
const MAX_COLUMNS = MAX_LINE_CHARS * 4

export interface RipgrepArgsInput {
  readonly pattern: string
  readonly ignoreCase: boolean
  readonly target: 'content' | 'files'
  /** The start folder relative to the root ('.' for the root): ripgrep runs in the root. */
  readonly startRelative: string
  readonly glob: string | undefined
  readonly caseInsensitiveFs: boolean
  /** `workspace.deny` as configured. */
  readonly deny: readonly string[]
  /** A file of the root-relative ignore rules of the .gitignore files above the start, if any. */
  readonly ignoreFile: string | undefined
  /** False: ripgrep's own order, on every core (first-matches.ts puts it in order). Default true. */
  readonly sorted?: boolean
}

/**
 * The arguments of one ripgrep run: content (`path NUL line:text` records, sorted by path) or
 * files (`path NUL`, sorted by path).
 *
 * @example
 * ripgrepArgs({ pattern: 'TODO', ignoreCase: false, target: 'content', startRelative: 'src', glob: '*.ts', caseInsensitiveFs: false, deny: ['.env'], ignoreFile: undefined })
 */
export function ripgrepArgs(input: RipgrepArgsInput): string[] {
  const args = [
    '--no-config',
    '--no-messages',
    '--hidden',
    '--no-require-git',
    '--no-ignore-parent',
    '--no-ignore-dot',
    '--no-ignore-exclude',
    '--no-ignore-global',
    ...(input.sorted === false ? [] : ['--sort=path']),
    '--null',
    '--color=never',
    '--path-separator=/',
    ...[...SKIPPED_FOLDERS].map((name) => `--glob=!${name}/`),
    '--glob=!.toolhost-*.tmp',
    ...denyGlobs(input.deny).map((pattern) => `--glob=!${pattern}`),
  ]
  if (input.ignoreFile !== undefined) args.push(`--ignore-file=${input.ignoreFile}`)
  const byName = input.caseInsensitiveFs ? undefined : nameGlobFor(input.glob)
  if (byName !== undefined) args.push(`--type-add=toolhostglob:${byName}`, '--type=toolhostglob')
  if (input.target === 'files') {
    args.push('--files')
  } else {
    // Only content skips big files (a file's name is listed whatever its size): in files mode the
    // size would also cost ripgrep a stat per file.
    args.push(`--max-filesize=${MAX_FILE_BYTES}`, '--stats', '--line-number', '--with-filename', '--no-heading', '--encoding=none', '--crlf', `--max-columns=${MAX_COLUMNS}`, '--max-columns-preview')
    if (input.ignoreCase) args.push('--ignore-case')
    else args.push('--case-sensitive')
    args.push(`--regexp=${toRustRegex(input.pattern)}`)
  }
  args.push('--')
  if (input.startRelative !== '.') args.push(input.startRelative)
  return args
}

// Deny patterns ripgrep can leave out itself: a plain glob (letters, digits, . _ - / *) that no
// exception of the list (`!pattern`) could reopen. The rest is left to the wall's check.
function denyGlobs(deny: readonly string[]): string[] {
  const exceptions = deny.filter((p) => p.startsWith('!')).map((p) => p.slice(1))
  const isPlain = (p: string) => /^[A-Za-z0-9._\-/*]+$/.test(p) && !p.startsWith('/') && !p.includes('//')
  return deny.filter((p) => !p.startsWith('!') && isPlain(p)).filter((p) => {
    const matches = picomatch(p, { dot: true })
    return exceptions.every((e) => /^[A-Za-z0-9._-]+$/.test(e) && !matches(e) && !picomatch(e, { dot: true })(p))
  })
}

// A glob without "/" (matched against names) that ripgrep's file types spell the same way: ripgrep
// then reads only the files it names. search-tree.ts still matches every path against the glob.
function nameGlobFor(glob: string | undefined): string | undefined {
  if (glob === undefined || !/^[A-Za-z0-9._*?{},-]+$/.test(glob)) return undefined
  // Braces: one level, each closed, none empty.
  if (!/^[^{}]*(?:\{[^{}]+\}[^{}]*)*$/.test(glob)) return undefined
  if (glob.replace(/\{[^}]*\}/g, '').includes(',')) return undefined
  return glob
}
