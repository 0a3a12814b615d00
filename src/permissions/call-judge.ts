import type { PermissionMode } from '../config/types.js'
import { argumentLimitsOf, checkArgumentLimits } from '../dispatch/admit/argument-limits.js'
import { CallContext } from '../dispatch/execute/call-context.js'
import { describeThrown } from '../contract/errors.js'
import type { AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { DecidingFor } from './authoriser.js'
import { describeSchemaErrors } from '../registry/schema.js'
import type { BehaviourContext, PermissionResult, ToolContext, ToolError } from '../contract/types.js'
import type { SessionApprovals } from './approvals.js'
import { decidePermission, type DecideInput, type PermissionDecision } from './decide.js'
import { JudgedCall, snapshotArgs } from './judged-call.js'
import { isEditCall, type CallFacts } from './modes.js'
import type { PermissionRules } from './rules.js'
import { safeDestructive, safeReadOnly, subjectKeys, subjectOf, type CallSubject, type SubjectContext } from './subjects.js'
import { CALL_ERRORS } from '../contract/call-errors.js'

/** A call after the tool had its say and the permission system decided: decided, or refused outright. */
export type Judged = { refused: ToolError; item: AuthoriseItem } | JudgedCall

export interface CallJudgeOptions {
  mode: PermissionMode
  rules: PermissionRules
  /** What the person allowed for the session (shared with the gate, which remembers the answers). */
  session: SessionApprovals
  /** `permissions.check_timeout_ms`: how long a tool's own permission check may take. */
  checkTimeoutMs: number
  caseInsensitive: boolean
  /** `dispatch.path_scoped`: tools whose calls are judged on their paths whatever they declare. */
  pathScoped: ReadonlySet<string>
}

/**
 * Judges one call at a time: the tool's own say (`checkPermissions`, within
 * `permissions.check_timeout_ms`, its new arguments checked like a model's), then the permission
 * decision (`decidePermission`) on the call's facts and, where the decision can depend on it, its
 * rule subject. A fault judging one call refuses that call alone, never its batch.
 *
 * @example
 * const judge = new CallJudge({ mode: 'default', rules, session, checkTimeoutMs: 5000, caseInsensitive: false, pathScoped: new Set() })
 * const judged = await judge.judge(item, signal, on) // a JudgedCall, or { item, refused }
 */
export class CallJudge {
  readonly #mode: PermissionMode
  readonly #rules: PermissionRules
  readonly #session: SessionApprovals
  readonly #checkTimeoutMs: number
  readonly #caseInsensitive: boolean
  readonly #pathScoped: ReadonlySet<string>
  // Per tool name: does any allow, ask or deny rule name it? (Rules are fixed at start-up.)
  readonly #named = new Map<string, boolean>()
  #plain: SubjectContext | undefined
  readonly #input: DecideInput
  #behaviour: BehaviourContext | undefined

  constructor(options: CallJudgeOptions) {
    this.#mode = options.mode
    this.#rules = options.rules
    this.#session = options.session
    this.#checkTimeoutMs = options.checkTimeoutMs
    this.#caseInsensitive = options.caseInsensitive
    this.#pathScoped = options.pathScoped
    this.#input = { toolName: '', mode: this.#mode, rules: this.#rules, subjects: NO_SUBJECTS, facts: NO_FACTS, toolSay: undefined, sessionAllowed: false, caseInsensitive: this.#caseInsensitive, needsApproval: false, hookAsk: undefined }
  }

  /** Judges a call whose tool may have a permission check to wait for. Never rejects. */
  async judge(item: AuthoriseItem, signal: AbortSignal, on: DecidingFor): Promise<Judged> {
    try {
      return await this.#judgeUnsafe(item, signal, on)
    } catch (error) {
      return decisionFailed(item, error)
    }
  }

  /** Judges calls whose tools have no permission check, at once. */
  assessAll(items: readonly AuthoriseItem[], on: DecidingFor): Judged[] {
    const judged: Judged[] = new Array(items.length)
    for (let k = 0; k < items.length; k++) {
      const item = items[k]!
      try {
        judged[k] = this.#assess(item, item.args, snapshotArgs(item.args), undefined, on)
      } catch (error) {
        judged[k] = decisionFailed(item, error)
      }
    }
    return judged
  }

  async #judgeUnsafe(item: AuthoriseItem, signal: AbortSignal, on: DecidingFor): Promise<Judged> {
    const { tool } = item
    const seen = snapshotArgs(item.args)
    if (!tool.checkPermissions) return this.#assess(item, item.args, seen, undefined, on)
    if (signal.aborted) return { item, refused: checkStopped(tool.name) }
    let said: unknown
    // The tool's check gets its own signal: aborted by the run's interrupt or the host's close (the
    // wait for it ends then too, whether or not the check listens), or when it runs out of time.
    const own = new AbortController()
    let onAbort!: () => void
    const stopped = new Promise<never>((_, reject) => {
      onAbort = (): void => {
        own.abort(signal.reason)
        reject(CHECK_STOPPED)
      }
    })
    signal.addEventListener('abort', onAbort, { once: true })
    let timer: NodeJS.Timeout | undefined
    try {
      // The frozen snapshot: a check that changes what it is shown changes neither what runs nor what is logged.
      const answer = tool.checkPermissions(seen, permissionContext(item, own, on))
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(CHECK_TIMED_OUT), this.#checkTimeoutMs)
      })
      said = await Promise.race([answer, timeout, stopped])
    } catch (error) {
      if (error === CHECK_STOPPED) return { item, refused: checkStopped(tool.name) }
      if (error === CHECK_TIMED_OUT) {
        own.abort(new Error(`the permission check ran out of time (${this.#checkTimeoutMs} ms)`))
        return { item, refused: { code: 'E_DENIED', message: `${tool.name} did not run: its permission check did not answer within ${this.#checkTimeoutMs} ms (permissions.check_timeout_ms); this is a fault in the tool, not in your call` } }
      }
      return { item, refused: { code: 'E_DENIED', message: `${tool.name} did not run: its permission check failed (${describeThrown(error)}); this is a fault in the tool, not in your call` } }
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    }
    const checked = checkToolSay(said)
    if (typeof checked === 'string') return { item, refused: { code: 'E_DENIED', message: `${tool.name} did not run: its permission check returned ${checked}; this is a fault in the tool, not in your call` } }
    if ('updatedArgs' in checked && checked.updatedArgs !== undefined) {
      // A copy of the tool's new arguments, checked and run as they are now: the check keeps no
      // handle on what runs (it may hand back parts of the frozen snapshot, or change its object later).
      const updated: unknown = copyUpdated(checked.updatedArgs)
      const invalid = revalidate(on, tool.name, updated)
      if (invalid) return { item, refused: invalid }
      const args = updated as Record<string, unknown>
      return this.#assess(item, args, snapshotArgs(args), checked, on)
    }
    return this.#assess(item, item.args, seen, checked, on)
  }

  // Decides a call once the tool had its say. The rule subject is worked out now only when the
  // decision can depend on it; otherwise it is made lazily (see JudgedCall), from the snapshot.
  // `snapshot` is the frozen copy of `args` that the tool's judges read (see snapshotArgs).
  #assess(item: AuthoriseItem, args: Record<string, unknown>, snapshot: Record<string, unknown>, toolSay: PermissionResult | undefined, on: DecidingFor): JudgedCall {
    const { tool } = item
    const needsApproval = tool.needsApproval === false ? false : needsApprovalFor(item, snapshot, on)
    const pathScoped = tool.pathScoped || this.#pathScoped.has(tool.name)
    const context = pathScoped ? { root: on.host.workspace.root, caseInsensitive: this.#caseInsensitive, pathScoped } : this.#plainContext(on.host.workspace.root)
    const behaviour = this.#behaviourContext(on.host.workspace.root)
    if (!pathScoped && args === item.args && !this.#rulesName(tool.name) && !this.#session.hasTool(tool.name)) {
      // No rule names the tool, no session approval covers it, and a subject that is not paths is
      // never a file edit: the decision cannot depend on the subject.
      const destructive = safeDestructive(tool, snapshot, behaviour)
      const facts: CallFacts = { readOnly: safeReadOnly(tool, snapshot, behaviour), destructive, edit: false }
      const decision = this.#decide(tool.name, NO_SUBJECTS, facts, toolSay, false, needsApproval, item.hookAsk)
      return new JudgedCall(item, args, snapshot, context, decision, facts)
    }
    const subject = subjectOf(tool, snapshot, context, true)
    const subjects = args === item.args ? [subject] : [subject, subjectOf(tool, snapshotArgs(item.args), context, true)]
    const keys = subjects.flatMap(subjectKeys)
    const destructive = safeDestructive(tool, snapshot, behaviour)
    const facts: CallFacts = { readOnly: safeReadOnly(tool, snapshot, behaviour), destructive, edit: isEditCall(tool.name, subject, destructive) }
    const decision = this.#decide(tool.name, subjects, facts, toolSay, this.#session.covers(item.principal, tool.name, keys), needsApproval, item.hookAsk)
    return new JudgedCall(item, args, snapshot, context, decision, facts, subject, keys)
  }

  // `decidePermission` with this judge's mode, rules and case rule, through one input object reused
  // call after call (deciding is synchronous and keeps nothing of its input).
  #decide(toolName: string, subjects: readonly CallSubject[], facts: CallFacts, toolSay: PermissionResult | undefined, sessionAllowed: boolean, needsApproval: boolean, hookAsk: string | undefined): PermissionDecision {
    const input = this.#input
    input.toolName = toolName
    input.subjects = subjects
    input.facts = facts
    input.toolSay = toolSay
    input.sessionAllowed = sessionAllowed
    input.needsApproval = needsApproval
    input.hookAsk = hookAsk
    try {
      return decidePermission(input)
    } finally {
      input.subjects = NO_SUBJECTS
      input.facts = NO_FACTS
      input.toolSay = undefined
    }
  }

  // The subject context of a tool that is not path-scoped (one per root, shared by its calls).
  #plainContext(root: string): SubjectContext {
    if (this.#plain?.root !== root) this.#plain = { root, caseInsensitive: this.#caseInsensitive, pathScoped: false }
    return this.#plain
  }

  // What a tool's readOnly/destructive get beside the arguments (one per root, shared by its calls:
  // frozen, so one tool cannot change what the next call's tool is told).
  #behaviourContext(root: string): BehaviourContext {
    if (this.#behaviour?.root !== root) this.#behaviour = Object.freeze({ root })
    return this.#behaviour
  }

  #rulesName(tool: string): boolean {
    let named = this.#named.get(tool)
    if (named === undefined) {
      const { allow, ask, deny } = this.#rules
      named = allow.some((r) => r.namesTool(tool)) || ask.some((r) => r.namesTool(tool)) || deny.some((r) => r.namesTool(tool))
      this.#named.set(tool, named)
    }
    return named
  }
}

