import { DEFAULT_DANGEROUS_PATTERNS } from '../config/defaults.js'
import { ToolhostError } from '../contract/errors.js'
import { analyseCommand } from '../shell/analyse-command.js'
import type { ControlPlane } from '../contract/types.js'
import { writesControlPlane } from './control-plane-commands.js'
import { compileLinearRegex, LINEAR_REGEX_SYNTAX, type LinearRegex } from '../patterns/linear-regex.js'

/** A compiled dangerous pattern (RE2: linear time on the model's command, however long). */
export type DangerousPattern = Pick<LinearRegex, 'test'>

/**
 * Which shell commands count as destructive (`terminal`'s `destructive(args)`): those that cannot be
 * judged before they run (`analyseCommand(…).unresolved`: a variable or substitution as a command
 * word, eval, a shell or interpreter fed code from stdin or inline, a parse error) and those matching
 * one of `terminal.dangerous_patterns` — as written, or in any command the shell parse says it runs. A tool's `destructive(args)` sees only its arguments, not the host,
 * (and, from some callers, the workspace root), so each open host publishes its compiled list in one
 * process-wide table (on `globalThis`, shared by every copy of this module, as plugins get their own
 * copy through tsx). A command is destructive when it matches the list of an open host with the
 * given root; without a root (or no host with it), the list of ANY open host — the strictest answer
 * wins; the built-in defaults apply while no host is open. A command the parse sees writing to a
 * host's control plane (config file, plugin folders, .env, hook scripts, .toolhost/) counts too, so
 * it asks even in `auto`.
 */

const TABLE = Symbol.for('toolhost.dangerousPatterns')
type Table = Map<symbol, { root: string; patterns: readonly DangerousPattern[]; controlPlane?: ControlPlane }>

function table(): Table {
  const store = globalThis as unknown as Record<symbol, Table | undefined>
  store[TABLE] ??= new Map()
  return store[TABLE]
}

/**
 * Compiles the configured patterns with an RE2-class engine: they run on the model's commands, and a
 * backtracking pattern such as `\brm\s+(-[a-z]*[rf][a-z]*\s+)+` takes quadratic time (minutes on a
 * long command) in a JavaScript RegExp. An invalid pattern throws `E_CONFIG_INVALID` naming `where`
 * and the index (a start-up fault, not a call failure). The built-in list, known good, is compiled
 * on first use, so a start-up without custom patterns does not load the engine.
 *
 * @example
 * compileDangerousPatterns(['\\brm\\s+-rf\\b'], 'config.yaml')
 */
export function compileDangerousPatterns(patterns: readonly string[], where: string): DangerousPattern[] {
  const builtIn = patterns.length === DEFAULT_DANGEROUS_PATTERNS.length && patterns.every((p, i) => p === DEFAULT_DANGEROUS_PATTERNS[i])
  return patterns.map((source, i) => {
    const compile = (): LinearRegex => {
      try {
        return compileLinearRegex(source)
      } catch (error) {
        throw new ToolhostError('E_CONFIG_INVALID', `${where}: key \`terminal.dangerous_patterns[${i}]\`: not a valid regular expression in ${LINEAR_REGEX_SYNTAX} (${(error as Error).message}): ${JSON.stringify(source)}`)
      }
    }
    if (!builtIn) return compile()
    let compiled: LinearRegex | undefined
    return { test: (text) => (compiled ??= compile()).test(text) }
  })
}

/**
 * True when `command` cannot be judged before it runs, or it (or a command it runs, as parsed)
 * matches one of `patterns`.
 *
 * @example
 * isDangerousCommand("env '/bin/rm' --recursive build", compileDangerousPatterns(DEFAULT_DANGEROUS_PATTERNS, 'defaults')) // true
 */
export function isDangerousCommand(command: string, patterns: readonly DangerousPattern[]): boolean {
  const analysis = analyseCommand(command)
  if (analysis.unresolved !== undefined) return true
  return patterns.some((pattern) => pattern.test(command) || analysis.commands.some((c) => pattern.test(c)))
}

/** Publishes a host's patterns (its root, its control plane) until the returned function is called (on host close). */
export function publishDangerousPatterns(root: string, patterns: readonly DangerousPattern[], controlPlane?: ControlPlane): () => void {
  const key = Symbol('host')
  table().set(key, { root, patterns, ...(controlPlane ? { controlPlane } : {}) })
  return () => {
    table().delete(key)
  }
}

let defaults: DangerousPattern[] | undefined

/**
 * True when `command` matches the patterns of the open host(s) with workspace `root`, else of any
 * open host, else the built-in defaults. This is what `terminal`'s `destructive(args, context)` answers.
 *
 * @example
 * isDangerousForOpenHosts('git push --force origin main') // true
 */
export function isDangerousForOpenHosts(command: string, root?: string): boolean {
  const hosts = [...table().values()]
  const sameRoot = root === undefined ? [] : hosts.filter((h) => h.root === root)
  const judged = sameRoot.length > 0 ? sameRoot : hosts
  if (judged.length === 0) {
    defaults ??= compileDangerousPatterns(DEFAULT_DANGEROUS_PATTERNS, 'built-in defaults')
    return isDangerousCommand(command, defaults)
  }
  return judged.some((h) => isDangerousCommand(command, h.patterns) || (h.controlPlane !== undefined && writesControlPlane(command, h.root, h.controlPlane)))
}
