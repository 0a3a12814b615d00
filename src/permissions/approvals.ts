import { describeThrown } from '../contract/errors.js'
import type { DecidedBy } from './decide.js'
import type { CallSubject } from './subjects.js'

/** One call the permission system wants a person to approve. */
export interface ApprovalRequest {
  callId: string
  tool: string
  /** The arguments the call will run with (after the tool's `checkPermissions`). */
  args: Record<string, unknown>
  /** What the call touches in short form: its paths, its command, or its arguments. */
  subject: string
  /** Why it asks, e.g. `write_file is not read-only for these arguments (mode ask)`. */
  reason: string
  /** What made it ask: a rule, the tool (ask or destructive), or the mode. */
  askedBy: DecidedBy
  destructive: boolean
}

/**
 * A person's answer to one request. `allow-session` also allows later calls of the same tool with
 * the same subject (paths, command or arguments) for the life of the host. `cannot-ask` says no one
 * could be asked (`why`: e.g. the MCP client cannot answer questions): a standby approver such as the
 * console is asked next, and without one the call is refused, the result saying nobody refused it
 * and what would allow it. `pending` says the question went to the person and the answer comes
 * later, with another request (an MCP 2026 client's `input_required` round): nobody has decided, the
 * call does not run now, and the audit log says so (`decision: "pending"`), never a refusal. `by`
 * names who answered, for the audit log (`terminal`, `--yes`, `mcp-elicitation`, `console`, …).
 */
export type ApprovalAnswer =
  | { decision: 'allow-once'; by?: string }
  | { decision: 'allow-session'; by?: string }
  | { decision: 'deny'; message?: string; by?: string }
  | { decision: 'cannot-ask'; why: string; by?: string }
  | { decision: 'pending'; note: string; by?: string }

/**
 * Asks a person about every call of a batch that needs asking, all at once, before any of them runs;
 * resolves with one answer per request, in order. Only those calls wait for it.
 *
 * @example
 * const approve: ApproveHandler = async (requests) =>
 *   requests.map((r) => (r.tool === 'write_file' ? { decision: 'allow-once' } : { decision: 'deny', message: 'not now' }))
 * const host = await createHost({ approve })
 */
export type ApproveHandler = (requests: readonly ApprovalRequest[], signal: AbortSignal) => Promise<readonly ApprovalAnswer[]>

/**
 * An approver that can answer only while someone is there: the console while a page of it is
 * open. The permission gate asks it about the requests the host's own approver could not ask (`cannot-ask`), or
 * about every request when the host has no approver, and only while `isPresent()` is true.
 *
 * @example
 * const standby: StandbyApprover = { isPresent: () => pagesOpen > 0, approve: askInTheBrowser }
 * const detach = host.authoriser.attachStandby?.(standby)
 */
export interface StandbyApprover {
  isPresent(): boolean
  approve: ApproveHandler
}

/**
 * The host's approver first (when there is one), then `standby` for the requests it left
 * `cannot-ask`, if someone is there to answer; what is still unanswered stays so (and is denied).
 *
 * @example
 * const approve = withStandby(sessions.approve, consoleApprovals)
 */
export function withStandby(first: ApproveHandler | undefined, standby: StandbyApprover): ApproveHandler {
  return async (requests, signal) => {
    const given = first ? await first(requests, signal) : requests.map((): ApprovalAnswer => ({ decision: 'cannot-ask', why: 'this host has no approver' }))
    if (!Array.isArray(given)) return given // malformed: the gate refuses every call of the batch
    const answers = [...given] as ApprovalAnswer[]
    const open = requests.flatMap((_, i) => (checkAnswer(answers[i])?.decision === 'cannot-ask' ? [i] : []))
    if (open.length === 0 || !standby.isPresent()) return answers
    const more = await standby.approve(open.map((i) => requests[i]!), signal)
    open.forEach((i, k) => (answers[i] = (Array.isArray(more) ? more[k] : undefined) as ApprovalAnswer))
    return answers
  }
}

/**
 * Approves every request once (what the CLI's `--yes` does).
 *
 * @example
 * const host = await createHost({ approve: approveEverything })
 */
