/** An elicitation a call needs answered before it can go on (sent as an MCP input request). */
export interface InputQuestion {
  message: string
  requestedSchema: object
}

/** An elicitation response as a client sends it (`inputResponses[key]`). */
export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, unknown>
}

/**
 * One round of a `tools/call` from a 2026-07-28 client (a multi round-trip request). The call runs
 * with the answers the client gave so far; the questions it asks (approvals, `ctx.ask`) are numbered
 * in the order they are asked (`approve-1`, `ask-1`, `ask-2`, …), which is the same on every round
 * because the handler runs again from the start. A question whose answer is here is answered; the
 * first one that is not ends the round: the call is stopped, and the client gets `input_required`
 * with that question, to retry with the answer.
 *
 * @example
 * // round: the round of a tool call being answered (the server makes it, McpSessions.bindRound records it)
 * const key = round.nextKey('ask')
 * if (round.answerFor(key) === undefined) round.require(key, { message: 'Which branch?', requestedSchema: { type: 'object' } }) // stops the call
 */
export class InputRound {
  readonly canElicit: boolean
  readonly #answers: Record<string, unknown>
  readonly #onPending: () => void
  readonly #counts = new Map<string, number>()
  #pending: { key: string; question: InputQuestion } | undefined

  constructor(options: { answers: Record<string, unknown>; canElicit: boolean; onPending: () => void }) {
    this.#answers = options.answers
    this.canElicit = options.canElicit
    this.#onPending = options.onPending
  }

  /** The key of the next question of this kind (`approve`, `ask`). */
  nextKey(kind: string): string {
    const n = (this.#counts.get(kind) ?? 0) + 1
    this.#counts.set(kind, n)
    return `${kind}-${n}`
  }

  /** The client's answer to question `key` in an earlier round, when it is a readable one. */
  answerFor(key: string): ElicitAnswer | undefined {
    return readAnswer(this.#answers[key])
  }

  /** Question `key` has no answer: the round ends with it (the first such question wins). */
  require(key: string, question: InputQuestion): void {
    if (this.#pending !== undefined) return
    this.#pending = { key, question }
    this.#onPending()
  }

  /** The question that ended the round, if one did. */
  get pending(): { key: string; question: InputQuestion } | undefined {
    return this.#pending
  }
}

/** An `inputResponses` entry as an elicitation answer; undefined when it is not one. */
export function readAnswer(value: unknown): ElicitAnswer | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { action, content } = value as Record<string, unknown>
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return undefined
  const fields = typeof content === 'object' && content !== null && !Array.isArray(content) ? { content: content as Record<string, unknown> } : {}
  return { action, ...fields }
}
