import type { ApprovalAnswer, ApprovalRequest, ApproveHandler, StandbyApprover } from '../permissions/approvals.js'
import { abbreviate, canonicalJson } from '../permissions/canonical-json.js'

/** A request waiting for a decision in the console, as a page shows it. */
export interface PendingApproval {
  /** The console's id for this request (what a page answers). */
  id: string
  callId: string
  tool: string
  subject: string
  reason: string
  destructive: boolean
  /** The arguments as canonical JSON, long strings cut. */
  args: string
  /** Epoch ms: asked at, and denied at unless someone answers first. */
  askedAt: number
  deadline: number
}

/** What a person can answer from the console. */
export type ConsoleDecision = 'allow-once' | 'allow-session' | 'deny'

interface Entry {
  view: PendingApproval
  settle(answer: ApprovalAnswer): void
}

const ARGS_CHARS = 2000

/**
 * Approvals answered in the browser: the permission gate's standby approver while a console page is
 * open. Each request waits until a person answers it (Approve, Allow for this session, Deny), its
 * run is interrupted, or `timeoutMs` passes: then it is answered `cannot-ask`, saying no
 * one answered in time, and the gate denies it. Answers name the console as who decided (audit log).
 *
 * @example
 * const approvals = new ConsoleApprovals({ timeoutMs: 120_000, isOpen: () => pages > 0 })
 * host.authoriser.attachStandby?.(approvals)
 * approvals.answer('a1', 'allow-once')
 */
export class ConsoleApprovals implements StandbyApprover {
  readonly timeoutMs: number
  readonly #isOpen: () => boolean
  readonly #pending = new Map<string, Entry>()
  readonly #listeners = new Set<() => void>()
  #seq = 0

  constructor(options: { timeoutMs: number; isOpen: () => boolean }) {
    if (!Number.isInteger(options.timeoutMs) || options.timeoutMs < 1) {
      throw new TypeError(`Expected \`timeoutMs\` to be an integer ≥ 1, got \`${String(options.timeoutMs)}\` (${typeof options.timeoutMs})`)
    }
    this.timeoutMs = options.timeoutMs
    this.#isOpen = options.isOpen
  }

  isPresent(): boolean {
    return this.#isOpen()
  }

  /** Requests waiting for a decision, oldest first. */
  pending(): PendingApproval[] {
    return [...this.#pending.values()].map((e) => e.view)
  }

  /** Calls `listener` whenever the pending list changes; returns its remover. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** A person's decision on request `id`; false when no such request is waiting (answered, timed out). */
  answer(id: string, decision: ConsoleDecision, message?: string): boolean {
    const entry = this.#pending.get(id)
    if (!entry) return false
    const note = message?.trim()
    entry.settle(decision === 'deny' ? { decision, by: 'console', ...(note ? { message: note } : {}) } : { decision, by: 'console' })
    return true
  }

  readonly approve: ApproveHandler = (requests, signal) =>
    new Promise<ApprovalAnswer[]>((resolve) => {
      const answers: ApprovalAnswer[] = new Array(requests.length)
      let left = requests.length
      const askedAt = Date.now()
      const entries = requests.map((request, i) => this.#enter(request, askedAt, (answer) => {
        if (answers[i] !== undefined) return
        answers[i] = answer
        if (--left === 0) finish()
      }))
      const leaveAll = (answer: (view: PendingApproval) => ApprovalAnswer): void => {
        for (const entry of entries) entry.settle(answer(entry.view))
      }
      const timer = setTimeout(() => leaveAll(() => ({ decision: 'cannot-ask', why: timedOutMessage(this.timeoutMs), by: 'console-timeout' })), this.timeoutMs)
      timer.unref()
      const onAbort = (): void => leaveAll(() => ({ decision: 'cannot-ask', why: 'it was interrupted while it waited for a decision in the console', by: 'console' }))
      const finish = (): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        resolve(answers)
      }
      this.#changed()
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })

  #enter(request: ApprovalRequest, askedAt: number, done: (answer: ApprovalAnswer) => void): Entry {
    const id = `a${++this.#seq}`
    const view: PendingApproval = {
      id,
      callId: request.callId,
      tool: request.tool,
      subject: request.subject,
      reason: request.reason,
      destructive: request.destructive,
      args: canonicalJson(abbreviate(request.args, ARGS_CHARS)).slice(0, 2 * ARGS_CHARS),
      askedAt,
      deadline: askedAt + this.timeoutMs,
    }
    const entry: Entry = {
      view,
      settle: (answer) => {
        if (!this.#pending.delete(id)) return
        done(answer)
        this.#changed()
      },
    }
    this.#pending.set(id, entry)
    return entry
  }

  #changed(): void {
    for (const listener of this.#listeners) listener()
  }
}

function timedOutMessage(timeoutMs: number): string {
  // Under a second in ms: rounded to tenths of a second, 40 ms would read "within 0 s".
  const limit = timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 100) / 10} s`
  return `no one answered in the console within ${limit}: permissions.console_approvals.timeout_ms`
}
