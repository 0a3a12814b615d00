import { copyArguments, type ArgumentLimits } from '../dispatch/admit/argument-limits.js'
import type { RegistryEntry } from '../registry/registry.js'
import { describeSchemaErrors } from '../registry/schema.js'
import type { ToolError } from '../contract/types.js'
import type { HookRunContext, ReadyHook } from './call-hooks.js'
import { CALL_ERRORS } from '../contract/call-errors.js'

/** One hook's decision about one call, for the audit log. */
export interface HookRecord {
  /** `hooks.before_call[0]`, or a code hook's name. */
  hook: string
  event: 'before_call' | 'after_call'
  decision: 'allow' | 'ask' | 'deny'
  reason: string
}

/** A call after its before-hooks: it goes on (maybe with new arguments, maybe asking a person), or it is refused. */
export type BeforeHooksOutcome =
  | { run: true; args: Record<string, unknown>; ask: string | undefined; records: HookRecord[] }
  | { run: false; error: ToolError; records: HookRecord[] }

/** What a rewrite is checked against: the argument limits, and the tool's compiled schema. */
export interface RewriteCheck {
  limits: ArgumentLimits
  registry: { entry(name: string): RegistryEntry | undefined }
}

/**
 * Runs a call's before-hooks in order, each seeing the arguments as the one before left them. A
 * rewrite is checked like the model's arguments (limits, then the tool's schema) before the next
 * hook sees it; a denial, a failure, an invalid rewrite or an interrupt ends the chain and refuses
 * the call. An "ask" is remembered (the permission system asks a person) and the chain goes on.
 * Never rejects.
 *
 * @example
 * const out = await runBeforeHooks(hooks.beforeFor('write_file'), { id: 'c1', tool: 'write_file', args }, check, { root, env })
 * if (!out.run) return refuse(out.error)
 */
export async function runBeforeHooks(hooks: readonly ReadyHook[], call: { id: string; tool: string; args: Record<string, unknown> }, check: RewriteCheck, context: HookRunContext): Promise<BeforeHooksOutcome> {
  const records: HookRecord[] = []
  const { tool } = call
  let args = call.args
  let ask: string | undefined
  for (const hook of hooks) {
    const verdict = await hook.run({ event: 'before_call', id: call.id, tool, arguments: args }, context)
    if (verdict.kind === 'aborted') {
      records.push({ hook: hook.name, event: 'before_call', decision: 'deny', reason: 'interrupted while the hook ran' })
      return { run: false, records, error: CALL_ERRORS.stoppedInHook(tool, hook.name) }
    }
    if (verdict.kind === 'failed') {
      const message = `${tool} did not run: its hook ${hook.name} ${verdict.why}, so the call was denied; this is a fault in the hook, not in your call`
      records.push({ hook: hook.name, event: 'before_call', decision: 'deny', reason: message })
      return { run: false, records, error: { code: 'E_DENIED', message } }
    }
    const { answer } = verdict
    if (answer.decision === 'deny') {
      const message = `${tool} did not run: the hook ${hook.name} denied it: ${answer.reason ?? 'it gave no reason'}`
      records.push({ hook: hook.name, event: 'before_call', decision: 'deny', reason: message })
      return { run: false, records, error: { code: 'E_DENIED', message } }
    }
    let rewrote = false
    if (answer.arguments !== undefined) {
      const checked = checkRewrite(tool, answer.arguments, check)
      if (!checked.ok) {
        const message = `${tool} did not run: its hook ${hook.name} rewrote the arguments into invalid ones (${checked.problem}); this is a fault in the hook, not in your call`
        records.push({ hook: hook.name, event: 'before_call', decision: 'deny', reason: message })
        return { run: false, records, error: { code: 'E_ARGS_INVALID', message } }
      }
      args = checked.args
      rewrote = true
    }
    const because = answer.reason === undefined ? '' : `: ${answer.reason}`
    if (answer.decision === 'ask') {
      ask = `the hook ${hook.name} asks for approval${because}`
      records.push({ hook: hook.name, event: 'before_call', decision: 'ask', reason: `${rewrote ? 'rewrote the arguments and ' : ''}asked for approval${because}` })
    } else records.push({ hook: hook.name, event: 'before_call', decision: 'allow', reason: `${rewrote ? 'rewrote the arguments' : 'allowed it'}${because}` })
  }
  return { run: true, args, ask, records }
}

// A rewrite is data from outside the model, checked as strictly as the model's: read into a plain
// copy within the limits, then against the schema compiled at registration.
function checkRewrite(tool: string, given: Record<string, unknown>, check: RewriteCheck): { ok: true; args: Record<string, unknown> } | { ok: false; problem: string } {
  const copied = copyArguments(given, check.limits)
  if (!copied.ok) return copied
  if (Array.isArray(copied.args)) return { ok: false, problem: 'not an object' }
  const entry = check.registry.entry(tool)
  if (!entry) return { ok: false, problem: `the tool "${tool}" was removed` }
  if (entry.validate(copied.args)) return copied
  return { ok: false, problem: describeSchemaErrors(entry.validate.errors, copied.args).join('; ') }
}
