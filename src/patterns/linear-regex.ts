import { createRequire } from 'node:module'
import type * as Re2js from 're2js'

/** A compiled pattern that matches in time linear in the text, whatever the pattern. */
export interface LinearRegex {
  readonly source: string
  /** True when the pattern matches somewhere in `text` (`test`) or matches all of it (`testWhole`). */
  test(text: string): boolean
  testWhole(text: string): boolean
}

export interface LinearRegexOptions {
  ignoreCase?: boolean
  /** `^` and `$` match at line breaks too. */
  multiline?: boolean
  /**
   * The most steps (RE2 program instructions) the compiled pattern may have. Matching is linear in
   * the text, but its cost per character grows with this: bound it for patterns from a model.
   */
  maxComplexity?: number
}

/** Syntax a model may use in a pattern, for tool descriptions. */
export const LINEAR_REGEX_SYNTAX = 'RE2 syntax (as in Go and ripgrep): no lookahead, lookbehind or backreferences; repetition counts up to 1000'

// Loaded on first use (about 40 ms): most runs never compile a pattern from outside.
const requireHere = createRequire(import.meta.url)
let engine: typeof Re2js | undefined
function re2js(): typeof Re2js {
  return (engine ??= requireHere('re2js') as typeof Re2js)
}

/**
 * Compiles a pattern that comes from outside the host's own code (a model's argument, a config rule
 * matched against a model's input) with an RE2-class engine (`re2js`): matching takes time linear in
 * the text, so no pattern can freeze the event loop with backtracking (`(.*.*)*q`). Throws a
 * `SyntaxError` whose message says what is wrong (RE2 has no lookaround or backreferences).
 *
 * @example
 * compileLinearRegex('TODO|FIXME', { ignoreCase: true }).test('a todo here') // true
 * compileLinearRegex('(?<=a)b') // throws SyntaxError: invalid or unsupported Perl syntax: `(?<`
 */
export function compileLinearRegex(pattern: string, options: LinearRegexOptions = {}): LinearRegex {
  const { RE2JS } = re2js()
  let flags = 0
  if (options.ignoreCase) flags |= RE2JS.CASE_INSENSITIVE
  if (options.multiline) flags |= RE2JS.MULTILINE
  let compiled: Re2js.RE2JS
  try {
    compiled = RE2JS.compile(pattern, flags)
  } catch (error) {
    throw new SyntaxError(String((error as Error).message).replace(/^error parsing regexp: /, ''))
  }
  const size = compiled.programSize()
  if (options.maxComplexity !== undefined && size > options.maxComplexity) {
    throw new SyntaxError(`the pattern is too complex (${size} steps, at most ${options.maxComplexity}); use smaller repetition counts or a shorter pattern`)
  }
  return { source: pattern, test: (text) => compiled.test(text), testWhole: (text) => compiled.testExact(text) }
}

/**
 * Compiles a glob to a `LinearRegex` matching whole `/`-separated paths: `*` any run of characters
 * within one name, `**` as a whole segment any number of folders (`src/**\/*.ts`; `a/**` is `a` and
 * everything below it), `?` one character
 * of a name, `[abc]`, `[a-z]`, `[!abc]` one character of a class, `{a,b}` alternatives (nestable),
 * `\` escapes the next character; every other character is itself (dot files included). The result
 * has no lookaround, so it runs in linear time, unlike a backtracking glob regex (`*a*a*a*a*b`).
 *
 * @example
 * compileLinearGlob('src/**\/*.{ts,md}').testWhole('src/a/b.md') // true
 */
export function compileLinearGlob(glob: string, options: Pick<LinearRegexOptions, 'ignoreCase' | 'maxComplexity'> = {}): LinearRegex {
  const compiled = compileLinearRegex(`^(?:${globToRe2(glob)})$`, options)
  return { source: glob, test: compiled.test, testWhole: compiled.test }
}

