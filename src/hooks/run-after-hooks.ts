import type { ToolError, ToolResult } from '../contract/types.js'
import type { HookRunContext, ReadyHook } from './call-hooks.js'
import type { HookRecord } from './run-before-hooks.js'
import { CALL_ERRORS } from '../contract/call-errors.js'

/**
 * Runs a finished call's after-hooks in order, each seeing the result as the one before left it. A
 * rewrite (`content`) replaces the result's text, held to `cap` (the call's text limit); the blocks,
 * structured content and saved-file note it replaces go with it. A denial, a failure or an interrupt
 * withholds the result: the call's result is then an error saying why (the tool did run). Never rejects.
 *
 * @example
 * const { result, records } = await runAfterHooks(hooks.afterFor(result.name), args, result, (t) => capText(t, limit), { root, env })
 */
export async function runAfterHooks(hooks: readonly ReadyHook[], args: Record<string, unknown>, given: ToolResult, cap: (text: string) => string, context: HookRunContext): Promise<{ result: ToolResult; records: HookRecord[] }> {
  const records: HookRecord[] = []
  let result = given
  const tool = given.name
  for (const hook of hooks) {
    const shown = { ok: result.ok, content: result.content, ...(result.error ? { error: result.error } : {}) }
    const verdict = await hook.run({ event: 'after_call', id: result.id, tool, arguments: args, result: shown }, context)
    let withheld: ToolError | undefined
    if (verdict.kind === 'aborted') withheld = CALL_ERRORS.interruptedInHook(tool, hook.name)
    else if (verdict.kind === 'failed') withheld = { code: 'E_DENIED', message: `${tool} ran, but its result is withheld: its hook ${hook.name} ${verdict.why}; this is a fault in the hook, not in your call` }
    else if (verdict.answer.decision === 'deny') withheld = { code: 'E_DENIED', message: `${tool} ran, but the hook ${hook.name} withheld its result: ${verdict.answer.reason ?? 'it gave no reason'}` }
    if (withheld) {
      records.push({ hook: hook.name, event: 'after_call', decision: 'deny', reason: withheld.message })
      return { result: replaced(result, false, withheld.message, withheld), records }
    }
    const answer = verdict.kind === 'answer' ? verdict.answer : {}
    const because = answer.reason === undefined ? '' : `: ${answer.reason}`
    if (answer.content !== undefined) {
      const content = cap(answer.content)
      result = replaced(result, result.ok, content, result.error ? { ...result.error, message: content } : undefined)
      records.push({ hook: hook.name, event: 'after_call', decision: 'allow', reason: `rewrote the result${because}` })
    } else records.push({ hook: hook.name, event: 'after_call', decision: 'allow', reason: `passed the result${because}` })
  }
  return { result, records }
}

// The result with new text: what the old text stood for (blocks, structured content, the saved
// whole) goes; the timing stays.
function replaced(result: ToolResult, ok: boolean, content: string, error: ToolResult['error']): ToolResult {
  const { blocks: _blocks, structuredContent: _structured, truncated: _truncated, savedTo: _savedTo, error: _error, ...kept } = result
  return { ...kept, ok, content, ...(error ? { error } : {}) }
}
