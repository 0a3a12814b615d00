import type { PermissionMode } from '../config/types.js'
import { noOneToAskMessage, planModeMessage, type Audience } from '../contract/messages.js'
import { suggestRule } from './approvals.js'
import type { PermissionDecision } from './decide.js'
import type { JudgedCall } from './judged-call.js'
import type { CallFacts } from './modes.js'

/**
 * The message of a call the permission system denied: a rule's, the mode's, or the tool's own,
 * worded for `reader`. A model (and a developer's model) is told not to retry and to ask the user; a
 * person is told which rule to change. `inPlanMode`: the mode's own reason names the CLI's way out,
 * so a plan-mode denial is worded for the reader too.
 *
 * @example
 * denialMessage('write_file', ruleDenial, 'model', false)
 * // 'write_file did not run: the permission rule permissions.deny[0] "write_file(**)" denies it. Do not retry it; …'
 */
export function denialMessage(tool: string, decision: PermissionDecision, reader: Audience, inPlanMode: boolean): string {
  if (decision.by === 'rule') {
    if (reader === 'person') return `${tool} did not run: ${decision.reason}. To run it, remove or narrow that rule in config.yaml`
    return `${tool} did not run: ${decision.reason}. Do not retry it; do something else, or ask the user to change the rule`
  }
  if (decision.by === 'mode') return inPlanMode ? planModeMessage(tool, reader) : decision.reason
  return `${tool} did not run: ${decision.reason}`
}

/**
 * The message of a call that needed approval with no one to ask: why it asked, and the rule or the
 * permission modes that would let it run (`why`: what the approver said, if one answered that it
 * could not ask).
 *
 * @example
 * noOneToAsk(judged, 'person')
 * // 'write_file did not run: it needs approval (…) and no one could be asked; nobody refused it. To allow it: …'
 */
export function noOneToAsk(j: JudgedCall, audience: Audience, why?: string): string {
  const tool = j.item.tool.name
  let rule: string | undefined
  try {
    rule = suggestRule(tool, j.subject())
  } catch {
    rule = undefined // a subject that cannot be made (odd arguments): no rule to suggest
  }
  return noOneToAskMessage({ tool, reason: j.decision.reason, rule, modes: modesThatRun(j), why, notByAllowRule: askerOf(j.decision, tool) }, audience)
}

// Who asked, when an allow rule would not settle the call (undefined when it would).
function askerOf(decision: PermissionDecision, tool: string): string | undefined {
  if (decision.allowRuleWouldRun) return undefined
  if (decision.by === 'rule') return `the ask rule ${decision.rule?.where ?? 'in permissions.ask'}`
  if (decision.by === 'hook') return 'a before_call hook'
  return `${tool} itself`
}

// The permission modes under which a call that asks would run without asking.
function modesThatRun(j: { decision: PermissionDecision; destructive: boolean; facts: CallFacts }): PermissionMode[] {
  if (j.decision.by !== 'mode' || j.destructive) return ['bypass']
  return j.facts.edit ? ['accept-edits', 'auto', 'bypass'] : ['auto', 'bypass']
}
