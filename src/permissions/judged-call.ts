import type { PermissionMode } from '../config/types.js'
import { describeThrown } from '../contract/errors.js'
import type { AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { AnyTool } from '../contract/types.js'
import type { AuditEntry, DeferredAuditEntry } from './audit.js'
import { abbreviate, hasStringOver, sortKeys } from './canonical-json.js'
import type { PermissionDecision } from './decide.js'
import type { CallFacts } from './modes.js'
import { describeSubject, subjectKeys, subjectOf, type CallSubject, type SubjectContext } from './subjects.js'

const AUDIT_STRING_CHARS = 2000

/**
 * A call the permission system has decided. Its rule subject is worked out at once when the decision
 * needs it (a path-scoped tool, a rule naming the tool, a session approval for it); otherwise only
 * when something reads it (an approval request, the audit log when it is written), from `snapshot`,
 * a copy of the arguments taken at decision time, so a handler that changes its arguments cannot
 * change what the log says was decided.
 *
 * @example
 * const judged = new JudgedCall(item, args, snapshotArgs(args), context, decision, facts, subject)
 * judged.subject() // { kind: 'value', value: '{"n":1}' } (made on first use)
 */
export class JudgedCall {
  readonly item: AuthoriseItem
  readonly args: Record<string, unknown>
  /** The arguments as decided on: keys sorted, nothing cut, frozen (the tool's judges read it; its handler never gets it). */
  readonly snapshot: Record<string, unknown>
  readonly decision: PermissionDecision
  readonly facts: CallFacts
  /** What the subject is worked out with (a subject that is not paths depends only on the snapshot). */
  readonly context: SubjectContext
  #subject: CallSubject | undefined
  #keys: string[] | undefined

  constructor(item: AuthoriseItem, args: Record<string, unknown>, snapshot: Record<string, unknown>, context: SubjectContext, decision: PermissionDecision, facts: CallFacts, subject?: CallSubject, keys?: string[]) {
    this.item = item
    this.args = args
    this.snapshot = snapshot
    this.context = context
    this.decision = decision
    this.facts = facts
    this.#subject = subject
    this.#keys = keys
  }

  get destructive(): boolean {
    return this.facts.destructive
  }

  /** The subject of the arguments the call runs with. */
  subject(): CallSubject {
    return (this.#subject ??= subjectOf(this.item.tool, this.snapshot, this.context))
  }

  /** The subject if it was worked out already (the audit line makes it from the snapshot otherwise). */
  subjectIfMade(): CallSubject | undefined {
    return this.#subject
  }

  /** The subject keys a session approval remembers (made lazily only when the arguments are the ones sent). */
  keys(): string[] {
    return (this.#keys ??= subjectKeys(this.subject()))
  }
}

/** What an audit line says was decided (the entry's last fields). */
export type DecisionFields = Pick<AuditEntry, 'decision' | 'by' | 'reason'> & Partial<Pick<AuditEntry, 'rule' | 'answeredBy'>>

/**
 * One audit line whose text is built when the log is written: it keeps the decision's fields as they
 * were at decision time (the time, the argument snapshot, the subject or what it is made from), and
 * nothing else, so a burst of buffered lines holds little memory and the line is the same as if it
 * had been serialised at once.
 *
 * @example
 * audit.recordDeferred(new DecisionRecord(judged, 'bypass', { decision: 'allow', by: 'mode', reason: 'permission mode bypass runs every call' }))
 */
export class DecisionRecord implements DeferredAuditEntry {
  readonly #time = Date.now()
  readonly #callId: string
  readonly #principal: string | undefined
  readonly #tool: AnyTool
  readonly #snapshot: Record<string, unknown>
  readonly #subject: CallSubject | undefined
  readonly #context: SubjectContext
  readonly #mode: PermissionMode
  readonly #what: DecisionFields | PermissionDecision

  /** `what`: the fields to log, or the permission system's decision itself (logged as decision, by, reason, rule). */
  constructor(judged: JudgedCall, mode: PermissionMode, what: DecisionFields | PermissionDecision) {
    this.#callId = judged.item.call.id
    this.#principal = judged.item.principal
    this.#tool = judged.item.tool
    this.#snapshot = judged.snapshot
    this.#subject = judged.subjectIfMade()
    this.#context = judged.context
    this.#mode = mode
    this.#what = what
  }

  toEntry(): AuditEntry {
    const what = this.#what
    // Built when the log is written, off the call path: a fault here costs this line's details,
    // never the log, the process, or another line.
    let args: unknown
    let subject: string
    try {
      // The snapshot is a sorted copy already: serialised as it is unless a string must be cut.
      args = hasStringOver(this.#snapshot, AUDIT_STRING_CHARS) ? abbreviate(this.#snapshot, AUDIT_STRING_CHARS) : this.#snapshot
      subject = describeSubject(this.#subject ?? subjectOf(this.#tool, this.#snapshot, this.#context, true))
    } catch (error) {
      args = `[the arguments could not be recorded: ${describeThrown(error)}]`
      subject = ''
    }
    return {
      time: isoTime(this.#time),
      callId: this.#callId,
      tool: this.#tool.name,
      args,
      subject,
      mode: this.#mode,
      ...('outcome' in what ? fieldsOf(what) : what),
      ...(this.#principal === undefined ? {} : { principal: this.#principal }),
    }
  }
}

/**
 * The audit line of a call refused before the permission system could decide it (its tool's
 * permission check failed or timed out, or deciding it failed): written at once, with no subject.
 *
 * @example
 * audit.record(refusalEntry(item, 'default', 'write_file did not run: its permission check failed (…)'))
 */
export function refusalEntry(item: AuthoriseItem, mode: PermissionMode, reason: string): AuditEntry {
  return { time: new Date().toISOString(), callId: item.call.id, tool: item.tool.name, args: abbreviate(item.args, AUDIT_STRING_CHARS), subject: '', mode, decision: 'deny', by: 'tool', reason, ...(item.principal === undefined ? {} : { principal: item.principal }) }
}

// The ISO text of a time in ms; lines written together mostly share their millisecond, and
// toISOString costs more than the rest of a line.
let lastMs = Number.NaN
let lastIso = ''
function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString()
    lastMs = ms
  }
  return lastIso
}

// How the audit log words a decision of the permission system.
function fieldsOf(decision: PermissionDecision): DecisionFields {
  const fields: DecisionFields = { decision: decision.outcome, by: decision.by, reason: decision.reason }
  if (decision.rule) fields.rule = `${decision.rule.where} ${decision.rule.source}`
  return fields
}

/**
 * A deep copy of a call's arguments with keys sorted, frozen at every depth: what the audit log and
 * rule subjects read, and what the tool's own judges (`checkPermissions`, `needsApproval`,
 * `readOnly`, `destructive`, `scope`) are handed, so none of them can change what runs or what is
 * logged. Made without recursion and without prototypes (a `"__proto__"` key is kept, as the
 * handler gets it). Fails like serialising the arguments would (a BigInt; admission refuses those
 * already).
 *
 * @example
 * snapshotArgs({ b: 1, a: ['x'] }) // { a: ['x'], b: 1 }, frozen
 */
export function snapshotArgs(args: Record<string, unknown>): Record<string, unknown> {
  return freezeDeep(sortKeys(args)) as Record<string, unknown>
}

// Object.freeze at every depth, without recursion (the copy is fresh: no cycles, no shared parts).
function freezeDeep(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  const pending: object[] = [value]
  while (pending.length > 0) {
    const container = Object.freeze(pending.pop()!) as Record<string, unknown>
    for (const key of Object.keys(container)) {
      const child = container[key]
      if (typeof child === 'object' && child !== null) pending.push(child)
    }
  }
  return value
}

/** True when the tool asks to be consulted before each call (the batch must then wait for it). */
export function hasPermissionCheck(item: { tool: AnyTool }): boolean {
  return item.tool.checkPermissions !== undefined
}
