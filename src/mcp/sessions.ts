import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ApprovalAnswer, ApprovalRequest, ApproveHandler } from '../permissions/approvals.js'
import type { AskRequest } from '../types.js'

/** Tools that need a person: offered to a client only when it can answer elicitation requests. */
export const PERSON_TOOLS: ReadonlySet<string> = new Set(['clarify'])

/** True when the connected client declared the elicitation capability. */
export function canElicit(server: Server): boolean {
  return server.getClientCapabilities()?.elicitation !== undefined
}

/**
 * The MCP sessions of one `toolhost serve`: which session each running call came from (so `clarify`
 * and approvals ask that client), and the fan-out of `notifications/tools/list_changed`.
 *
 * @example
 * const sessions = new McpSessions()
 * const host = await createHost({ ask: (request, signal) => sessions.ask(request, signal) })
 */
export class McpSessions {
  readonly #servers = new Set<Server>()
  readonly #callOwners = new Map<string, Server>()

  add(server: Server): void {
    this.#servers.add(server)
  }

  remove(server: Server): void {
    this.#servers.delete(server)
    for (const [id, owner] of this.#callOwners) if (owner === server) this.#callOwners.delete(id)
  }

  get size(): number {
    return this.#servers.size
  }

  /** Records that call `id` came from `server`; returns a function that forgets it. */
  bindCall(id: string, server: Server): () => void {
    this.#callOwners.set(id, server)
    return () => {
      if (this.#callOwners.get(id) === server) this.#callOwners.delete(id)
    }
  }

  /** Sends tools/list_changed to every initialised session (a closed one is skipped). */
  async notifyToolsChanged(): Promise<void> {
    await Promise.all(
      [...this.#servers].map(async (server) => {
        if (!server.getClientCapabilities()) return // not initialised yet: it will list tools anyway
        try {
          await server.sendToolListChanged()
        } catch {
          // The session went away; its transport's close removes it.
        }
      }),
    )
  }

  /**
   * Asks the person behind the client that sent the call (MCP elicitation). Throws when that client
   * cannot be asked, so `clarify` fails and an approval is denied (fail closed).
   */
  async ask(request: AskRequest, signal: AbortSignal): Promise<string> {
    const server = this.#ownerOf(request.callId)
    if (!server || !canElicit(server)) {
      throw new Error('no one can be asked: the MCP client did not declare the elicitation capability')
    }
    // With choices: a picker, plus a free-text field (the person may answer in their own words).
    const requestedSchema: Record<string, unknown> = request.choices && request.choices.length > 0
      ? { type: 'object', properties: { choice: { type: 'string', title: 'Answer', enum: request.choices }, other: { type: 'string', title: 'Or answer in your own words' } } }
      : { type: 'object', properties: { answer: { type: 'string', title: 'Answer' } }, required: ['answer'] }
    const result = await server.elicitInput(
      { message: request.question, requestedSchema } as unknown as Parameters<Server['elicitInput']>[0],
      { signal },
    )
    if (result.action !== 'accept') throw new Error(`the person did not answer (${result.action})`)
    for (const field of ['answer', 'other', 'choice']) {
      const value = result.content?.[field]
      if (typeof value === 'string' && value.trim() !== '') return value
    }
    throw new Error('the person accepted without giving an answer')
  }

  /**
   * The host's approver over MCP: each request is asked of the client that sent the call, through
   * elicitation (allow once, allow for the session, or deny). A client that cannot be asked, an
   * error, or a decline denies (fail closed).
   */
  readonly approve: ApproveHandler = async (requests, signal) => {
    const answers: ApprovalAnswer[] = []
    for (const request of requests) answers.push(await this.#approveOne(request, signal))
    return answers
  }

  async #approveOne(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const server = this.#ownerOf(request.callId)
    if (!server || !canElicit(server)) {
      return { decision: 'cannot-ask', why: 'this MCP client cannot answer questions: it has no elicitation capability', by: 'mcp-no-elicitation' }
    }
    try {
      const result = await server.elicitInput(
        {
          message: `Allow ${request.tool}${request.destructive ? ' (destructive)' : ''} on ${request.subject}? ${request.reason}`,
          requestedSchema: {
            type: 'object',
            properties: { decision: { type: 'string', title: 'Decision', enum: ['allow-once', 'allow-session', 'deny'] } },
            required: ['decision'],
          },
        } as Parameters<Server['elicitInput']>[0],
        { signal },
      )
      const decision = result.content?.decision
      if (result.action === 'accept' && (decision === 'allow-once' || decision === 'allow-session')) return { decision, by: 'mcp-elicitation' }
      return { decision: 'deny', message: `the person did not approve ${request.tool} (${result.action === 'accept' ? 'denied' : result.action})`, by: 'mcp-elicitation' }
    } catch (error) {
      return { decision: 'deny', message: `asking for approval failed (${(error as Error).message})`, by: 'mcp-elicitation' }
    }
  }

  #ownerOf(callId: string | undefined): Server | undefined {
    const owner = callId === undefined ? undefined : this.#callOwners.get(callId)
    if (owner) return owner
    // A call id we do not know (a plugin asked without it): only a lone session is unambiguous.
    return this.#servers.size === 1 ? [...this.#servers][0] : undefined
  }
}