// The RE2 source of a glob (see compileLinearGlob); braces without their partner are literal.
function globToRe2(glob: string): string {
  const closing = matchingBraces(glob)
  let out = ''
  const open: number[] = [] // indexes of the `}` closing each open brace
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '\\') {
      i++
      out += i < glob.length ? quote(glob[i]!) : '\\\\'
    } else if (c === '*') {
      let stars = 1
      while (glob[i + 1] === '*') {
        stars++
        i++
      }
      const segmentStart = i - stars < 0 || glob[i - stars] === '/'
      const segmentEnd = i + 1 >= glob.length || glob[i + 1] === '/'
      if (stars >= 2 && segmentStart && segmentEnd) {
        // `**/` any number of folders (none too); a final `**` anything below (or nothing).
        if (glob[i + 1] === '/') {
          out += '(?:[^/]*/)*'
          i++
        } else if (out.endsWith('/')) {
          out = `${out.slice(0, -1)}(?:/.*)?` // `a/**` is `a` and everything below it
        } else {
          out += '.*'
        }
      } else {
        out += '[^/]*'
      }
    } else if (c === '?') {
      out += '[^/]'
    } else if (c === '[') {
      const end = classEnd(glob, i)
      if (end === undefined) {
        out += '\\['
        continue
      }
      let body = glob.slice(i + 1, end)
      const negated = body.startsWith('!') || body.startsWith('^')
      if (negated) body = body.slice(1)
      out += `[${negated ? '^/' : ''}${classBody(body)}]`
      i = end
    } else if (c === '{' && closing.has(i)) {
      open.push(closing.get(i)!)
      out += '(?:'
    } else if (c === ',' && open.length > 0) {
      out += '|'
    } else if (c === '}' && open.length > 0 && open[open.length - 1] === i) {
      open.pop()
      out += ')'
    } else {
      out += quote(c)
    }
  }
  return out
}

// For each `{` with a partner `}` (outside classes and escapes), where that partner is.
function matchingBraces(glob: string): Map<number, number> {
  const pairs = new Map<number, number>()
  const stack: number[] = []
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '\\') i++
    else if (c === '[') i = classEnd(glob, i) ?? i
    else if (c === '{') stack.push(i)
    else if (c === '}' && stack.length > 0) pairs.set(stack.pop()!, i)
  }
  return pairs
}

// The index of the `]` ending the class opened at `start` (a `]` right after `[` or `[!` is a member).
function classEnd(glob: string, start: number): number | undefined {
  let i = start + 1
  if (glob[i] === '!' || glob[i] === '^') i++
  if (glob[i] === ']') i++
  for (; i < glob.length; i++) {
    if (glob[i] === '\\') i++
    else if (glob[i] === ']') return i
  }
  return undefined
}

// A glob class's members in RE2 form: `\x` is the character x, `-` makes ranges, and `[`, `]`,
// `\`, `^` are themselves.
function classBody(body: string): string {
  let out = ''
  for (let j = 0; j < body.length; j++) {
    let c = body[j]!
    if (c === '\\' && j + 1 < body.length) {
      c = body[++j]!
      out += /[A-Za-z0-9]/.test(c) ? c : `\\${c}`
    } else {
      out += /[[\]\\^]/.test(c) ? `\\${c}` : c
    }
  }
  return out
}

function quote(c: string): string {
  return /[\\.+*?()|[\]{}^$]/.test(c) ? `\\${c}` : c
}

/**
 * Compiles a pattern with the linear-time engine into a function that gives the capture groups of
 * a match of the whole text (group 1 first), or undefined when the text does not match: for
 * splitting untrusted text (a resource URI from a client) by a pattern with several groups, where a
 * backtracking engine could take polynomial time. Throws a `SyntaxError` like `compileLinearRegex`.
 *
 * @example
 * compileLinearGroups('notes://([^/]+)/([^/]+)')('notes://a/b') // ['a', 'b']
 */
export function compileLinearGroups(pattern: string): (text: string) => string[] | undefined {
  const { RE2JS } = re2js()
  let compiled: Re2js.RE2JS
  try {
    compiled = RE2JS.compile(pattern)
  } catch (error) {
    throw new SyntaxError(String((error as Error).message).replace(/^error parsing regexp: /, ''))
  }
  const count = compiled.groupCount()
  return (text) => {
    const matcher = compiled.matcher(text)
    if (!matcher.matches()) return undefined
    const groups: string[] = []
    for (let i = 1; i <= count; i++) groups.push(matcher.group(i) ?? '')
    return groups
  }
}
