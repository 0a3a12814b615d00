import type { ClientCapabilities, RequestId, Server, ServerNotifier } from '@modelcontextprotocol/server'
import type { ApprovalAnswer, ApproveHandler } from '../permissions/approvals.js'
import type { Host } from '../host/host.js'
import type { AskAnswer, AskRequest, ToolResult } from '../contract/types.js'
import { approveByOwner, askOwner, type CallOwner } from './client-questions.js'
import type { InputRound } from './input-round.js'
import { processLogUri, watchProcessLog } from './log-watch.js'

/** Tools that need a person: offered to a client only when it can answer elicitation requests. */
export const PERSON_TOOLS: ReadonlySet<string> = new Set(['clarify'])

/** True when the client declared the elicitation capability (per request on 2026, per session on 2025). */
export function canElicit(capabilities: ClientCapabilities | undefined): boolean {
  return capabilities?.elicitation !== undefined
}

/** A client as the console lists it. */
export interface McpClientSummary {
  name: string
  version: string
  elicitation: boolean
  calls: number
  /** Tools this client is never offered (those that need a person, when it cannot be asked). */
  withheld: string[]
}

/** The tools a client is not offered: those that need a person, unless it can be asked. */
function withheldFrom(elicitation: boolean): string[] {
  return elicitation ? [] : [...PERSON_TOOLS]
}

/** How long a 2026 client (no session) stays in the console's list after its last request. */
const RECENT_CLIENT_MS = 10 * 60_000
const MAX_RECENT_CLIENTS = 64

/**
 * The MCP clients of one `toolhost serve`: which client each running call came from (so `clarify`
 * and approvals ask that client), and the fan-out of list-changed notifications — to 2025 sessions
 * (`notifications/…/list_changed`) and to 2026 listeners (`subscriptions/listen`, through the HTTP
 * handler's notifier or the stdio connection's server).
 *
 * @example
 * const sessions = new McpSessions()
 * const host = await createHost({ ask: (request, signal) => sessions.ask(request, signal), approve: sessions.approve })
 */
export class McpSessions {
  // Connected servers: 2025 sessions, and the one stdio connection of either era.
  readonly #servers = new Map<Server, { era: 'legacy' | 'modern'; slot: string | undefined }>()
  readonly #notifiers = new Set<ServerNotifier>()
  readonly #callOwners = new Map<string, CallOwner & { client: string }>()
  readonly #recent = new Map<string, { name: string; version: string; elicitation: boolean; seen: number }>()
  readonly #watchedHosts = new WeakSet<Host>()

