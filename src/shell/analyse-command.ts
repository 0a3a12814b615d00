import path from 'node:path'
import { innerCommands, type Word } from './command-wrappers.js'
import { deletionOf, type Deletion } from './deleting-commands.js'
import { nodeType, offsets, parseShell, walkShell, type ShellCallExpr, type ShellNode, type ShellStmt, type ShellWord } from './parse-shell.js'

/** What a shell command line runs, worked out from a real parse (never from its spelling alone). */
export interface CommandAnalysis {
  /**
   * Every simple command it would run, as `name arg …`: quotes and escapes resolved, the name's path
   * dropped (`/bin/rm` is `rm`), each wrapper kept and also unwrapped (`env rm -rf x` gives
   * `env rm -rf x` and `rm -rf x`), `sh -c`/`bash -c` bodies, `find -exec`, `xargs` commands and the
   * like parsed in turn. A word known only at run time keeps its source (`$F`, `$(…)`).
   */
  commands: string[]
  /** Why it cannot be judged before it runs (a variable as a command word, eval, a shell reading stdin, a parse error …); undefined when it can. */
  unresolved: string | undefined
  /** It substitutes command output or writes a redirection into a file: an allow pattern never covers it. */
  opaque: boolean
  /** The commands among `commands` that delete files (`deleting-commands.ts`): what an `rm` rule names. */
  deletions: Deletion[]
}

const MAX_CHARS = 20_000
const MAX_DEPTH = 8
const MAX_COMMANDS = 500
const CACHE_SIZE = 256
const cache = new Map<string, CommandAnalysis>()

/**
 * Analyses a command line as `/bin/sh -c` would run it. Cached (the same command is judged several
 * times per call: destructive, rules, audit).
 *
 * @example
 * analyseCommand("X=rm; $X -rf build").unresolved // 'the command name $X is only known when it runs'
 * analyseCommand("sudo '/bin/rm' -rf build").commands // ['sudo /bin/rm -rf build', 'rm -rf build']
 */
export function analyseCommand(command: string): CommandAnalysis {
  const hit = cache.get(command)
  if (hit) return hit
  const state: State = { commands: [], reasons: [], opaque: false, deletions: [] }
  try {
    analyseSource(command, 0, state)
  } catch (error) {
    // The parser is a compiled Go program: a panic it raises must not reach the host.
    state.reasons.push(`it could not be analysed (${String((error as Error).message ?? error).split('\n')[0]})`)
  }
  const analysis: CommandAnalysis = { commands: [...new Set(state.commands)], unresolved: state.reasons.length > 0 ? [...new Set(state.reasons)].slice(0, 3).join('; ') : undefined, opaque: state.opaque, deletions: state.deletions }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!)
  cache.set(command, analysis)
  return analysis
}

interface State {
  commands: string[]
  reasons: string[]
  opaque: boolean
  deletions: Deletion[]
}

function analyseSource(source: string, depth: number, state: State): void {
  if (depth > MAX_DEPTH) return void state.reasons.push(`commands nested more than ${MAX_DEPTH} deep`)
  if (source.length > MAX_CHARS) return void state.reasons.push(`a command over ${MAX_CHARS} characters is not analysed`)
  let file
  try {
    file = parseShell(source)
  } catch (error) {
    return void state.reasons.push(`it does not parse as a shell command (${(error as Error).message})`)
  }
  const bytes = Buffer.from(source, 'utf8')
  const text = (node: ShellNode | [number, number]): string => {
    const [from, to] = Array.isArray(node) ? node : offsets(node)
    return bytes.subarray(from, to).toString('utf8')
  }
  walkShell(file, (node) => {
    const type = nodeType(node)
    if (type === 'CmdSubst' || type === 'ProcSubst') state.opaque = true
    else if (type === 'Stmt') analyseStmt(node as ShellStmt, text, depth, state)
  })
}

type Text = (node: ShellNode | [number, number]) => string

function analyseStmt(stmt: ShellStmt, text: Text, depth: number, state: State): void {
  let redirects = ''
  for (const r of stmt.Redirs) {
    if (!r || !r.Word) continue
    const op = text([r.OpPos.Offset(), r.Word.Pos().Offset()]).trim()
    const target = resolveWord(r.Word, text)
    if (/^(>|>>|>\||&>|&>>|<>)$/.test(op) && (target.dynamic || target.text !== '/dev/null')) state.opaque = true
    if (/^[<>]&$/.test(op) && !/^(\d+|-)$/.test(target.text)) state.opaque = true
    if (op.startsWith('>') || op.startsWith('&>')) redirects += ` ${r.N ? text(r.N) : ''}${op} ${target.text}`
  }
  const cmd = stmt.Cmd
  if (!cmd) return
  const type = nodeType(cmd)
  if (type === 'CallExpr') {
    const args = (cmd as ShellCallExpr).Args.filter((w): w is ShellWord => w !== null)
    if (args.length > 0) analyseCall(args.map((w) => resolveWord(w, text)), redirects, depth, state)
  } else if (type === 'DeclClause') {
    state.commands.push(text(cmd) + redirects)
  }
}

