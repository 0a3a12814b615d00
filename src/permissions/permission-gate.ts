import path from 'node:path'
import type { ToolhostConfig } from '../config/types.js'
import { ToolhostError } from '../contract/errors.js'
import { CALL_ERRORS } from '../contract/call-errors.js'
import type { AuthoriseContext, Authoriser, DecidingFor } from './authoriser.js'
import type { AuthoriseDecision, AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import { isCaseInsensitiveFs } from '../workspace/paths.js'
import type { Logger, ToolError } from '../contract/types.js'
import type { Audience } from '../contract/messages.js'
import { askAll, personDeniedMessage, SessionApprovals, withStandby, type ApprovalAnswer, type ApprovalRequest, type ApproveHandler, type StandbyApprover } from './approvals.js'
import { AuditLog } from './audit.js'
import { CallJudge, decisionFailed, type Judged } from './call-judge.js'
import { denialMessage, noOneToAsk } from './denial-messages.js'
import type { PermissionDecision } from './decide.js'
import { DecisionRecord, hasPermissionCheck, JudgedCall, refusalEntry, type DecisionFields } from './judged-call.js'
import { PERMISSION_MODES } from './modes.js'
import { parseRules, type PermissionRules } from './rules.js'
import { describeSubject } from './subjects.js'

export interface PermissionGateOptions {
  /** The host's config (`permissions.mode` already overridden by `--permission-mode`). */
  config: ToolhostConfig
  /** The config file, for messages about bad rules. */
  configFile: string | undefined
  /** The canonical workspace root. */
  root: string
  /**
   * Who approves calls that ask. What it cannot ask (`cannot-ask`), or every such call when there is
   * none, goes to a standby approver while one is present (the console, `attachStandby`); else the
   * call is denied with `E_DENIED`, saying no one could be asked and what would allow it.
   */
  approve?: ApproveHandler | undefined
  log: Logger
  /** Who reads denials, so they name the way out that reader can take (default `developer`). */
  audience?: Audience | undefined
}

/** What the gate would decide for one call (see `PermissionGate.preview`). */
export interface PermissionPreview {
  outcome: 'allow' | 'ask' | 'deny'
  /** Who decided: a rule, the mode, the tool, the session, or no-approver. */
  by: string
  reason: string
}

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
  readonly #session = new SessionApprovals()
  readonly #closing = new AbortController()
  readonly #judge: CallJudge

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
    this.#judge = new CallJudge({
      mode: this.mode,
      rules: this.rules,
      session: this.#session,
      checkTimeoutMs: permissions.check_timeout_ms,
      caseInsensitive: isCaseInsensitiveFs(options.root),
      pathScoped: new Set(options.config.dispatch.path_scoped),
    })
    this.audit = new AuditLog(permissions.audit_log === '' ? '' : path.resolve(options.root, permissions.audit_log), { root: options.root, onError: (error) => options.log.warn(error.message) })
    if (this.mode === 'bypass') {
      options.log.warn('PERMISSION MODE IS BYPASS: every call runs without asking — file writes, shell commands and destructive calls included (deny rules still apply). Use it only in a sandbox.')
    }
  }

  async authorise(items: readonly AuthoriseItem[], context: AuthoriseContext): Promise<AuthoriseDecision[]> {
    if (!items.some(hasPermissionCheck)) return this.#decide(this.#judge.assessAll(items, context), context.signal)
    // The checks' signal, made only when there is a check to read it (making an AbortSignal costs
    // more than deciding a call): the run's interrupt or the host's close ends them. Listeners, not
    // AbortSignal.any, so nothing stays tied to the host's long-lived closing signal.
    const checks = new AbortController()
    const stop = (): void => checks.abort()
    const closing = this.#closing.signal
    if (closing.aborted || context.signal?.aborted) checks.abort()
    closing.addEventListener('abort', stop, { once: true })
    context.signal?.addEventListener('abort', stop, { once: true })
    try {
      const judged = await Promise.all(items.map((item) => this.#judge.judge(item, checks.signal, context)))
      return this.#decide(judged, context.signal)
    } finally {
      closing.removeEventListener('abort', stop)
      context.signal?.removeEventListener('abort', stop)
    }
  }

  /**
   * The same decisions as `authorise`, made synchronously, when no call of the batch waits for its
   * tool's own permission check; undefined otherwise (then the host calls `authorise`). Calls that
   * need a person still get a `gate` to wait on.
   */
  authoriseNow(items: readonly AuthoriseItem[], context: AuthoriseContext): AuthoriseDecision[] | undefined {
    if (items.some(hasPermissionCheck)) return undefined
    return this.#decide(this.#judge.assessAll(items, context), context.signal)
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
        this.audit.record(refusalEntry(j.item, this.mode, j.refused.message))
        decisions[k] = { run: false, error: j.refused }
        continue
      }
      const { decision } = j
      this.#recordDecision(j, decision)
      if (decision.outcome === 'allow') decisions[k] = { run: true, args: j.args }
      else if (decision.outcome === 'deny') decisions[k] = { run: false, error: { code: 'E_DENIED', message: denialMessage(j.item.tool.name, decision, this.#readerOf(j), this.mode === 'plan') } }
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

  // Who reads this call's refusal: the batch's reader (`RunOptions.audience`), else the host's.
  #readerOf(j: JudgedCall): Audience {
    return j.item.audience ?? this.#audience
  }

  // A call that asks, with nobody to ask: denied, saying which rule or mode would let it run.
  #noApprover(j: JudgedCall): AuthoriseDecision {
    const message = this.#consoleHint(noOneToAsk(j, this.#readerOf(j)))
    this.#recordDecision(j, { decision: 'deny', by: 'no-approver', reason: message })
    return { run: false, error: { code: 'E_DENIED', message } }
  }

  /**
   * What the gate would decide for each call, without asking anyone, running anything or writing
   * the audit log (`toolhost explain`). A tool's own `checkPermissions` is consulted.
   */
  async preview(items: readonly AuthoriseItem[], context: DecidingFor): Promise<PermissionPreview[]> {
    const signal = new AbortController().signal
    const judged = await Promise.all(items.map((item) => this.#judge.judge(item, signal, context)))
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
   * before the person answered"), and calls whose tool's permission check is still running are
   * answered E_ABORTED (the check's signal aborts), instead of holding `host.close()` open.
   */
  shutdown(): void {
    this.#closing.abort(new Error('the host closed'))
  }

  /** Writes out every audit line recorded so far and closes the log (the host calls it on close). */
  close(): Promise<void> {
    return this.audit.close()
  }

  // The decision's audit line, built when the log is written (see DecisionRecord).
  #recordDecision(j: JudgedCall, what: DecisionFields | PermissionDecision): void {
    this.audit.recordDeferred(new DecisionRecord(j, this.mode, what))
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
      this.#recordDecision(j, { decision: 'deny', by: 'host', reason: message })
      return { code: 'E_DENIED', message }
    }
    const answeredBy = outcome.by === undefined ? {} : { answeredBy: outcome.by }
    if (outcome.decision === 'cannot-ask') {
      // Not a person's refusal: no one could be reached (an MCP client without elicitation, a console
      // that did not answer in time), and no standby answered.
      const message = this.#consoleHint(noOneToAsk(j, this.#readerOf(j), outcome.why))
      this.#recordDecision(j, { decision: 'deny', by: 'no-approver', reason: message, ...answeredBy })
      return { code: 'E_DENIED', message }
    }
    if (outcome.decision === 'pending') {
      // Asked, not answered: the call stops here and runs again with the answer. No one decided.
      this.#recordDecision(j, { decision: 'pending', by: 'asking', reason: `${tool} is waiting for the person's answer (${outcome.note}); nobody has decided yet`, ...answeredBy })
      return CALL_ERRORS.awaitingAnswer(tool, outcome.note)
    }
    if (outcome.decision === 'deny') {
      const message = personDeniedMessage(tool, outcome.message)
      this.#recordDecision(j, { decision: 'deny', by: 'person', reason: message, ...answeredBy })
      return { code: 'E_DENIED', message }
    }
    if (outcome.decision === 'allow-session') this.#session.remember(j.item.principal, tool, j.keys())
    this.#recordDecision(j, { decision: outcome.decision, by: 'person', reason: `the person answered ${outcome.decision}`, ...answeredBy })
    return undefined
  }
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