  /**
   * A connected server. `slot` names a place that holds one server at a time (the stdio
   * connection): a new server in it replaces the one before (a discarded probe instance).
   */
  add(server: Server, options: { era?: 'legacy' | 'modern'; slot?: string } = {}): void {
    if (options.slot !== undefined) {
      for (const [other, entry] of this.#servers) if (entry.slot === options.slot && other !== server) this.remove(other)
    }
    this.#servers.set(server, { era: options.era ?? 'legacy', slot: options.slot })
  }

  remove(server: Server): void {
    this.#servers.delete(server)
    for (const [id, owner] of this.#callOwners) if (owner.era === 'legacy' && owner.server === server) this.#callOwners.delete(id)
  }

  /** A 2026 publisher (the HTTP handler's `notify`); returns the function that removes it. */
  addNotifier(notifier: ServerNotifier): () => void {
    this.#notifiers.add(notifier)
    return () => this.#notifiers.delete(notifier)
  }

  get size(): number {
    return this.#servers.size
  }

  /** A 2026 client made a request (it has no session): the console lists it for a while. */
  noteClient(info: { name: string; version: string } | undefined, elicitation: boolean): void {
    if (info === undefined) return
    const key = `${info.name}@${info.version}`
    this.#recent.delete(key)
    this.#recent.set(key, { name: info.name, version: info.version, elicitation, seen: Date.now() })
    if (this.#recent.size > MAX_RECENT_CLIENTS) this.#recent.delete(this.#recent.keys().next().value!)
  }

  /** The clients as they named themselves, whether they can be asked, and their calls running now. */
  describe(): McpClientSummary[] {
    const calls = new Map<string, number>()
    for (const owner of this.#callOwners.values()) calls.set(owner.client, (calls.get(owner.client) ?? 0) + 1)
    const sessions = [...this.#servers].filter(([, entry]) => entry.era === 'legacy').map(([server]) => {
      const info = server.getClientVersion()
      const key = sessionKey(server)
      const elicitation = canElicit(server.getClientCapabilities())
      return { name: info?.name ?? '(not initialised)', version: info?.version ?? '', elicitation, calls: calls.get(key) ?? 0, withheld: withheldFrom(elicitation) }
    })
    const cutoff = Date.now() - RECENT_CLIENT_MS
    const recent = [...this.#recent].filter(([, c]) => c.seen >= cutoff).map(([key, c]) => ({ name: c.name, version: c.version, elicitation: c.elicitation, calls: calls.get(key) ?? 0, withheld: withheldFrom(c.elicitation) }))
    return [...sessions, ...recent]
  }

  /**
   * Records that call `id` came from a 2025 session `server` in its request `requestId` (questions
   * about the call travel with that request, on its stream); returns a function that forgets it.
   */
  bindCall(id: string, server: Server, requestId?: RequestId): () => void {
    return this.#bind(id, { era: 'legacy', server, requestId, canElicit: canElicit(server.getClientCapabilities()), client: sessionKey(server) })
  }

  /** Records that call `id` is a round of a 2026 request: its questions end the round (`InputRound`). */
  bindRound(id: string, round: InputRound, client: { name: string; version: string } | undefined): () => void {
    return this.#bind(id, { era: 'modern', round, canElicit: round.canElicit, client: client ? `${client.name}@${client.version}` : '' })
  }

  #bind(id: string, owner: CallOwner & { client: string }): () => void {
    this.#callOwners.set(id, owner)
    return () => {
      if (this.#callOwners.get(id) === owner) this.#callOwners.delete(id)
    }
  }

  /** Sends tools/list_changed to every initialised session and 2026 listener. */
  notifyToolsChanged(): Promise<void> {
    for (const notifier of this.#notifiers) notifier.toolsChanged()
    return this.#toEach((server) => server.sendToolListChanged())
  }

  /** Sends prompts/list_changed to every initialised session and 2026 listener. */
  notifyPromptsChanged(): Promise<void> {
    for (const notifier of this.#notifiers) notifier.promptsChanged()
    return this.#toEach((server) => server.sendPromptListChanged())
  }

  /** Sends resources/list_changed to every initialised session and 2026 listener. */
  notifyResourcesChanged(): Promise<void> {
    for (const notifier of this.#notifiers) notifier.resourcesChanged()
    return this.#toEach((server) => server.sendResourceListChanged())
  }

  /** Sends resources/updated for `uri` to 2026 listeners that subscribed to it (2025 sessions subscribe per session). */
  notifyResourceUpdated(uri: string): void {
    for (const notifier of this.#notifiers) notifier.resourceUpdated(uri)
    for (const [server, entry] of this.#servers) {
      if (entry.era === 'modern') void server.sendResourceUpdated({ uri }).catch(() => {})
    }
  }

  /** A call finished: a result saved to disk is a new resource. */
  noteResult(result: ToolResult): void {
    if (result.savedTo !== undefined) void this.notifyResourcesChanged()
  }

  /**
   * Once per host: a process starting is a new resource (its log) for every session; while it runs,
   * its output growing is published to 2026 listeners (the SDK sends it only to those that
   * subscribed to its URI).
   */
  watchResourceList(host: Host): void {
    const processes = host.services.processes
    if (this.#watchedHosts.has(host) || processes === undefined) return
    this.#watchedHosts.add(host)
    let closed = false
    const stop = processes.onEvent((event) => {
      if (event.type !== 'spawned') return
      void this.notifyResourcesChanged()
      const uri = processLogUri(event.process.id)
      // Stops by itself when the process ends (or the registry no longer knows it).
      watchProcessLog(processes, event.process.id, () => {
        if (!closed) this.notifyResourceUpdated(uri)
      })
    })
    host.onClose(() => {
      closed = true
      stop()
    })
  }

  async #toEach(send: (server: Server) => Promise<void>): Promise<void> {
    await Promise.all(
      [...this.#servers].map(async ([server, entry]) => {
        if (entry.era === 'legacy' && !server.getClientCapabilities()) return // not initialised yet: it will list anyway
        try {
          await send(server)
        } catch {
          // The session went away; its transport's close removes it.
        }
      }),
    )
  }

  /**
   * Asks the person behind the client that sent the call: `elicitation/create` for a 2025 session,
   * an input request (`input_required`) for a 2026 client. A request with a `schema` sends it as the
   * requested schema, as it is, and resolves with the answer's fields; a text question asks for one
   * `answer` field (with `choices`: a picker plus free text). Throws when that client cannot be
   * asked or the person declines, so `clarify` fails and an approval is denied (fail closed).
   */
  ask(request: AskRequest, signal: AbortSignal): Promise<string | AskAnswer> {
    const owner = this.#ownerOf(request.callId)
    if (!owner) return Promise.reject(new Error('no one can be asked: the MCP client did not declare the elicitation capability'))
    return askOwner(owner, request, signal)
  }

  /**
   * The host's approver over MCP: each request is asked of the client that sent the call (allow
   * once, allow for the session, or deny with a reason). A decline (or cancel) is the person's
   * refusal; a client that cannot be asked, or an elicitation that fails, is `cannot-ask`: denied
   * unless an open console answers instead (fail closed either way).
   */
  readonly approve: ApproveHandler = async (requests, signal) => {
    const answers: ApprovalAnswer[] = []
    for (const request of requests) {
      const owner = this.#ownerOf(request.callId)
      answers.push(owner
        ? await approveByOwner(owner, request, signal)
        : { decision: 'cannot-ask', why: 'this MCP client cannot answer questions: it has no elicitation capability', by: 'mcp-no-elicitation' })
    }
    return answers
  }

  #ownerOf(callId: string | undefined): CallOwner | undefined {
    const owner = callId === undefined ? undefined : this.#callOwners.get(callId)
    if (owner) return owner
    // A call id we do not know (a plugin asked without it): only a lone 2025 session is
    // unambiguous. A 2026 client can only be asked within a request, so this fails closed.
    const sessions = [...this.#servers].filter(([, entry]) => entry.era === 'legacy')
    if (sessions.length !== 1 || this.#servers.size !== 1) return undefined
    const server = sessions[0]![0]
    return { era: 'legacy', server, requestId: undefined, canElicit: canElicit(server.getClientCapabilities()) }
  }
}

const sessionKeys = new WeakMap<Server, string>()
let sessionSeq = 0

function sessionKey(server: Server): string {
  let key = sessionKeys.get(server)
  if (key === undefined) sessionKeys.set(server, (key = `session-${++sessionSeq}`))
  return key
}
