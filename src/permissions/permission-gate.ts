import path from 'node:path'
import type { PermissionMode, ToolhostConfig } from '../config/types.js'
import { describeThrown, ToolhostError } from '../errors.js'
import type { Authoriser, AuthoriseDecision, AuthoriseItem, Host } from '../host.js'
import { isCaseInsensitiveFs } from '../paths.js'
import { describeSchemaErrors } from '../schema.js'
import type { Logger, PermissionResult, ToolContext, ToolError } from '../types.js'
import { checkAnswer, noApproverMessage, personDeniedMessage, SessionApprovals, suggestRule, type ApprovalAnswer, type ApprovalRequest, type ApproveHandler } from './approvals.js'
import { AuditLog, type AuditEntry } from './audit.js'
import { abbreviate } from './canonical-json.js'
import { decidePermission, type PermissionDecision } from './decide.js'
import { DecisionRecord, hasPermissionCheck, JudgedCall, snapshotArgs } from './judged-call.js'
import { isEditCall, PERMISSION_MODES, type CallFacts } from './modes.js'
import { parseRules, type PermissionRules } from './rules.js'
import { describeSubject, safeDestructive, safeReadOnly, subjectKeys, subjectOf, type CallSubject, type SubjectContext } from './subjects.js'

export interface PermissionGateOptions {
  /** The host's config (`permissions.mode` already overridden by `--permission-mode`). */
  config: ToolhostConfig
  /** The config file, for messages about bad rules. */
  configFile: string | undefined
  /** The canonical workspace root. */
  root: string
  /** Who approves calls that ask; without one they are denied with `E_DENIED`. */
  approve?: ApproveHandler | undefined
  log: Logger
}

/** A call after the tool had its say and the permission system decided. */
type Judged = { refused: ToolError; item: AuthoriseItem } | JudgedCall

/** What the gate would decide for one call (see `PermissionGate.preview`). */
export interface PermissionPreview {
  outcome: 'allow' | 'ask' | 'deny'
  /** Who decided: a rule, the mode, the tool, the session, or no-approver. */
  by: string
  reason: string
}

const AUDIT_STRING_CHARS = 2000

/**
 * The default `Authoriser`: permission modes, config rules, the tool's own say and approvals.
 * Every call of a batch is decided at once; the calls that need asking go to the `approve` handler
 * together, and only they wait for the answers (through their gate) while the rest are scheduled.
 * Every decision is appended to the audit log.
 *
 * @example
 * const gate = new PermissionGate({ config, configFile: 'config.yaml', root, approve, log })
 * const host = await createHost({ authoriser: gate }) // createHost builds one like this by default
 */
export class PermissionGate implements Authoriser {
  readonly mode: ToolhostConfig['permissions']['mode']
  readonly rules: PermissionRules
  readonly audit: AuditLog
  readonly #approve: ApproveHandler | undefined
  readonly #caseInsensitive: boolean
  readonly #session = new SessionApprovals()
  readonly #closing = new AbortController()
  readonly #pathScoped: ReadonlySet<string>
  // Per tool name: does any allow, ask or deny rule name it? (Rules are fixed at start-up.)
  readonly #named = new Map<string, boolean>()
  #plain: SubjectContext | undefined

  constructor(options: PermissionGateOptions) {
    const file = options.configFile ?? 'config'
    const { permissions } = options.config
    if (!Object.hasOwn(PERMISSION_MODES, permissions.mode)) {
      throw new ToolhostError('E_CONFIG_INVALID', `${file}: permissions.mode must be one of ${Object.keys(PERMISSION_MODES).join(', ')}; got ${JSON.stringify(permissions.mode)}`)
    }
    this.mode = permissions.mode
    this.rules = parseRules(permissions, file)
    this.#approve = options.approve
    this.#caseInsensitive = isCaseInsensitiveFs(options.root)
    this.#pathScoped = new Set(options.config.dispatch.path_scoped)
    this.audit = new AuditLog(permissions.audit_log === '' ? '' : path.resolve(options.root, permissions.audit_log), { root: options.root, onError: (error) => options.log.warn(error.message) })
    if (this.mode === 'bypass') {
      options.log.warn('PERMISSION MODE IS BYPASS: every call runs without asking — file writes, shell commands and destructive calls included (deny rules still apply). Use it only in a sandbox.')
    }
  }

