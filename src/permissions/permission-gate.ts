import path from 'node:path'
import type { PermissionMode, ToolhostConfig } from '../config/types.js'
import { describeThrown, ToolhostError } from '../errors.js'
import type { Authoriser, AuthoriseDecision, AuthoriseItem, Host } from '../host.js'
import { bindAsker } from '../dispatch/call-context.js'
import { isCaseInsensitiveFs } from '../paths.js'
import { argumentLimitsOf, checkArgumentLimits } from '../dispatch/argument-limits.js'
import { describeSchemaErrors } from '../schema.js'
import type { Logger, PermissionResult, ToolContext, ToolError } from '../types.js'
import { noOneToAskMessage, planModeMessage, type Audience } from '../messages.js'
import { askAll, personDeniedMessage, SessionApprovals, suggestRule, withStandby, type ApprovalAnswer, type ApprovalRequest, type ApproveHandler, type StandbyApprover } from './approvals.js'
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
  /** Who reads denials, so they name the way out that reader can take (default `developer`). */
  audience?: Audience | undefined
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
  #standby: StandbyApprover | undefined
  readonly #audience: Audience
  readonly #caseInsensitive: boolean
  readonly #session = new SessionApprovals()
  readonly #closing = new AbortController()
  readonly #pathScoped: ReadonlySet<string>
  // Per tool name: does any allow, ask or deny rule name it? (Rules are fixed at start-up.)
  readonly #named = new Map<string, boolean>()
  readonly #checkTimeoutMs: number
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
    this.#audience = options.audience ?? 'developer'
    this.#checkTimeoutMs = permissions.check_timeout_ms
    this.#caseInsensitive = isCaseInsensitiveFs(options.root)
    this.#pathScoped = new Set(options.config.dispatch.path_scoped)
    this.audit = new AuditLog(permissions.audit_log === '' ? '' : path.resolve(options.root, permissions.audit_log), { root: options.root, onError: (error) => options.log.warn(error.message) })
    if (this.mode === 'bypass') {
      options.log.warn('PERMISSION MODE IS BYPASS: every call runs without asking — file writes, shell commands and destructive calls included (deny rules still apply). Use it only in a sandbox.')
    }
  }

  async authorise(items: readonly AuthoriseItem[], context: { signal?: AbortSignal; host: Host }): Promise<AuthoriseDecision[]> {
    if (!items.some(hasPermissionCheck)) return this.#decide(this.#assessAll(items, context.host), context.signal)
    // A never-aborted signal is made only when something can read it (a tool's permission check,
    // the approval handler): making an AbortSignal costs more than deciding a call.
    const signal = context.signal ?? new AbortController().signal
    const judged = await Promise.all(items.map((item) => this.#judge(item, signal, context.host)))
    return this.#decide(judged, signal)
  }

  /**
   * The same decisions as `authorise`, made synchronously, when no call of the batch waits for its
   * tool's own permission check; undefined otherwise (then the host calls `authorise`). Calls that
   * need a person still get a `gate` to wait on.
   */
  authoriseNow(items: readonly AuthoriseItem[], context: { signal?: AbortSignal; host: Host }): AuthoriseDecision[] | undefined {
    if (items.some(hasPermissionCheck)) return undefined
    return this.#decide(this.#assessAll(items, context.host), context.signal)
  }

  // Each call is decided on its own: a fault deciding one (a tool's readOnly that loops over odd
  // arguments, a subject that cannot be made) refuses that call alone, never its batch.
  #assessAll(items: readonly AuthoriseItem[], host: Host): Judged[] {
    const judged: Judged[] = new Array(items.length)
    for (let k = 0; k < items.length; k++) {
      const item = items[k]!
      try {
        judged[k] = this.#assess(item, item.args, undefined, host)
      } catch (error) {
        judged[k] = decisionFailed(item, error)
      }
    }
    return judged
  }

  #decide(judged: readonly Judged[], signal: AbortSignal | undefined): AuthoriseDecision[] {
    const decisions: AuthoriseDecision[] = new Array(judged.length)
    const asking: { k: number; judged: JudgedCall; request: ApprovalRequest }[] = []
    // The host's approver, then a standby (the console) for what it cannot ask; none: denied at once.
    const approve = this.#approverNow()
    for (let k = 0; k < judged.length; k++) {
      let j = judged[k]!
      let request: ApprovalRequest | undefined
      if (j instanceof JudgedCall && j.decision.outcome === 'ask') {
        try {
          request = approve ? approvalRequest(j) : undefined
        } catch (error) {
          j = decisionFailed(j.item, error)
        }
      }
      if (!(j instanceof JudgedCall)) {
        this.#record(j.item, j.item.args, undefined, { decision: 'deny', by: 'tool', reason: j.refused.message })
        decisions[k] = { run: false, error: j.refused }
        continue
      }
      const { decision } = j
      this.audit.recordDeferred(new DecisionRecord(j, this.mode, decision))
      if (decision.outcome === 'allow') decisions[k] = { run: true, args: j.args }
      else if (decision.outcome === 'deny') decisions[k] = { run: false, error: { code: 'E_DENIED', message: denialMessage(j.item.tool.name, decision, this.mode === 'plan' ? this.#audience : undefined) } }
      else if (request) asking.push({ k, judged: j, request })
      else decisions[k] = this.#noApprover(j)
    }
    if (asking.length === 0 || !approve) return decisions
    // The approver sees the run's interrupt and the host's close; either ends the wait for a person.
    const closing = this.#closing.signal
    const answers = askAll(approve, asking.map((a) => a.request), signal ? AbortSignal.any([signal, closing]) : closing, closing)
    asking.forEach(({ k, judged: j }, i) => {
      decisions[k] = { run: true, args: j.args, gate: answers.then((outcome) => this.#settle(j, outcome.failed ?? outcome.answers[i])) }
    })
    return decisions
  }

  // A call that asks, with nobody to ask: denied, saying which rule or mode would let it run.
  #noApprover(j: JudgedCall): AuthoriseDecision {
    const message = this.#consoleHint(this.#noOneToAsk(j))
    this.audit.recordDeferred(new DecisionRecord(j, this.mode, { decision: 'deny', by: 'no-approver', reason: message }))
    return { run: false, error: { code: 'E_DENIED', message } }
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
      if (outcome === 'ask' && !this.#approve && !this.#standby?.isPresent()) return { outcome: 'deny', by: 'no-approver', reason: `${reason}; no one can be asked here, so it would be denied` }
      return { outcome, by, reason }
    })
  }

  /**
   * Adds an approver asked when no one else can be (the console, while a page is open): about the
   * requests the host's approver answers `cannot-ask`, or about all when the host has none. One at a
   * time; returns the function that removes it.
   */
  attachStandby(approver: StandbyApprover): () => void {
    this.#standby = approver
    return () => {
      if (this.#standby === approver) this.#standby = undefined
    }
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
    try {
      return await this.#judgeUnsafe(item, signal, host)
    } catch (error) {
      return decisionFailed(item, error)
    }
  }

  async #judgeUnsafe(item: AuthoriseItem, signal: AbortSignal, host: Host): Promise<Judged> {
    const { tool } = item
    if (!tool.checkPermissions) return this.#assess(item, item.args, undefined, host)
    let said: unknown
    // The tool's check gets its own signal: aborted by the run's interrupt, or when it runs out of time.
    const own = new AbortController()
    const onAbort = (): void => own.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    let timer: NodeJS.Timeout | undefined
    try {
      const answer = tool.checkPermissions(item.args, permissionContext(item, own.signal, host))
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(CHECK_TIMED_OUT), this.#checkTimeoutMs)
      })
      said = await Promise.race([answer, timeout])
    } catch (error) {
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
    const problem = checkArgumentLimits(updated, argumentLimitsOf(host.config), true)
    if (problem !== undefined) return { code: 'E_ARGS_INVALID', message: `${prefix} (${problem}); ${suffix}` }
    const entry = host.registry.entry(name)
    if (!entry) return { code: 'E_TOOL_UNKNOWN', message: `the tool "${name}" was removed` }
    if (entry.validate(updated)) return undefined
    return { code: 'E_ARGS_INVALID', message: `${prefix}: ${describeSchemaErrors(entry.validate.errors, updated).join('; ')}; ${suffix}` }
  }

  // The approver for calls that ask: the host's, then the standby for what it could not ask.
  #approverNow(): ApproveHandler | undefined {
    const standby = this.#standby
    if (!standby) return this.#approve
    if (this.#approve) return withStandby(this.#approve, standby)
    return standby.isPresent() ? withStandby(undefined, standby) : undefined
  }

  // A console could have answered had a page been open: say so, so the user knows where to look.
  #consoleHint(message: string): string {
    return this.#standby !== undefined && !this.#standby.isPresent() ? `${message} The user can also approve such calls in toolhost's console while a page of it is open.` : message
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
    if (outcome.decision === 'cannot-ask') {
      // Not a person's refusal: no one could be reached (an MCP client without elicitation, a console
      // that did not answer in time), and no standby answered.
      const message = this.#consoleHint(this.#noOneToAsk(j, outcome.why))
      this.audit.recordDeferred(new DecisionRecord(j, this.mode, { decision: 'deny', by: 'no-approver', reason: message, ...answeredBy }))
      return { code: 'E_DENIED', message }
    }
    if (outcome.decision === 'deny') {
      const message = personDeniedMessage(tool, outcome.message)
      this.audit.recordDeferred(new DecisionRecord(j, this.mode, { decision: 'deny', by: 'person', reason: message, ...answeredBy }))
      return { code: 'E_DENIED', message }
    }
    if (outcome.decision === 'allow-session') this.#session.remember(tool, j.keys())
    this.audit.recordDeferred(new DecisionRecord(j, this.mode, { decision: outcome.decision, by: 'person', reason: `the person answered ${outcome.decision}`, ...answeredBy }))
    return undefined
  }

  #noOneToAsk(j: JudgedCall, why?: string): string {
    const tool = j.item.tool.name
    let rule: string | undefined
    try {
      rule = suggestRule(tool, j.subject())
    } catch {
      rule = undefined // a subject that cannot be made (odd arguments): no rule to suggest
    }
    return noOneToAskMessage({ tool, reason: j.decision.reason, rule, modes: modesThatRun(j), why }, this.#audience)
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

const NO_SUBJECTS: readonly CallSubject[] = []

const CHECK_TIMED_OUT = new Error('the permission check timed out')

// A fault of the permission system itself while deciding one call: that call is refused.
function decisionFailed(item: AuthoriseItem, error: unknown): { refused: ToolError; item: AuthoriseItem } {
  return { item, refused: { code: 'E_DENIED', message: `${item.tool.name} did not run: deciding its permission failed (${describeThrown(error)}); try again, or ask the user to check the permission settings` } }
}

// What the approval handler is shown for a call that asks.
function approvalRequest(j: JudgedCall): ApprovalRequest {
  return {
    callId: j.item.call.id,
    tool: j.item.tool.name,
    args: j.args,
    subject: describeSubject(j.subject()),
    reason: j.decision.reason,
    askedBy: j.decision.by,
    destructive: j.destructive,
  }
}

// The permission modes under which a call that asks would run without asking.
function modesThatRun(j: { decision: PermissionDecision; destructive: boolean; facts: CallFacts }): PermissionMode[] {
  if (j.decision.by !== 'mode' || j.destructive) return ['bypass']
  return j.facts.edit ? ['accept-edits', 'auto', 'bypass'] : ['auto', 'bypass']
}

// `planFor`: the reader of a plan-mode denial (the mode's own reason names the CLI's way out).
function denialMessage(tool: string, decision: PermissionDecision, planFor: Audience | undefined): string {
  if (decision.by === 'rule') return `${tool} did not run: ${decision.reason}. Do not retry it; do something else, or ask the user to change the rule`
  if (decision.by === 'mode') return planFor ? planModeMessage(tool, planFor) : decision.reason
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
    ask: host.ask && bindAsker(host.ask, item.call.id, () => signal),
    services: host.services,
    env: host.env,
    progress: () => undefined,
  }
}