/**
 * A fault of the permission system itself while deciding one call: that call is refused.
 *
 * @example
 * decisionFailed(item, new Error('odd arguments')) // { item, refused: { code: 'E_DENIED', message: '… deciding its permission failed (odd arguments) …' } }
 */
export function decisionFailed(item: AuthoriseItem, error: unknown): { refused: ToolError; item: AuthoriseItem } {
  return { item, refused: { code: 'E_DENIED', message: `${item.tool.name} did not run: deciding its permission failed (${describeThrown(error)}); try again, or ask the user to check the permission settings` } }
}

const NO_SUBJECTS: readonly CallSubject[] = []
const NO_FACTS: CallFacts = Object.freeze({ readOnly: false, destructive: false, edit: false })

const CHECK_TIMED_OUT = new Error('the permission check timed out')
const CHECK_STOPPED = new Error('the permission check was stopped')

// The run was interrupted, or the host closed, while the tool's permission check ran (or before).
function checkStopped(tool: string): ToolError {
  return CALL_ERRORS.stoppedInCheck(tool)
}

const BEHAVIORS = new Set(['allow', 'deny', 'ask', 'passthrough'])

// A tool's answer, checked (tools are trusted code, but a malformed answer must fail closed).
function checkToolSay(said: unknown): PermissionResult | string {
  if (typeof said !== 'object' || said === null) return `${JSON.stringify(said) ?? String(said)} instead of a permission result`
  const behavior = (said as { behavior?: unknown }).behavior
  if (typeof behavior !== 'string' || !BEHAVIORS.has(behavior)) return `an unknown behavior ${JSON.stringify(behavior)}`
  if (behavior === 'deny' && typeof (said as { message?: unknown }).message !== 'string') return 'deny without a message'
  return said as PermissionResult
}