  async authorise(items: readonly AuthoriseItem[], context: { signal?: AbortSignal; host: Host }): Promise<AuthoriseDecision[]> {
    // A never-aborted signal is made only when something can read it (a tool's permission check,
    // the approval handler): making an AbortSignal costs more than deciding a call.
    let signal = context.signal
    let judged: Judged[]
    if (items.some(hasPermissionCheck)) {
      const batchSignal = (signal ??= new AbortController().signal)
      judged = await Promise.all(items.map((item) => this.#judge(item, batchSignal, context.host)))
    } else {
      judged = new Array(items.length)
      for (let k = 0; k < items.length; k++) judged[k] = this.#assess(items[k]!, items[k]!.args, undefined, context.host)
    }
    const decisions: AuthoriseDecision[] = new Array(judged.length)
    const asking: { k: number; judged: JudgedCall }[] = []
    for (let k = 0; k < judged.length; k++) {
      const j = judged[k]!
      if (!(j instanceof JudgedCall)) {
        this.#record(j.item, j.item.args, undefined, { decision: 'deny', by: 'tool', reason: j.refused.message })
        decisions[k] = { run: false, error: j.refused }
        continue
      }
      const { decision } = j
      this.audit.recordDeferred(new DecisionRecord(j, this.mode, decision))
      if (decision.outcome === 'allow') decisions[k] = { run: true, args: j.args }
      else if (decision.outcome === 'deny') decisions[k] = { run: false, error: { code: 'E_DENIED', message: denialMessage(j.item.tool.name, decision) } }
      else asking.push({ k, judged: j })
    }
    if (asking.length === 0) return decisions
    const approve = this.#approve
    if (!approve) {
      for (const { k, judged: j } of asking) {
        const message = noApproverMessage(j.item.tool.name, j.decision.reason, suggestRule(j.item.tool.name, j.subject()), modesThatRun(j))
        this.audit.recordDeferred(new DecisionRecord(j, this.mode, { decision: 'deny', by: 'no-approver', reason: message }))
        decisions[k] = { run: false, error: { code: 'E_DENIED', message } }
      }
      return decisions
    }
    const requests: ApprovalRequest[] = asking.map(({ judged: j }) => ({
      callId: j.item.call.id,
      tool: j.item.tool.name,
      args: j.args,
      subject: describeSubject(j.subject()),
      reason: j.decision.reason,
      askedBy: j.decision.by,
      destructive: j.destructive,
    }))
    // The approver sees the run's interrupt and the host's close; either ends the wait for a person.
    const closing = this.#closing.signal
    const answers = askAll(approve, requests, signal ? AbortSignal.any([signal, closing]) : closing, closing)
    asking.forEach(({ k, judged: j }, i) => {
      decisions[k] = { run: true, args: j.args, gate: answers.then((outcome) => this.#settle(j, outcome.failed ?? outcome.answers[i])) }
    })
    return decisions
  }

  /**
   * What the gate would decide for each call, without asking anyone, running anything or writing
   * the audit log (`toolhost explain`). A tool's own `checkPermissions` is consulted.
   */
  async preview(items: readonly AuthoriseItem[], context: { host: Host }): Promise<PermissionPreview[]> {
    const signal = new AbortController().signal
    const judged = await Promise.all(items.map((item) => this.#judge(item, signal, context.host)))
    return judged.map((j): PermissionPreview => {
      if (!(j instanceof JudgedCall)) return { outcome: 'deny', by: 'tool', reason: j.refused.message }
      const { outcome, by, reason } = j.decision
      if (outcome === 'ask' && !this.#approve) return { outcome: 'deny', by: 'no-approver', reason: `${reason}; no one can be asked here, so it would be denied` }
      return { outcome, by, reason }
    })
  }

  /**
   * The host is closing: calls still waiting for a person are refused (E_DENIED, "the host closed
   * before the person answered") instead of holding `host.close()` open.
   */
  shutdown(): void {
    this.#closing.abort(new Error('the host closed'))
  }

  /** Writes out every audit line recorded so far (the host calls it on close). */
  close(): Promise<void> {
    return this.audit.flush()
  }

  async #judge(item: AuthoriseItem, signal: AbortSignal, host: Host): Promise<Judged> {
    const { tool } = item
    if (!tool.checkPermissions) return this.#assess(item, item.args, undefined, host)
    let said: unknown
    try {
      said = await tool.checkPermissions(item.args, permissionContext(item, signal, host))
    } catch (error) {
      return { item, refused: { code: 'E_DENIED', message: `${tool.name} did not run: its permission check failed (${describeThrown(error)}); this is a fault in the tool, not in your call` } }
    }
    const checked = checkToolSay(said)
    if (typeof checked === 'string') return { item, refused: { code: 'E_DENIED', message: `${tool.name} did not run: its permission check returned ${checked}; this is a fault in the tool, not in your call` } }
    let args = item.args
    if ('updatedArgs' in checked && checked.updatedArgs !== undefined) {
      const invalid = this.#revalidate(host, tool.name, checked.updatedArgs)
      if (invalid) return { item, refused: invalid }
      args = checked.updatedArgs
    }
    return this.#assess(item, args, checked, host)
  }

  // Decides a call once the tool had its say. The rule subject is worked out now only when the
  // decision can depend on it; otherwise it is made lazily (see JudgedCall), from the snapshot.
  #assess(item: AuthoriseItem, args: Record<string, unknown>, toolSay: PermissionResult | undefined, host: Host): JudgedCall {
    const { tool } = item
    const snapshot = snapshotArgs(args)
    const pathScoped = tool.pathScoped || this.#pathScoped.has(tool.name)
    const context = pathScoped ? { root: host.root, caseInsensitive: this.#caseInsensitive, pathScoped } : this.#plainContext(host.root)
    if (!pathScoped && args === item.args && !this.#rulesName(tool.name) && !this.#session.hasTool(tool.name)) {
      // No rule names the tool, no session approval covers it, and a subject that is not paths is
      // never a file edit: the decision cannot depend on the subject.
      const behaviour = { root: host.root }
      const destructive = safeDestructive(tool, args, behaviour)
      const facts: CallFacts = { readOnly: safeReadOnly(tool, args, behaviour), destructive, edit: false }
      const decision = decidePermission({ toolName: tool.name, mode: this.mode, rules: this.rules, subjects: NO_SUBJECTS, facts, toolSay, sessionAllowed: false, caseInsensitive: this.#caseInsensitive })
      return new JudgedCall(item, args, snapshot, context, decision, facts)
    }
    const subject = subjectOf(tool, args, context)
    const subjects = args === item.args ? [subject] : [subject, subjectOf(tool, item.args, context)]
    const keys = subjects.flatMap(subjectKeys)
    const destructive = safeDestructive(tool, args, { root: host.root })
    const facts: CallFacts = { readOnly: safeReadOnly(tool, args, { root: host.root }), destructive, edit: isEditCall(tool.name, subject, destructive) }
    const decision = decidePermission({
      toolName: tool.name,
      mode: this.mode,
      rules: this.rules,
      subjects,
      facts,
      toolSay,
      sessionAllowed: this.#session.covers(tool.name, keys),
      caseInsensitive: this.#caseInsensitive,
    })
    return new JudgedCall(item, args, snapshot, context, decision, facts, subject, keys)
  }

  // The subject context of a tool that is not path-scoped (one per root, shared by its calls).
  #plainContext(root: string): SubjectContext {
    if (this.#plain?.root !== root) this.#plain = { root, caseInsensitive: this.#caseInsensitive, pathScoped: false }
    return this.#plain
  }

  #rulesName(tool: string): boolean {
    let named = this.#named.get(tool)
    if (named === undefined) {
      const { allow, ask, deny } = this.rules
      named = allow.some((r) => r.namesTool(tool)) || ask.some((r) => r.namesTool(tool)) || deny.some((r) => r.namesTool(tool))
      this.#named.set(tool, named)
    }
    return named
  }

  #revalidate(host: Host, name: string, updated: unknown): ToolError | undefined {
    const prefix = `${name} did not run: its permission check produced invalid arguments`
    const suffix = 'this is a fault in the tool, not in your call'
    if (typeof updated !== 'object' || updated === null || Array.isArray(updated)) return { code: 'E_ARGS_INVALID', message: `${prefix} (not an object); ${suffix}` }
    const entry = host.registry.entry(name)
    if (!entry) return { code: 'E_TOOL_UNKNOWN', message: `the tool "${name}" was removed` }
    if (entry.validate(updated)) return undefined
    return { code: 'E_ARGS_INVALID', message: `${prefix}: ${describeSchemaErrors(entry.validate.errors, updated).join('; ')}; ${suffix}` }
  }

  #settle(j: JudgedCall, outcome: ApprovalAnswer | string | undefined): ToolError | undefined {
    const tool = j.item.tool.name
    if (typeof outcome === 'string' || outcome === undefined) {
      const why = outcome ?? 'the approval handler gave no valid answer for this call'
      const message = `${tool} did not run: it needed approval and ${why}`
      this.audit.recordDeferred(new DecisionRecord(j, this.mode, { decision: 'deny', by: 'host', reason: message }))
      return { code: 'E_DENIED', message }
    }
    const answeredBy = outcome.by === undefined ? {} : { answeredBy: outcome.by }
    if (outcome.decision === 'deny') {
      const message = personDeniedMessage(tool, outcome.message)
      this.audit.recordDeferred(new DecisionRecord(j, this.mode, { decision: 'deny', by: 'person', reason: message, ...answeredBy }))
      return { code: 'E_DENIED', message }
    }
    if (outcome.decision === 'allow-session') this.#session.remember(tool, j.keys())
    this.audit.recordDeferred(new DecisionRecord(j, this.mode, { decision: outcome.decision, by: 'person', reason: `the person answered ${outcome.decision}`, ...answeredBy }))
    return undefined
  }

  #record(item: AuthoriseItem, args: Record<string, unknown>, subject: CallSubject | undefined, what: Pick<AuditEntry, 'decision' | 'by' | 'reason'> & Partial<Pick<AuditEntry, 'rule' | 'answeredBy'>>): void {
    this.audit.record({
      time: new Date().toISOString(),
      callId: item.call.id,
      tool: item.tool.name,
      args: abbreviate(args, AUDIT_STRING_CHARS),
      subject: subject ? describeSubject(subject) : '',
      mode: this.mode,
      ...what,
    })
  }
}

/** Runs the handler once for the batch; never rejects (a failure becomes the reason every call is denied). */
async function askAll(approve: ApproveHandler, requests: readonly ApprovalRequest[], signal: AbortSignal, closing: AbortSignal): Promise<{ failed?: string; answers: (ApprovalAnswer | undefined)[] }> {
  const closed = 'the host closed before the person answered'
  if (closing.aborted) return { failed: closed, answers: [] }
  let onClose: (() => void) | undefined
  const hostClosed = new Promise<{ failed: string; answers: [] }>((resolve) => {
    onClose = () => resolve({ failed: closed, answers: [] })
    closing.addEventListener('abort', onClose, { once: true })
  })
  try {
    return await Promise.race([askOnce(approve, requests, signal), hostClosed])
  } finally {
    closing.removeEventListener('abort', onClose!)
  }
}

async function askOnce(approve: ApproveHandler, requests: readonly ApprovalRequest[], signal: AbortSignal): Promise<{ failed?: string; answers: (ApprovalAnswer | undefined)[] }> {
  try {
    const answers = await approve(requests, signal)
    if (!Array.isArray(answers)) return { failed: 'the approval handler did not answer with a list', answers: [] }
    return { answers: requests.map((_, i) => checkAnswer(answers[i])) }
  } catch (error) {
    return { failed: `asking for approval failed (${describeThrown(error)})`, answers: [] }
  }
}

const NO_SUBJECTS: readonly CallSubject[] = []

// The permission modes under which a call that asks would run without asking.
function modesThatRun(j: { decision: PermissionDecision; destructive: boolean; facts: CallFacts }): PermissionMode[] {
  if (j.decision.by !== 'mode' || j.destructive) return ['bypass']
  return j.facts.edit ? ['accept-edits', 'auto', 'bypass'] : ['auto', 'bypass']
}

function denialMessage(tool: string, decision: PermissionDecision): string {
  if (decision.by === 'rule') return `${tool} did not run: ${decision.reason}. Do not retry it; do something else, or ask the user to change the rule`
  if (decision.by === 'mode') return decision.reason
  return `${tool} did not run: ${decision.reason}`
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

function permissionContext(item: AuthoriseItem, signal: AbortSignal, host: Host): ToolContext {
  return {
    signal,
    callId: item.call.id,
    root: host.root,
    config: host.config,
    log: host.log,
    session: host.session,
    ask: host.ask,
    services: host.services,
    env: host.env,
    progress: () => undefined,
  }
}
