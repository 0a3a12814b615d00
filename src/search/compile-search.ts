// A search's pattern and glob compiled once, on the linear-time engine (RE2 class), with the
// errors the model reads; both engines use them (ripgrep to re-check paths against the glob).
import { ToolhostError } from '../contract/errors.js'
import { compileLinearGlob, compileLinearRegex, LINEAR_REGEX_SYNTAX, type LinearRegex } from '../patterns/linear-regex.js'
import { requiredLiteral } from './literal-prefilter.js'
import type { SearchRequest } from './search-types.js'

// The steps a model's compiled pattern may take per character.
const MAX_PATTERN_COMPLEXITY = 600

export interface CompiledSearch {
  /** Matches one line (or one path). */
  readonly line: LinearRegex
  /** Tests lines joined by "\n" at once; no match means no line of them matches. */
  readonly chunk: LinearRegex | undefined
  /** Text every match contains (exact case; undefined when none is certain or case is ignored). */
  readonly literal: { readonly text: string; readonly bytes: Buffer } | undefined
  /** The glob, and whether it matches names (no "/") rather than paths from the start. */
  readonly glob: { readonly matcher: LinearRegex; readonly byName: boolean } | undefined
}

/**
 * The compiled pattern and glob of `request`, or E_ARGS_INVALID saying what is wrong and which
 * syntax is accepted.
 *
 * @example
 * compileSearch(request, false).line.test('// TODO') // for pattern 'TODO'
 */
export function compileSearch(request: Pick<SearchRequest, 'pattern' | 'ignoreCase' | 'glob'>, caseInsensitiveFs: boolean): CompiledSearch {
  const { pattern, ignoreCase } = request
  const line = compilePattern(pattern, { ignoreCase })
  // Joining lines keeps every per-line match a chunk match, except where the pattern pins the whole
  // text (\A, \z) or turns line anchors off ((?-m)): those are tested line by line only.
  const chunk = /\\[Az]|\(\?[A-Za-z]*-/.test(pattern) ? undefined : compilePattern(pattern, { ignoreCase, multiline: true })
  const found = requiredLiteral(pattern)
  // Exact case only (Unicode folds K to the Kelvin sign); a U+FFFD may stand for bytes that were
  // not UTF-8, so then the bytes cannot be compared.
  const literal = found !== undefined && !ignoreCase && !found.includes('\ufffd') ? { text: found, bytes: Buffer.from(found, 'utf8') } : undefined
  const glob = request.glob === undefined ? undefined : { matcher: compileGlob(request.glob, caseInsensitiveFs), byName: !request.glob.includes('/') }
  return { line, chunk, literal, glob }
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

/** True when `fromStart` (a path relative to the search's start) passes the glob. */
export function passesGlob(compiled: CompiledSearch, fromStart: string): boolean {
  if (compiled.glob === undefined) return true
  const slash = fromStart.lastIndexOf('/')
  return compiled.glob.matcher.testWhole(compiled.glob.byName && slash !== -1 ? fromStart.slice(slash + 1) : fromStart)
}