// Arguments a tool's permission check put in place of the model's are checked like the model's.
function revalidate(on: DecidingFor, name: string, updated: unknown): ToolError | undefined {
  const prefix = `${name} did not run: its permission check produced invalid arguments`
  const suffix = 'this is a fault in the tool, not in your call'
  if (typeof updated !== 'object' || updated === null || Array.isArray(updated)) return { code: 'E_ARGS_INVALID', message: `${prefix} (not an object); ${suffix}` }
  const problem = checkArgumentLimits(updated, argumentLimitsOf(on.host.settings.config), true)
  if (problem !== undefined) return { code: 'E_ARGS_INVALID', message: `${prefix} (${problem}); ${suffix}` }
  const entry = on.tools.entry(name)
  if (!entry) return CALL_ERRORS.removedTool(name)
  if (entry.validate(updated)) return undefined
  return { code: 'E_ARGS_INVALID', message: `${prefix}: ${describeSchemaErrors(entry.validate.errors, updated).join('; ')}; ${suffix}` }
}

// A tool's `needsApproval` for the arguments the call will run with. A function is asked with a
// context like checkPermissions' and must answer true or false at once; anything else (a throw, a
// promise) refuses the call, as any fault deciding it does.
function needsApprovalFor(item: AuthoriseItem, args: Record<string, unknown>, on: DecidingFor): boolean {
  const given: unknown = item.tool.needsApproval
  if (typeof given !== 'function') return given === true
  const answer: unknown = (given as (args: Record<string, unknown>, ctx: ToolContext) => unknown)(args, permissionContext(item, NEVER_ABORTED, on))
  if (typeof answer === 'boolean') return answer
  throw new Error(`its needsApproval answered ${answer instanceof Promise ? 'a promise' : (JSON.stringify(answer) ?? String(answer))} instead of true or false`)
}

// needsApproval's context: a call that is never aborted (the answer is synchronous).
const NEVER_ABORTED = new AbortController()

// A check's new arguments as plain data of their own (JSON's model: what a call's arguments are).
function copyUpdated(updated: unknown): unknown {
  return typeof updated === 'object' && updated !== null ? structuredClone(updated) : updated
}

// A tool's checkPermissions or needsApproval sees the context its handler would: the call, the host's
// groups; its progress goes nowhere, its log lines to the host's log.
function permissionContext(item: AuthoriseItem, controller: AbortController, on: DecidingFor): ToolContext {
  return new CallContext(on.host, item.call.id, item.tool.name, controller)
}
