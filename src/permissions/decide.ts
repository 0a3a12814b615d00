import type { PermissionMode } from '../config/types.js'
import type { PermissionResult } from '../contract/types.js'
import { deletionNamedBy, findAllowRule, findBlockingRule } from './match-rules.js'
import { modeDefault, planModeMessage, type CallFacts } from './modes.js'
import type { PermissionRule, PermissionRules } from './rules.js'
import type { CallSubject } from './subjects.js'

/** Who settled a call: a config rule, the tool itself, the permission mode, an earlier allow-for-session, or a before-hook that asked. */
export type DecidedBy = 'rule' | 'tool' | 'mode' | 'session' | 'hook'

/** The permission system's answer for one call, before anyone is asked. */
export interface PermissionDecision {
  outcome: 'allow' | 'ask' | 'deny'
  by: DecidedBy
  /** The rule that decided, when `by` is `rule`. */
  rule?: PermissionRule
  /** Why, in words a person and a model can read. */
  reason: string
  /** An ask that an allow rule matching the call would have turned into allow (the mode's ask, a destructive call's). */
  allowRuleWouldRun?: true
}

export interface DecideInput {
  toolName: string
  mode: PermissionMode
  rules: PermissionRules
  /** What rule patterns are matched against: the subject of the arguments as sent and, when the tool changed them, as they will run. */
  subjects: readonly CallSubject[]
  facts: CallFacts
  /** The tool's `checkPermissions` answer (already re-validated); undefined when it has none. */
  toolSay: PermissionResult | undefined
  /** An earlier "allow for this session" covers this call (same tool, same subject). */
  sessionAllowed: boolean
  caseInsensitive: boolean
  /** The tool's `needsApproval` answered true for this call. */
  needsApproval?: boolean
  /** A before-hook asked for approval: why (see `AuthoriseItem.hookAsk`). */
  hookAsk?: string | undefined
}

/**
 * Decides one call. The first step that has something to say wins:
 *
 * 1. a deny rule → deny
 * 2. the tool says deny → deny
 * 3. plan mode and the call is not read-only → deny
 * 4. bypass mode → allow
 * 5. the person allowed a matching call for the session → allow
 * 6. an ask rule → ask; a before-hook that asked → ask
 * 7. the tool says ask, or its `needsApproval` is true for the call → ask
 * 8. an allow rule → allow (also for a destructive call)
 * 9. the tool says the call is destructive → ask
 * 10. the tool says allow → allow
 * 11. the mode's default (read-only runs; `accept-edits` runs edits, `auto` runs the rest; else ask)
 *
 * `passthrough` (or no `checkPermissions`) lets the tool's steps pass.
 *
 * @example
 * decidePermission({ toolName: 'write_file', mode: 'ask', rules, subjects, facts, toolSay: undefined, sessionAllowed: false, caseInsensitive: false })
 * // { outcome: 'ask', by: 'mode', reason: 'write_file is not read-only for these arguments (mode ask)' }
 */
export function decidePermission(input: DecideInput): PermissionDecision {
  const { toolName, mode, rules, subjects, facts, toolSay, caseInsensitive } = input
  const deny = findBlockingRule(rules.deny, toolName, subjects, caseInsensitive)
  if (deny) return { outcome: 'deny', by: 'rule', rule: deny, reason: `the permission rule ${deny.where} "${deny.source}" denies it${classNote(deny, subjects)}` }
  if (toolSay?.behavior === 'deny') return { outcome: 'deny', by: 'tool', reason: `${toolName} refused it: ${toolSay.message}` }
  if (mode === 'plan' && !facts.readOnly) return { outcome: 'deny', by: 'mode', reason: planModeMessage(toolName) }
  if (mode === 'bypass') return BYPASS
  if (input.sessionAllowed) return { outcome: 'allow', by: 'session', reason: 'allowed for this session by the person earlier' }
  const ask = findBlockingRule(rules.ask, toolName, subjects, caseInsensitive)
  if (ask) return { outcome: 'ask', by: 'rule', rule: ask, reason: `the permission rule ${ask.where} "${ask.source}" asks for it${classNote(ask, subjects)}` }
  if (input.hookAsk !== undefined) return { outcome: 'ask', by: 'hook', reason: input.hookAsk }
  if (toolSay?.behavior === 'ask') return { outcome: 'ask', by: 'tool', reason: `${toolName} asks for approval${toolSay.message ? `: ${toolSay.message}` : ''}` }
  if (input.needsApproval === true) return { outcome: 'ask', by: 'tool', reason: `${toolName} needs a person's approval for this call (needsApproval)` }
  const allow = findAllowRule(rules.allow, toolName, subjects, caseInsensitive)
  if (allow) return { outcome: 'allow', by: 'rule', rule: allow, reason: `the permission rule ${allow.where} "${allow.source}" allows it` }
  if (facts.destructive) return { outcome: 'ask', by: 'tool', reason: `${toolName} says this call is destructive`, allowRuleWouldRun: true }
  if (toolSay?.behavior === 'allow') return { outcome: 'allow', by: 'tool', reason: `${toolName} allowed it${toolSay.message ? `: ${toolSay.message}` : ''}` }
  const byMode = modeDefault(mode, facts, toolName)
  return byMode.outcome === 'ask' ? { by: 'mode', ...byMode, allowRuleWouldRun: true } : { by: 'mode', ...byMode }
}

// One decision for every call bypass runs (frozen: shared by all of them).
const BYPASS: PermissionDecision = Object.freeze({ outcome: 'allow', by: 'mode', reason: 'permission mode bypass runs every call' })

// Why an `rm` rule names a command that is not `rm`: it deletes files the way the rule names.
function classNote(rule: PermissionRule, subjects: readonly CallSubject[]): string {
  const deletion = deletionNamedBy(rule, subjects)
  if (deletion === undefined) return ''
  const command = deletion.command.length > 120 ? `${deletion.command.slice(0, 120)}…` : deletion.command
  return ` (\`${command}\` deletes files${deletion.recursive ? ' recursively' : ''}, and a rule written as an rm command names every command that deletes files that way)`
}