export const approveEverything: ApproveHandler = async (requests) => requests.map(() => ({ decision: 'allow-once', by: '--yes' }))

/**
 * Calls the person allowed for the session: per caller and tool, the subject keys they covered. The
 * caller is the call's principal (`RunOptions.principal`: an MCP client's authenticated id and
 * subject, or its connection or 2025 session; the console; none for the embedding's own calls): an
 * answer given for one caller never covers another's calls.
 */
export class SessionApprovals {
  readonly #allowed = new Map<string, Set<string>>()
  // The tools some caller has an approval for: the judge's fast path asks only this.
  readonly #tools = new Set<string>()

  /** Remembers that `principal`'s calls of `tool` may touch these subject keys for the rest of the session. */
  remember(principal: string | undefined, tool: string, keys: readonly string[]): void {
    const key = scopeKey(principal, tool)
    let set = this.#allowed.get(key)
    if (!set) this.#allowed.set(key, (set = new Set()))
    for (const k of keys) set.add(k)
    this.#tools.add(tool)
  }

  /** True when some caller's call of `tool` was allowed for the session (only then can `covers` be true). */
  hasTool(tool: string): boolean {
    return this.#tools.has(tool)
  }

  /** True when every subject key of `principal`'s call was allowed for the session before, for that principal. */
  covers(principal: string | undefined, tool: string, keys: readonly string[]): boolean {
    const set = this.#allowed.get(scopeKey(principal, tool))
    return set !== undefined && keys.length > 0 && keys.every((k) => set.has(k))
  }
}

// One caller's approvals of one tool (a NUL cannot be in a tool name).
function scopeKey(principal: string | undefined, tool: string): string {
  return `${principal ?? ''}\u0000${tool}`
}

/** An answer as the handler gave it, checked; anything else is undefined (and the call is denied). */
export function checkAnswer(value: unknown): ApprovalAnswer | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { decision, by, why } = value as Record<string, unknown>
  const message = (value as Record<string, unknown>).message ?? (value as Record<string, unknown>).note
  const who = typeof by === 'string' && by !== '' ? { by } : {}
  if (decision === 'allow-once' || decision === 'allow-session') return { decision, ...who }
  if (decision === 'pending') return { decision, note: typeof message === 'string' && message.trim() !== '' ? message.trim() : 'waiting for the person\'s answer', ...who }
  if (decision === 'cannot-ask') return { decision, why: typeof why === 'string' && why.trim() !== '' ? why.trim() : 'the approver could not reach anyone', ...who }
  if (decision === 'deny') return { decision, ...(typeof message === 'string' && message.trim() !== '' ? { message: message.trim() } : {}), ...who }
  return undefined
}

/** A narrow allow rule a person could add for calls like this one; undefined when there is none. */
export function suggestRule(tool: string, subject: CallSubject): string | undefined {
  if (subject.kind === 'paths') {
    if (subject.paths.length !== 1 || subject.keys.length > 0 || subject.unresolved) return undefined
    const p = subject.paths[0]!
    return `${tool}(${p.relative ?? p.absolute})`
  }
  if (subject.kind === 'command') return subject.hasSubstitution || subject.segments.length !== 1 ? undefined : `${tool}(${subject.command})`
  return subject.value.length <= 80 && !subject.value.startsWith('{') ? `${tool}(${subject.value})` : tool
}

/** What a denied call's result says when the person refused it. */
export function personDeniedMessage(tool: string, message: string | undefined): string {
  return `${tool} did not run: the user denied this call${message ? `: ${message}` : ''}. Do not retry it as is${message ? '; follow what the user said' : '; ask the user or do something else'}`
}

/**
 * Runs the approval handler once for a batch; never rejects (a failure becomes the reason every call
 * is denied), and gives up when the host closes.
 *
 * @example
 * const { failed, answers } = await askAll(approve, requests, signal, closing)
 */
export async function askAll(approve: ApproveHandler, requests: readonly ApprovalRequest[], signal: AbortSignal, closing: AbortSignal): Promise<{ failed?: string; answers: (ApprovalAnswer | undefined)[] }> {
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
