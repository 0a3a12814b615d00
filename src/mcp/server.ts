import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { toMcpCallResult } from '../adapters/mcp-definitions.js'
import type { Host } from '../host/host.js'
import { isLevelShown, listenToCall, mcpLevelOf, progressCounter, type McpLogLevel } from './call-events.js'
import { serveResources } from './resources.js'
import { isOpenTelemetryRegistered } from '../otel/detect.js'
import { shownName, suggestNames } from '../dispatch/admit/suggest.js'
import { canElicit, McpSessions, PERSON_TOOLS } from './sessions.js'
import { BoundedStdioTransport } from './stdio-transport.js'

/** The name and version toolhost gives MCP clients. */
export const SERVER_INFO = { name: 'toolhost', version: '0.1.0' } as const

/** Log lines below this level are not sent until the client asks for them (`logging/setLevel`). */
const DEFAULT_LOG_LEVEL: McpLogLevel = 'info'

let callSeq = 0

/**
 * One MCP session over `host`: `tools/list` renders the registry (plugin JSON Schemas as-is, with
 * annotations), and every `tools/call` goes through `host.run`, so calls of all sessions share one
 * online scheduler (conflicting calls never overlap). A cancelled request aborts its call; a call
 * with a progress token gets `notifications/progress` from `ctx.progress`; the handler's `ctx.log`
 * lines reach the client as `notifications/message` (from `info` up, or the level it set with
 * `logging/setLevel`); a failed call is a result with `isError`; an unknown tool is an
 * `InvalidParams` protocol error. Saved results and process logs are offered as resources.
 *
 * @example
 * const server = createMcpServer(host, sessions)
 * await server.connect(new StdioServerTransport())
 */
export function createMcpServer(host: Host, sessions: McpSessions): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {}, resources: { subscribe: true, listChanged: true } },
    instructions: 'toolhost: workspace tools. Tool failures come back as results with isError and a code (E_…) saying what to fix.',
  })
  sessions.add(server)
  server.onclose = () => sessions.remove(server)
  serveResources(server, host, sessions)

  // One server per session, so the level is this closure's (the SDK's own handler is replaced).
  let logLevel = DEFAULT_LOG_LEVEL
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    logLevel = request.params.level
    return {}
  })

  const listedTools = async () => {
    const tools = await host.definitions('mcp')
    return canElicit(server) ? tools : tools.filter((t) => !PERSON_TOOLS.has(t.name))
  }
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listedTools() }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params
    if (!host.registry.has(name)) {
      // A protocol error, as MCP asks; still worded like E_TOOL_UNKNOWN: the closest names this client is offered.
      const close = suggestNames(name, (await listedTools()).map((t) => t.name))
      const hint = close.length > 0 ? ` Did you mean ${close.map((n) => `"${n}"`).join(' or ')}?` : ' Call one of the tools tools/list gives.'
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${shownName(name)}.${hint}`)
    }
    if (PERSON_TOOLS.has(name) && !canElicit(server)) {
      return toMcpCallResult({
        id: String(extra.requestId), name, ok: false, content: '',
        error: { code: 'E_TOOL_UNAVAILABLE', message: `${name} is not available: this MCP client cannot ask the person (no elicitation capability); decide without asking` },
      })
    }
    const id = `mcp-${++callSeq}`
    const unbind = sessions.bindCall(id, server, extra.requestId)
    const token = extra._meta?.progressToken
    const nextProgress = progressCounter()
    const send = (notification: Parameters<typeof extra.sendNotification>[0]): void => void extra.sendNotification(notification).catch(() => {})
    const stopListening = listenToCall(host, id, (event) => {
      if (event.type === 'progress') {
        if (token === undefined) return
        const progress = nextProgress(event.progress)
        send({ method: 'notifications/progress', params: { progressToken: token, progress, ...(event.total === undefined ? {} : { total: event.total }), message: event.message } })
        return
      }
      const level = mcpLevelOf(event.level)
      if (!isLevelShown(level, logLevel)) return
      send({ method: 'notifications/message', params: { level, logger: name, data: event.fields === undefined ? event.message : { message: event.message, ...event.fields } } })
    })
    try {
      const run = () => host.run([{ id, name, arguments: request.params.arguments ?? {} }], { signal: extra.signal })
      // A client's trace context (W3C `traceparent` in `_meta`) parents the call's span; the
      // OpenTelemetry API is loaded only when a client sends one and an SDK is registered.
      const meta = request.params._meta
      const [result] = typeof meta?.traceparent === 'string' && isOpenTelemetryRegistered()
        ? await (await import('../otel/remote-parent.js')).withRemoteParent(meta, run)
        : await run()
      sessions.noteResult(result!)
      return toMcpCallResult(result!)
    } finally {
      stopListening()
      unbind()
    }
  })
  return server
}

/**
 * Sends `notifications/tools/list_changed` to every session after the registry changes (plugins
 * added, reloaded or removed; MCP client tools joining), coalescing a burst into one notification.
 * Returns a function that stops it.
 *
 * @example
 * const stop = notifyOnToolChanges(host, sessions)
 * host.onClose(stop)
 */
export function notifyOnToolChanges(host: Host, sessions: McpSessions, debounceMs = 50): () => void {
  let timer: NodeJS.Timeout | undefined
  const stop = host.registry.onChange(() => {
    clearTimeout(timer)
    timer = setTimeout(() => void sessions.notifyToolsChanged(), debounceMs)
  })
  return () => {
    clearTimeout(timer)
    stop()
  }
}

/**
 * Serves `host` over stdio until stdin closes. Resolves with a function that closes the session. A
 * message over `serve.max_message_bytes` is answered with an error; the session goes on.
 *
 * @example
 * const close = await serveStdio(host, sessions)
 */
export async function serveStdio(host: Host, sessions: McpSessions): Promise<{ closed: Promise<void>; close: () => Promise<void> }> {
  const server = createMcpServer(host, sessions)
  const transport = new BoundedStdioTransport({ maxMessageBytes: host.config.serve.max_message_bytes, log: host.log })
  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve))
  const previous = server.onclose
  server.onclose = () => {
    previous?.()
    resolveClosed()
  }
  process.stdin.once('end', () => void server.close())
  await server.connect(transport)
  return { closed, close: () => server.close() }
}
