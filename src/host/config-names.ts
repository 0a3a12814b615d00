import path from 'node:path'
import type { ToolhostConfig } from '../config/types.js'
import { suggestNames } from '../contract/near-names.js'
import { nameMatcher } from '../dispatch/admit/name-matcher.js'
import { compileRateLimits } from '../dispatch/schedule/rate-limits.js'
import { parseRule, type RuleList } from '../permissions/rules.js'
import type { PluginHookEntry } from '../registry/plugin-hooks.js'

/** A config entry that names no registered tool, and the names it was probably meant to be. */
export interface UnmatchedName {
  /** Where it is configured: `rate_limits.htpp_get`, `dispatch.parallel_safe[1]`, `permissions.deny[0]`. */
  where: string
  /** The name or glob as written (for a permission rule, the whole rule). */
  entry: string
  /** Registered tool names (or toolsets, for `rate_limits`) close to it; none for a glob. */
  suggestions: string[]
  /** What it means, in a sentence: what the entry silently does not do. */
  message: string
}

interface NamedTool {
  readonly name: string
  readonly toolset: string
}

/**
 * Every tool name or glob in config (`rate_limits`, `dispatch.parallel_safe`, `never_parallel`,
 * `path_scoped`, permission rules, the `tools` of `hooks.before_call` and `hooks.after_call`) that
 * matches no registered tool, with a did-you-mean: a typo
 * there (`htpp_get` under `rate_limits`) otherwise disables what it configures without a word.
 * Matching is the same as the scheduler's and the permission gate's.
 *
 * @example
 * checkConfigNames(config, [{ name: 'http_get', toolset: 'web' }])
 * // [{ where: 'rate_limits.htpp_get', entry: 'htpp_get', suggestions: ['http_get'], message: 'rate_limits.htpp_get names no registered tool or toolset (did you mean "http_get"?): it limits nothing' }]
 */
export function checkConfigNames(config: ToolhostConfig, tools: readonly NamedTool[]): UnmatchedName[] {
  const names = tools.map((t) => t.name)
  const unmatched: UnmatchedName[] = []
  const add = (where: string, entry: string, lookFor: string | undefined, among: readonly string[], what: string, effect: string): void => {
    unmatched.push(describeUnmatched(where, entry, lookFor, among, what, effect))
  }
  for (const rule of compileRateLimits(config.rate_limits)) {
    if (tools.some((t) => rule.rank(t.name, t.toolset) !== undefined)) continue
    const isGlob = isNameGlob(rule.key)
    const among = [...new Set([...names, ...tools.map((t) => t.toolset)])]
    add(`rate_limits.${rule.key}`, rule.key, isGlob ? undefined : rule.key, among, isGlob ? 'matches no registered tool' : 'names no registered tool or toolset', 'it limits nothing')
  }
  const sets = [
    ['parallel_safe', 'no call is made parallel-safe by it'],
    ['never_parallel', 'no call is made to run alone by it'],
    ['path_scoped', 'no call is made path-scoped by it'],
  ] as const
  for (const [key, effect] of sets) {
    config.dispatch[key].forEach((entry, i) => {
      const set = nameMatcher([entry])
      if (names.some((name) => set.has(name))) return
      const isGlob = isNameGlob(entry)
      add(`dispatch.${key}[${i}]`, entry, isGlob ? undefined : entry, names, `${JSON.stringify(entry)} ${isGlob ? 'matches' : 'names'} no registered tool`, effect)
    })
  }
  for (const list of ['allow', 'ask', 'deny'] as const satisfies readonly RuleList[]) {
    config.permissions[list].forEach((text, i) => {
      let rule
      try {
        rule = parseRule(text, list, i, '')
      } catch {
        return // a malformed rule fails start-up on its own, with its own message
      }
      if (names.some((name) => rule.namesTool(name))) return
      const toolPart = rule.source.replace(/\(.*$/s, '')
      const isGlob = toolPart.endsWith('*')
      add(`permissions.${list}[${i}]`, rule.source, isGlob ? undefined : toolPart, names, `${JSON.stringify(rule.source)} ${isGlob ? 'matches' : 'names'} no registered tool`, `it ${list === 'deny' ? 'denies' : list === 'ask' ? 'asks about' : 'allows'} nothing`)
    })
  }
  for (const event of ['before_call', 'after_call'] as const) {
    config.hooks[event].forEach((hook, i) => unmatched.push(...unmatchedHookTools(`hooks.${event}[${i}].tools`, hook.tools, names)))
  }
  return unmatched
}

const GLOB = /[*?[\]{}!()+@]/

// One unmatched entry: `lookFor` (none for a glob) is compared with `among` for a did-you-mean.
function describeUnmatched(where: string, entry: string, lookFor: string | undefined, among: readonly string[], what: string, effect: string): UnmatchedName {
  const suggestions = lookFor === undefined ? [] : suggestNames(lookFor, among)
  const hint = suggestions.length > 0 ? ` (did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}?)` : ''
  return { where, entry, suggestions, message: `${where} ${what}${hint}: ${effect}` }
}

function isNameGlob(entry: string): boolean {
  return GLOB.test(entry)
}

/**
 * Each tool name or glob of a plugin's hook (`defineHook({ tools })`) that matches no registered
 * tool: the hook would run on no call, as silently as a misspelt name in config. `where` names the
 * plugin file (relative to `root` when under it) and the hook.
 *
 * @example
 * checkPluginHookNames(registry.hooks.list(), registry.list(), '/w')
 * // [{ where: 'plugins/guard.ts: hook "no-vendor" tools', entry: 'wrte_file', suggestions: ['write_file'], message: 'plugins/guard.ts: hook "no-vendor" tools "wrte_file" names no registered tool (did you mean "write_file"?): the hook runs on no call of it' }]
 */
export function checkPluginHookNames(hooks: readonly PluginHookEntry[], tools: readonly NamedTool[], root?: string): UnmatchedName[] {
  const names = tools.map((t) => t.name)
  return hooks.flatMap(({ hook, source }) => {
    const file = source === undefined ? 'a hook registered in code' : root !== undefined && source.startsWith(root + path.sep) ? path.relative(root, source) : source
    return unmatchedHookTools(`${file}: hook ${JSON.stringify(hook.name)} tools`, hook.tools, names)
  })
}

// A hook's `tools` (a name or glob, or a list of them) that match none of `names`; `where` gets `[k]` for a list's entry.
function unmatchedHookTools(where: string, tools: string | readonly string[], names: readonly string[]): UnmatchedName[] {
  const entries = typeof tools === 'string' ? [tools] : tools
  const unmatched: UnmatchedName[] = []
  entries.forEach((entry, k) => {
    const set = nameMatcher([entry])
    if (names.some((name) => set.has(name))) return
    const isGlob = isNameGlob(entry)
    unmatched.push(describeUnmatched(typeof tools === 'string' ? where : `${where}[${k}]`, entry, isGlob ? undefined : entry, names, `${JSON.stringify(entry)} ${isGlob ? 'matches' : 'names'} no registered tool`, 'the hook runs on no call of it'))
  })
  return unmatched
}