function analyseCall(words: Resolved[], redirects: string, depth: number, state: State): void {
  const [name, ...args] = words
  if (!name) return
  if (state.commands.length > MAX_COMMANDS) return void state.reasons.push(`more than ${MAX_COMMANDS} commands`)
  if (name.dynamic || name.pattern) {
    state.reasons.push(`the command name ${name.text} is only known when it runs`)
    state.commands.push([name.text, ...args.map((a) => a.text)].join(' ') + redirects)
    return
  }
  const base = path.posix.basename(name.text) || name.text
  state.commands.push([base, ...args.map((a) => a.text)].join(' ') + redirects)
  const deletion = deletionOf(base, args.map((a) => ({ text: a.text, dynamic: a.dynamic || a.pattern })))
  if (deletion) state.deletions.push(deletion)
  if (depth >= MAX_DEPTH) return void state.reasons.push(`commands nested more than ${MAX_DEPTH} deep`)
  for (const inner of innerCommands(base, args)) {
    if (inner.kind === 'unresolved') state.reasons.push(inner.why)
    else if (inner.kind === 'script') {
      if (inner.source.dynamic) state.reasons.push(`${base} runs shell code known only when it runs (${inner.source.text})`)
      else analyseSource(inner.source.text, depth + 1, state)
    } else analyseCall(inner.words.map((w) => ({ ...w, pattern: 'pattern' in w ? (w as Resolved).pattern : false })), '', depth + 1, state)
  }
}

interface Resolved extends Word {
  /** An unquoted glob or brace expansion: the word may become other words. */
  pattern: boolean
}

// A word's value with quotes and escapes resolved; parts known only at run time keep their source.
function resolveWord(word: ShellWord, text: Text): Resolved {
  let value = ''
  let dynamic = false
  let pattern = false
  for (const part of word.Parts) {
    switch (nodeType(part)) {
      case 'Lit': {
        const raw = (part as unknown as { Value: string }).Value
        if (/(^|[^\\])[*?[]/.test(raw)) pattern = true
        value += raw.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1')
        break
      }
      case 'SglQuoted': {
        const q = part as unknown as { Value: string; Dollar: boolean }
        value += q.Dollar ? decodeAnsiC(q.Value) : q.Value
        break
      }
      case 'DblQuoted':
        for (const inner of (part as unknown as { Parts: ShellNode[] }).Parts) {
          if (nodeType(inner) === 'Lit') value += (inner as unknown as { Value: string }).Value.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1')
          else {
            dynamic = true
            value += text(inner)
          }
        }
        break
      default:
        // ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob: known only when it runs.
        dynamic = true
        if (nodeType(part) === 'ExtGlob') pattern = true
        value += text(part)
    }
  }
  // Brace expansion (`{rm,-rf,x}` is three words): an unquoted `{`, then `,` or `..`, then an unquoted `}`.
  const lits = word.Parts.map((p) => (nodeType(p) === 'Lit' ? (p as unknown as { Value: string }).Value : ''))
  const open = lits.findIndex((l) => l.includes('{'))
  if (open !== -1 && lits.slice(open).some((l) => l.includes('}')) && hasBraceList(text(word))) pattern = true
  return { text: value, dynamic, pattern }
}

// A `,` or `..` between the first `{` and the last `}`: linear in the word's length, where a regex
// such as /\{.*(,|\.\.).*\}/ backtracks cubically on a long word from the model.
function hasBraceList(word: string): boolean {
  const first = word.indexOf('{')
  const last = word.lastIndexOf('}')
  if (first === -1 || last <= first) return false
  const inner = word.slice(first + 1, last)
  return inner.includes(',') || inner.includes('..')
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' }

// bash's $'…' quoting.
function decodeAnsiC(raw: string): string {
  return raw.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (_, esc: string) => {
    if (esc in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[esc]!
    if (/^[xuU]/.test(esc) && esc.length > 1) return String.fromCodePoint(Math.min(Number.parseInt(esc.slice(1), 16), 0x10ffff))
    if (/^[0-7]/.test(esc)) return String.fromCharCode(Number.parseInt(esc, 8))
    if (esc.startsWith('c') && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 0x1f)
    return `\\${esc}`
  })
}
