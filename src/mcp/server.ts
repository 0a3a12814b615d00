import { randomUUID } from 'node:crypto'
import { Server, type Transport } from '@modelcontextprotocol/server'
import { serveStdio as serveStdioEras } from '@modelcontextprotocol/server/stdio'
import type { Host } from '../host/host.js'
import type { McpLogLevel } from './call-events.js'
import { approvalLedgerFor, type ApprovalLedger } from './approval-ledger.js'
import { PROMPT_RESOURCE_CAPABILITIES, servePromptsAndResources } from './prompts-resources.js'
import { requestClient, type RequestClient } from './request-client.js'
import { RequestStateSeal, stateKeyFromEnv } from './request-state.js'
import { canElicit, McpSessions, PERSON_TOOLS } from './sessions.js'
import { BoundedStdioTransport } from './stdio-transport.js'
import { answerToolCall, type ToolCallContext } from './tool-call.js'

/** The name and version toolhost gives MCP clients. */
export const SERVER_INFO = { name: 'toolhost', version: '0.1.0' } as const

/** Log lines below this level are not sent to a 2025 session until it asks for them (`logging/setLevel`). */
const DEFAULT_LOG_LEVEL: McpLogLevel = 'info'

/**
 * How long a 2026 client may keep a `tools/list` answer (`ttlMs`, scope `private`: the list depends
 * on the client's capabilities) or a `resources/templates/list` one (scope `public`). Both change when
 * plugins reload or register (hot reload, an embedding registering later), so the hint is short: a
 * client not listening holds a stale list at most this long. Changes reach a listening client at once
 * through `subscriptions/listen`.
 */
export const LIST_TTL_MS = 10_000

/** Options of `createMcpServer`: what the instance serves and how it seals multi round-trip state. */
export interface McpServerOptions {
  /**
   * Seals `requestState` (one per serving process; every process behind one address needs the
   * same key and ledger). Default: the key from `TOOLHOST_MCP_STATE_KEY`, or a random one, and the
   * host's store as the ledger (`approvalLedgerFor`: in memory for `store: memory`), made once per
   * `McpSessions`.
   */
  seal?: RequestStateSeal
  /** Who the transport says the client is, when no authenticated client id comes with a request. */
  principal?: string
}

const seals = new WeakMap<McpSessions, RequestStateSeal>()

/**
 * The `RequestStateSeal` of `sessions` (made on first use): key from `TOOLHOST_MCP_STATE_KEY` or
 * random, consumed states in `ledger` (the first caller's: the host's store, `approvalLedgerFor`).
 */
export function sealFor(sessions: McpSessions, ledger: ApprovalLedger): RequestStateSeal {
  let seal = seals.get(sessions)
  if (!seal) {
    const key = stateKeyFromEnv()
    seals.set(sessions, (seal = new RequestStateSeal({ ledger, ...(key ? { key } : {}) })))
  }
  return seal
}

/**
 * One MCP server instance over `host`, for either protocol revision: `tools/list` renders the
 * registry (plugin JSON Schemas as-is, with annotations, sorted by name), and every `tools/call` goes
 * through `host.run`, so calls of all clients share one online scheduler (see `answerToolCall`).
 * Saved results and process logs are offered as resources, beside the plugins' prompts, resources
 * and completions (`servePromptsAndResources`). On 2026-07-28 the SDK answers
 * `server/discover`, checks the `_meta` envelope and the `Mcp-Method`/`Mcp-Name` headers, stamps
 * `resultType` and the cache hints, and serves `subscriptions/listen`. The instance registers itself
 * nowhere: whoever serves it adds it to `sessions` when it is a connection (not one HTTP request).
 *
 * @example
 * const server = createMcpServer(host, sessions)
 * await server.connect(transport) // a 2025 session
 */
