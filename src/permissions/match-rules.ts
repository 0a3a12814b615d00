import picomatch from 'picomatch'
import { compileLinearRegex } from '../patterns/linear-regex.js'
import { deletionMatches, type Deletion } from '../shell/deleting-commands.js'
import { toPathGlob, type PermissionRule } from './rules.js'
import type { CallSubject, PathSubject } from './subjects.js'

type Test = (text: string) => boolean

const pathMatchers = new WeakMap<PermissionRule, Map<boolean, Test>>()
const textMatchers = new WeakMap<PermissionRule, Test>()
// Globs of an `rm` rule's targets (`rm -rf build/*`: `build/*`), compiled once each.
const globMatchers = new Map<string, Test>()

/**
 * The first deny or ask rule that names this call: the tool matches and the pattern matches ANY of
 * the call's subjects (a path, the command or one of the commands it runs, the value). A path-scoped
 * call whose paths cannot be worked out, and a command that cannot be judged before it runs, match
 * every pattern of their tool (fail closed).
 *
 * @example
 * findBlockingRule(rules.deny, 'read_file', subject, false)?.source // 'read_file(**\/*.pem)'
 */
export function findBlockingRule(rules: readonly PermissionRule[], tool: string, subjects: readonly CallSubject[], caseInsensitive: boolean): PermissionRule | undefined {
  // Loops, not find/some with closures: every call of every batch is checked against the deny rules.
  for (const rule of rules) {
    if (!rule.namesTool(tool)) continue
    for (const s of subjects) if (matchesAny(rule, s, caseInsensitive)) return rule
  }
  return undefined
}

/**
 * The command a deny or ask rule written as an `rm` command names by its class rather than its
 * words: the first deleting command of the call (`find build -delete`) that deletes as the rule
 * does, where the rule's words alone do not name the call. Undefined otherwise (for messages).
 *
 * @example
 * deletionNamedBy(denyRmRf, subjects) // { command: 'find build -delete', recursive: true, targets: ['build'] } for `find build -delete`
 */
export function deletionNamedBy(rule: PermissionRule, subjects: readonly CallSubject[]): Deletion | undefined {
  if (rule.deletes === undefined) return undefined
  for (const s of subjects) {
    if (s.kind !== 'command' || s.unresolved !== undefined || matchesWords(rule, s)) continue
    const deletion = s.deletions.find((d) => deletionMatches(rule.deletes!, d, globMatches))
    if (deletion) return deletion
  }
  return undefined
}

/**
 * The allow rule that covers this call, or undefined. Every subject must be covered: each path by
 * some allow rule of the tool, each part of a chained command by some allow rule, the value by one.
 * A command with substitution or a redirection into a file (`$(…)`, backticks, `> out`), or one
 * that cannot be judged before it runs, is never covered by a pattern.
 * Returns the first rule that took part.
 */
export function findAllowRule(rules: readonly PermissionRule[], tool: string, subjects: readonly CallSubject[], caseInsensitive: boolean): PermissionRule | undefined {
  const named = rules.filter((rule) => rule.namesTool(tool))
  if (named.length === 0) return undefined
  const whole = named.find((rule) => rule.pattern === undefined)
  if (whole) return whole
  let first: PermissionRule | undefined
  const covers = (test: (rule: PermissionRule) => boolean): boolean => {
    const rule = named.find(test)
    if (rule && (!first || rule.index < first.index)) first = rule
    return rule !== undefined
  }
  for (const subject of subjects) {
    switch (subject.kind) {
      case 'paths':
        if (subject.unresolved !== undefined || subject.paths.length === 0 || subject.keys.length > 0) return undefined
        if (!subject.paths.every((p) => covers((rule) => pathMatches(rule, p, caseInsensitive)))) return undefined
        break
      case 'command':
        if (subject.unresolved !== undefined || subject.hasSubstitution || subject.segments.length === 0) return undefined
        if (!subject.segments.every((segment) => covers((rule) => textMatches(rule, segment)))) return undefined
        break
      case 'value':
        if (!covers((rule) => textMatches(rule, subject.value))) return undefined
        break
    }
  }
  return first
}

function matchesAny(rule: PermissionRule, subject: CallSubject, caseInsensitive: boolean): boolean {
  if (rule.pattern === undefined) return true
  switch (subject.kind) {
    case 'paths':
      if (subject.unresolved !== undefined) return true
      return subject.paths.some((p) => pathMatches(rule, p, caseInsensitive)) || subject.keys.some((k) => textMatches(rule, k.key))
    case 'command':
      // A command that cannot be judged before it runs could be any command: every pattern names it.
      if (subject.unresolved !== undefined) return true
      if (matchesWords(rule, subject)) return true
      // A rule written as an `rm` command names every command that deletes that way (deny and ask only).
      return rule.deletes !== undefined && subject.deletions.some((d) => deletionMatches(rule.deletes!, d, globMatches))
    case 'value':
      return textMatches(rule, subject.value)
  }
}

function matchesWords(rule: PermissionRule, subject: Extract<CallSubject, { kind: 'command' }>): boolean {
  return textMatches(rule, subject.command) || subject.segments.some((segment) => textMatches(rule, segment)) || subject.written.some((segment) => textMatches(rule, segment))
}

// A pattern starting with `/` is matched against the absolute canonical path; any other against the
// root-relative path, so it only ever matches inside the root.
function pathMatches(rule: PermissionRule, subject: PathSubject, caseInsensitive: boolean): boolean {
  const pattern = toPathGlob(rule.pattern!)
  const text = pattern.startsWith('/') ? subject.absolute : subject.relative
  if (text === undefined) return false
  let byCase = pathMatchers.get(rule)
  if (!byCase) pathMatchers.set(rule, (byCase = new Map()))
  let test = byCase.get(caseInsensitive)
  if (!test) byCase.set(caseInsensitive, (test = picomatch(pattern, { dot: true, nocase: caseInsensitive })))
  return test(text)
}

// Commands and values: `*` matches any run of characters (spaces and `/` included); all else is
// literal. The text is the model's (a command, arguments up to max_argument_chars): matched in linear
// time, since a pattern with several `*` backtracks polynomially in a JavaScript RegExp.
function textMatches(rule: PermissionRule, text: string): boolean {
  let test = textMatchers.get(rule)
  if (!test) textMatchers.set(rule, (test = compileTextGlob(rule.pattern!)))
  return test(text)
}

function globMatches(glob: string, text: string): boolean {
  let test = globMatchers.get(glob)
  if (!test) globMatchers.set(glob, (test = compileTextGlob(glob)))
  return test(text)
}

function compileTextGlob(glob: string): Test {
  const source = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('(?s:.*)')
  const regexp = compileLinearRegex(`^${source}$`)
  return (t) => regexp.test(t)
}
