import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { describeThrown } from '../contract/errors.js'
import type { ApprovalAnswer, ApprovalRequest, ApproveHandler } from '../permissions/approvals.js'
import type { RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { Host } from '../host/host.js'
import type { AskAnswer, AskRequest, ToolResult } from '../contract/types.js'

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
  readonly #callOwners = new Map<string, CallOwner>()
  readonly #watchedHosts = new WeakSet<Host>()

  add(server: Server): void {
    this.#servers.add(server)
  }

  remove(server: Server): void {
    this.#servers.delete(server)
    for (const [id, owner] of this.#callOwners) if (owner.server === server) this.#callOwners.delete(id)
  }

  get size(): number {
    return this.#servers.size
  }

  /** The connected clients as they named themselves, whether they can be asked, and their calls running now. */
  describe(): Array<{ name: string; version: string; elicitation: boolean; calls: number }> {
    return [...this.#servers].map((server) => {
      const info = server.getClientVersion()
      let calls = 0
      for (const owner of this.#callOwners.values()) if (owner.server === server) calls++
      return { name: info?.name ?? '(not initialised)', version: info?.version ?? '', elicitation: canElicit(server), calls }
    })
  }

  /**
   * Records that call `id` came from `server` in its request `requestId` (questions about the call
   * travel with that request, on its stream); returns a function that forgets it.
   */
  bindCall(id: string, server: Server, requestId?: RequestId): () => void {
    const owner: CallOwner = { server, requestId }
    this.#callOwners.set(id, owner)
    return () => {
      if (this.#callOwners.get(id) === owner) this.#callOwners.delete(id)
    }
  }

  /** Sends tools/list_changed to every initialised session (a closed one is skipped). */
  notifyToolsChanged(): Promise<void> {
    return this.#toEach((server) => server.sendToolListChanged())
  }

  /** Sends resources/list_changed to every initialised session. */
  notifyResourcesChanged(): Promise<void> {
    return this.#toEach((server) => server.sendResourceListChanged())
  }

  /** A call finished: a result saved to disk is a new resource. */
  noteResult(result: ToolResult): void {
    if (result.savedTo !== undefined) void this.notifyResourcesChanged()
  }

  /** Once per host: a process starting is a new resource (its log) for every session. */
  watchResourceList(host: Host): void {
    if (this.#watchedHosts.has(host) || host.services.processes === undefined) return
    this.#watchedHosts.add(host)
    const stop = host.services.processes.onEvent((event) => {
      if (event.type === 'spawned') void this.notifyResourcesChanged()
    })
    host.onClose(stop)
  }

  async #toEach(send: (server: Server) => Promise<void>): Promise<void> {
    await Promise.all(
      [...this.#servers].map(async (server) => {
        if (!server.getClientCapabilities()) return // not initialised yet: it will list anyway
        try {
          await send(server)
        } catch {
          // The session went away; its transport's close removes it.
        }
      }),
    )
  }

  /**
   * Asks the person behind the client that sent the call (MCP elicitation). A request with a
   * `schema` sends it as the requested schema, as it is, and resolves with the answer's fields;
   * a text question asks for one `answer` field (with `choices`: a picker plus free text). Throws
   * when that client cannot be asked or the person declines, so `clarify` fails and an approval is
   * denied (fail closed).
   */
  async ask(request: AskRequest, signal: AbortSignal): Promise<string | AskAnswer> {
    const owner = this.#ownerOf(request.callId)
    if (!owner || !canElicit(owner.server)) {
      throw new Error('no one can be asked: the MCP client did not declare the elicitation capability')
    }
    const requestedSchema: object = request.schema
      ?? (request.choices && request.choices.length > 0
        ? { type: 'object', properties: { choice: { type: 'string', title: 'Answer', enum: request.choices }, other: { type: 'string', title: 'Or answer in your own words' } } }
        : { type: 'object', properties: { answer: { type: 'string', title: 'Answer' } }, required: ['answer'] })
    const result = await owner.server.elicitInput(
      { message: request.question, requestedSchema } as unknown as Parameters<Server['elicitInput']>[0],
      { signal, ...(owner.requestId === undefined ? {} : { relatedRequestId: owner.requestId }) },
    )
    if (result.action !== 'accept') throw new Error(`the person did not answer (${result.action})`)
    if (request.schema) return (result.content ?? {}) as AskAnswer
    for (const field of ['answer', 'other', 'choice']) {
      const value = result.content?.[field]
      if (typeof value === 'string' && value.trim() !== '') return value
    }
    throw new Error('the person accepted without giving an answer')
  }

  /**
   * The host's approver over MCP: each request is asked of the client that sent the call, through
   * elicitation (allow once, allow for the session, or deny). A decline (or cancel) is the person's
   * refusal; a client that cannot be asked, or an elicitation that fails, is `cannot-ask`: denied
   * unless an open console answers instead (fail closed either way).
   */
  readonly approve: ApproveHandler = async (requests, signal) => {
    const answers: ApprovalAnswer[] = []
    for (const request of requests) answers.push(await this.#approveOne(request, signal))
    return answers
  }

  async #approveOne(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const owner = this.#ownerOf(request.callId)
    if (!owner || !canElicit(owner.server)) {
      // No one to ask here: a console that is open answers instead (PermissionGate.attachStandby).
      return { decision: 'cannot-ask', why: 'this MCP client cannot answer questions: it has no elicitation capability', by: 'mcp-no-elicitation' }
    }
    try {
      const result = await owner.server.elicitInput(
        {
          message: `Allow ${request.tool}${request.destructive ? ' (destructive)' : ''} on ${request.subject}? ${request.reason}`,
          requestedSchema: {
            type: 'object',
            properties: { decision: { type: 'string', title: 'Decision', enum: ['allow-once', 'allow-session', 'deny'] } },
            required: ['decision'],
          },
        } as Parameters<Server['elicitInput']>[0],
        { signal, ...(owner.requestId === undefined ? {} : { relatedRequestId: owner.requestId }) },
      )
      const decision = result.content?.decision
      if (result.action === 'accept' && (decision === 'allow-once' || decision === 'allow-session')) return { decision, by: 'mcp-elicitation' }
      return { decision: 'deny', message: `the person did not approve ${request.tool} (${result.action === 'accept' ? 'denied' : result.action})`, by: 'mcp-elicitation' }
    } catch (error) {
      // The question never reached a person, or their answer never came back: no one refused the
      // call. It stays denied unless a standby (an open console) answers instead.
      return { decision: 'cannot-ask', why: `asking this MCP client failed: ${describeThrown(error)}`, by: 'mcp-elicitation' }
    }
  }

  #ownerOf(callId: string | undefined): CallOwner | undefined {
    const owner = callId === undefined ? undefined : this.#callOwners.get(callId)
    if (owner) return owner
    // A call id we do not know (a plugin asked without it): only a lone session is unambiguous.
    return this.#servers.size === 1 ? { server: [...this.#servers][0]!, requestId: undefined } : undefined
  }
}

interface CallOwner {
  server: Server
  /** The `tools/call` request the call came in (absent: not known). */
  requestId: RequestId | undefined
}
