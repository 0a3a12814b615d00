import type { HookAnswer, HookCall } from '../contract/hook-types.js'

const DECISIONS = new Set(['allow', 'deny', 'ask'])

/**
 * A hook's answer, checked: a command's stdout (text: empty, or one JSON object) or a code hook's
 * return value. Hooks are operator code, but a malformed answer must fail closed: the string says
 * what is wrong with it, and the call is then denied.
 *
 * @example
 * readHookAnswer('{"decision":"deny","reason":"not on main"}', 'before_call') // { decision: 'deny', reason: 'not on main' }
 * readHookAnswer('ok', 'before_call') // 'answered "ok", which is not a JSON object'
 */
export function readHookAnswer(given: unknown, event: HookCall['event']): HookAnswer | string {
  let value = given
  if (typeof given === 'string') {
    if (given.trim() === '') return {}
    try {
      value = JSON.parse(given)
    } catch {
      return `answered ${JSON.stringify(given.trim().slice(0, 200))}, which is not a JSON object (write logs to stderr)`
    }
  }
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) return `answered ${JSON.stringify(value)?.slice(0, 200) ?? String(value)}, which is not a JSON object`
  const answer = value as Record<string, unknown>
  const { decision, reason } = answer
  if (decision !== undefined && (typeof decision !== 'string' || !DECISIONS.has(decision))) return `answered an unknown decision ${JSON.stringify(decision)} (allow, deny or ask)`
  if (reason !== undefined && typeof reason !== 'string') return 'answered a reason that is not text'
  if (event === 'after_call' && decision === 'ask') return 'answered "ask" after the call, when there is nothing left to ask about'
  const out: HookAnswer = {}
  if (decision !== undefined) out.decision = decision as HookAnswer['decision']
  if (reason !== undefined) out.reason = reason
  if (answer.arguments !== undefined) {
    if (event !== 'before_call') return 'answered arguments after the call'
    const args = answer.arguments
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'answered arguments that are not a JSON object'
    out.arguments = args as Record<string, unknown>
  }
  if (answer.content !== undefined) {
    if (event !== 'after_call') return 'answered content before the call (rewrite `arguments` instead)'
    if (typeof answer.content !== 'string') return 'answered content that is not text'
    out.content = answer.content
  }
  return out
}
