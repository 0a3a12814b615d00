import picomatch from 'picomatch'
import { ToolhostError } from '../contract/errors.js'
import { deletionPattern, type DeletionPattern } from '../shell/deleting-commands.js'

/** Which list of `permissions` a rule comes from. */
export type RuleList = 'allow' | 'ask' | 'deny'

/** A rule of `permissions.allow/ask/deny`, parsed once at start-up. */
export interface PermissionRule {
  list: RuleList
  index: number
  /** The rule as written, e.g. `terminal(git status*)`. */
  source: string
  /** Where it is configured, e.g. `permissions.allow[2]` (for messages and the audit log). */
  where: string
  /** True when the rule names this tool (`tool` exactly, or `prefix*`). */
  namesTool(name: string): boolean
  /** The argument pattern; undefined when the rule names the whole tool. */
  pattern: string | undefined
  /**
   * A deny or ask rule whose pattern is an `rm` command (`terminal(rm -rf *)`) names every command
   * that deletes that way (`find … -delete`, `git clean`, `unlink`, …: `deleting-commands.ts`).
   */
  deletes: DeletionPattern | undefined
}

/** The three lists, parsed. */
export interface PermissionRules {
  allow: PermissionRule[]
  ask: PermissionRule[]
  deny: PermissionRule[]
}

// `tool`, `tool(pattern)`, `prefix*` or `prefix*(pattern)`; tool names as TOOL_NAME_PATTERN allows.
const RULE = /^([A-Za-z0-9_.-]{1,64}|[A-Za-z0-9_.-]{0,63}\*)(?:\((.*)\))?$/s

/**
 * Parses one rule. Throws `E_CONFIG_INVALID` naming the rule and where it is configured.
 *
 * @example
 * parseRule('terminal(git status*)', 'allow', 0, 'config.yaml').pattern // 'git status*'
 */
export function parseRule(text: unknown, list: RuleList, index: number, file: string): PermissionRule {
  const where = `permissions.${list}[${index}]`
  const fail = (why: string): never => {
    throw new ToolhostError('E_CONFIG_INVALID', `${file}: ${where}: ${JSON.stringify(text)} is not a permission rule: ${why}. Write "tool" or "tool(pattern)", e.g. "write_file(src/**)" or "terminal(git status*)"`)
  }
  if (typeof text !== 'string') return fail('it must be a string')
  const trimmed = text.trim()
  const match = RULE.exec(trimmed)
  if (!match) {
    if (trimmed.includes('(') && !trimmed.endsWith(')')) return fail('the pattern is missing its closing ")"')
    return fail('the tool part must be a tool name (letters, digits, _ . -), optionally ending in *')
  }
  const toolPart = match[1]!
  const rawPattern = match[2]
  if (rawPattern !== undefined && rawPattern.trim() === '') fail('the pattern in "()" is empty; leave out the parentheses to name the whole tool')
  const pattern = rawPattern === undefined ? undefined : rawPattern.trim()
  if (pattern !== undefined) {
    try {
      picomatch(toPathGlob(pattern), { dot: true })
    } catch (error) {
      fail(`the pattern is not a valid glob (${(error as Error).message})`)
    }
  }
  const namesTool = toolPart.endsWith('*')
    ? ((prefix: string) => (name: string) => name.startsWith(prefix))(toolPart.slice(0, -1))
    : (name: string) => name === toolPart
  const deletes = pattern !== undefined && list !== 'allow' ? deletionPattern(pattern) : undefined
  return { list, index, source: trimmed, where, namesTool, pattern, deletes }
}

/**
 * Parses the three lists of `permissions`; the first bad rule throws, naming it.
 *
 * @example
 * parseRules({ allow: ['write_file(src/**)'], ask: [], deny: ['read_file(**\/*.pem)'] }, 'config.yaml').deny[0]!.where // 'permissions.deny[0]'
 */
export function parseRules(config: { allow: readonly unknown[]; ask: readonly unknown[]; deny: readonly unknown[] }, file: string): PermissionRules {
  return {
    allow: config.allow.map((text, i) => parseRule(text, 'allow', i, file)),
    ask: config.ask.map((text, i) => parseRule(text, 'ask', i, file)),
    deny: config.deny.map((text, i) => parseRule(text, 'deny', i, file)),
  }
}

/** A rule pattern as a path glob: `./src/**` and `src/**` mean the same. */
export function toPathGlob(pattern: string): string {
  let out = pattern
  while (out.startsWith('./')) out = out.slice(2)
  return out
}