export function createMcpServer(host: Host, sessions: McpSessions, options: McpServerOptions = {}): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {}, ...PROMPT_RESOURCE_CAPABILITIES },
    instructions: 'toolhost: workspace tools. Tool failures come back as results with isError and a code (E_…) saying what to fix.',
    cacheHints: {
      'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
      'resources/templates/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
    },
  })
  servePromptsAndResources(server, host, sessions)

  // A 2025 session's level (set by logging/setLevel); a 2026 request names its own in `_meta`.
  let sessionLevel = DEFAULT_LOG_LEVEL
  server.setRequestHandler('logging/setLevel', async (request) => {
    sessionLevel = request.params.level
    return {}
  })

  const listedTools = async (client: RequestClient) => {
    const tools = (await host.definitions('mcp')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return canElicit(client.capabilities) ? tools : tools.filter((t) => !PERSON_TOOLS.has(t.name))
  }
  server.setRequestHandler('tools/list', async (_request, ctx) => ({ tools: await listedTools(requestClient(server, ctx, sessionLevel)) }))

  const tc: ToolCallContext = {
    host,
    sessions,
    seal: options.seal ?? sealFor(sessions, approvalLedgerFor(host.services.store)),
    principal: options.principal ?? 'local',
    listedNames: async (client) => (await listedTools(client)).map((t) => t.name),
  }
  server.setRequestHandler('tools/call', (request, ctx) => answerToolCall(tc, server, request, ctx, requestClient(server, ctx, sessionLevel)))
  return server
}

/**
 * Sends `notifications/tools/list_changed` to every session and 2026 listener after the registry
 * changes (plugins added, reloaded or removed; MCP client tools joining), and
 * `notifications/prompts/list_changed` or `notifications/resources/list_changed` when plugin
 * prompts or resources change; a 2026 client hears them through `subscriptions/listen`. A burst
 * is coalesced into one notification per list. Returns a function that stops it.
 *
 * @example
 * const stop = notifyOnToolChanges(host, sessions)
 * host.onClose(stop)
 */
export function notifyOnToolChanges(host: Host, sessions: McpSessions, debounceMs = 50): () => void {
  let timer: NodeJS.Timeout | undefined
  const pending = { tools: false, prompts: false, resources: false }
  const schedule = (): void => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      const { tools, prompts, resources } = pending
      pending.tools = pending.prompts = pending.resources = false
      if (tools) void sessions.notifyToolsChanged()
      if (prompts) void sessions.notifyPromptsChanged()
      if (resources) void sessions.notifyResourcesChanged()
    }, debounceMs)
  }
  const stopTools = host.registry.onChange(() => {
    pending.tools = true
    schedule()
  })
  const stopCatalogue = host.registry.promptsAndResources.onListChanged((change) => {
    if (!change.prompts && !change.resources) return
    pending.prompts ||= change.prompts
    pending.resources ||= change.resources
    schedule()
  })
  return () => {
    clearTimeout(timer)
    stopTools()
    stopCatalogue()
  }
}

/**
 * Serves `host` over stdio until stdin closes, to a client of either revision (see
 * `serveConnection`). Resolves with `closed` (stdin ended or `close` was called) and `close`. A
 * message over `serve.max_message_bytes` is answered with an error; the connection goes on.
 *
 * @example
 * const served = await serveStdio(host, sessions)
 * await served.closed
 */
export async function serveStdio(
  host: Host, sessions: McpSessions, io: { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {},
): Promise<{ closed: Promise<void>; close: () => Promise<void> }> {
  const transport = new BoundedStdioTransport({ maxMessageBytes: host.config.serve.max_message_bytes, log: host.log, ...io })
  const close = serveConnection(host, sessions, transport)
  return { closed: transport.closed, close }
}

/**
 * Serves `host` on one stdio-shaped connection (`transport`, started here) to a client of either
 * revision: the first message decides (an `initialize` opens a 2025 session; a `server/discover`
 * or a request carrying the 2026-07-28 envelope is served statelessly, each request on its own).
 * One server instance is pinned to the connection and listed in `sessions`. Returns the function
 * that closes the connection.
 *
 * @example
 * import { InMemoryTransport } from '@modelcontextprotocol/server'
 *
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
 * const close = serveConnection(host, sessions, serverSide)
 */
export function serveConnection(host: Host, sessions: McpSessions, transport: Transport): () => Promise<void> {
  const principal = `stdio:${randomUUID()}`
  const handle = serveStdioEras(({ era }) => {
    const server = createMcpServer(host, sessions, { principal })
    // One connection, one server: the instance the opening message pins (a discarded probe is replaced).
    sessions.add(server, { era, slot: principal })
    const previous = server.onclose
    server.onclose = () => {
      previous?.()
      sessions.remove(server)
    }
    return server
  }, { transport, onerror: (error) => host.log.debug(`MCP stdio: ${error.message}`) })
  return () => handle.close()
}
