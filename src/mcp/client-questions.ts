import type { ElicitRequestFormParams, RequestId, Server } from '@modelcontextprotocol/server'
import { describeThrown } from '../contract/errors.js'
import type { AskAnswer, AskRequest } from '../contract/types.js'
import type { ApprovalAnswer, ApprovalRequest } from '../permissions/approvals.js'
import type { ElicitAnswer, InputQuestion, InputRound } from './input-round.js'

/**
 * Who a running call came from, so its questions go to that client: a 2025 session (asked with
 * `elicitation/create` on the call's own stream) or a 2026-07-28 request (asked by ending the round
 * with `input_required`; see `InputRound`).
 */
export type CallOwner =
  | { era: 'legacy'; server: Server; requestId: RequestId | undefined; canElicit: boolean }
  | { era: 'modern'; round: InputRound; canElicit: boolean }

/** The answer a call waits for from a 2026 client: what `ask` throws and an approval is denied with meanwhile. */
export const INPUT_REQUIRED_NOTE = 'waiting for the MCP client to answer (input_required); the call runs again with the answer'

/** The approval question (allow once, allow for the session, deny with a reason). */
export function approvalQuestion(request: ApprovalRequest): InputQuestion {
  return {
    message: `Allow ${request.tool}${request.destructive ? ' (destructive)' : ''} on ${request.subject}? ${request.reason}`,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: { type: 'string', title: 'Decision', enum: ['allow-once', 'allow-session', 'deny'] },
        reason: { type: 'string', title: 'Reason (when denying)' },
      },
      required: ['decision'],
    },
  }
}

/** The question `ctx.ask` sends: its schema as it is, or one `answer` field (with `choices`: a picker plus free text). */
export function askQuestion(request: AskRequest): InputQuestion {
  const requestedSchema: object = request.schema
    ?? (request.choices && request.choices.length > 0
      ? { type: 'object', properties: { choice: { type: 'string', title: 'Answer', enum: request.choices }, other: { type: 'string', title: 'Or answer in your own words' } } }
      : { type: 'object', properties: { answer: { type: 'string', title: 'Answer' } }, required: ['answer'] })
  return { message: request.question, requestedSchema }
}

/** An approval answer from an elicitation response. */
export function approvalFrom(request: ApprovalRequest, answer: ElicitAnswer, by: string): ApprovalAnswer {
  const decision = answer.content?.decision
  if (answer.action === 'accept' && (decision === 'allow-once' || decision === 'allow-session')) return { decision, by }
  const reason = answer.content?.reason
  const why = answer.action === 'accept' ? (typeof reason === 'string' && reason.trim() !== '' ? `denied: ${reason.trim().slice(0, 500)}` : 'denied') : answer.action
  return { decision: 'deny', message: `the person did not approve ${request.tool} (${why})`, by }
}

/** `ctx.ask`'s answer from an elicitation response; throws when the person gave none. */
export function askAnswerFrom(request: AskRequest, answer: ElicitAnswer): string | AskAnswer {
  if (answer.action !== 'accept') throw new Error(`the person did not answer (${answer.action})`)
  if (request.schema) return (answer.content ?? {}) as AskAnswer
  for (const field of ['answer', 'other', 'choice']) {
    const value = answer.content?.[field]
    if (typeof value === 'string' && value.trim() !== '') return value
  }
  throw new Error('the person accepted without giving an answer')
}

/**
 * Asks the owner of a call (`ctx.ask`, `clarify`). A 2026 client's answer comes from an earlier
 * round; without one the round ends with the question, and this throws (the call is stopped and
 * runs again on the retry). Throws when the client cannot be asked or the person declines.
 */
export async function askOwner(owner: CallOwner, request: AskRequest, signal: AbortSignal): Promise<string | AskAnswer> {
  if (!owner.canElicit) throw new Error('no one can be asked: the MCP client did not declare the elicitation capability')
  const question = askQuestion(request)
  if (owner.era === 'modern') {
    const key = owner.round.nextKey('ask')
    const answer = owner.round.answerFor(key)
    if (answer === undefined) {
      owner.round.require(key, question)
      throw new Error(INPUT_REQUIRED_NOTE)
    }
    return askAnswerFrom(request, answer)
  }
  const result = await owner.server.elicitInput(
    question as ElicitRequestFormParams,
    { signal, ...(owner.requestId === undefined ? {} : { relatedRequestId: owner.requestId }) },
  )
  return askAnswerFrom(request, { action: result.action, ...(result.content ? { content: result.content as Record<string, unknown> } : {}) })
}

/**
 * Asks the owner of a call to approve it. A decline is the person's refusal; a client that cannot
 * be asked, or an elicitation that fails, is `cannot-ask` (a standby such as an open console is
 * asked instead; otherwise the call is denied). A 2026 client without an answer yet ends the round.
 */
export async function approveByOwner(owner: CallOwner, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  if (!owner.canElicit) {
    return { decision: 'cannot-ask', why: 'this MCP client cannot answer questions: it has no elicitation capability', by: 'mcp-no-elicitation' }
  }
  if (owner.era === 'modern') {
    const key = owner.round.nextKey('approve')
    const answer = owner.round.answerFor(key)
    if (answer === undefined) {
      owner.round.require(key, approvalQuestion(request))
      return { decision: 'pending', note: INPUT_REQUIRED_NOTE, by: 'mcp-input-required' }
    }
    return approvalFrom(request, answer, 'mcp-input-required')
  }
  try {
    const result = await owner.server.elicitInput(
      approvalQuestion(request) as ElicitRequestFormParams,
      { signal, ...(owner.requestId === undefined ? {} : { relatedRequestId: owner.requestId }) },
    )
    return approvalFrom(request, { action: result.action, ...(result.content ? { content: result.content as Record<string, unknown> } : {}) }, 'mcp-elicitation')
  } catch (error) {
    // The question never reached a person, or their answer never came back: no one refused the
    // call. It stays denied unless a standby (an open console) answers instead.
    return { decision: 'cannot-ask', why: `asking this MCP client failed: ${describeThrown(error)}`, by: 'mcp-elicitation' }
  }
}
