import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { toMcpCallResult } from '../adapters/mcp-definitions.js'
import type { Host } from '../host.js'
import { shownName } from '../dispatch/suggest.js'
import { canElicit, McpSessions, PERSON_TOOLS } from './sessions.js'
import { BoundedStdioTransport } from './stdio-transport.js'

/** The name and version toolhost gives MCP clients. */
export const SERVER_INFO = { name: 'toolhost', version: '0.1.0' } as const

let callSeq = 0

/**
 * One MCP session over `host`: `tools/list` renders the registry (plugin JSON Schemas as-is, with
 * annotations), and every `tools/call` goes through `host.run`, so calls of all sessions share one
 * online scheduler (conflicting calls never overlap). A cancelled request aborts its call; a call
 * with a progress token gets `notifications/progress` from `ctx.progress`; a failed call is a result
 * with `isError`; an unknown tool is an `InvalidParams` protocol error.
 *
 * @example
 * const server = createMcpServer(host, sessions)
 * await server.connect(new StdioServerTransport())
 */
export function createMcpServer(host: Host, sessions: McpSessions): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions: 'toolhost: workspace tools. Tool failures come back as results with isError and a code (E_…) saying what to fix.',
  })
  sessions.add(server)
  server.onclose = () => sessions.remove(server)

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await host.definitions('mcp')
    return { tools: canElicit(server) ? tools : tools.filter((t) => !PERSON_TOOLS.has(t.name)) }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params
    if (!host.registry.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${shownName(name)}`)
    if (PERSON_TOOLS.has(name) && !canElicit(server)) {
      return toMcpCallResult({
        id: String(extra.requestId), name, ok: false, content: '',
        error: { code: 'E_TOOL_UNAVAILABLE', message: `${name} is not available: this MCP client cannot ask the person (no elicitation capability); decide without asking` },
      })
    }
    const id = `mcp-${++callSeq}`
    const unbind = sessions.bindCall(id, server)
    const token = extra._meta?.progressToken
    let step = 0
    const stopProgress = token === undefined ? () => {} : host.onEvent((event) => {
      if (event.type !== 'progress' || event.id !== id) return
      // MCP progress must increase: a tool that reports only messages gets a counter.
      step = event.progress !== undefined && event.progress > step ? event.progress : step + 1
      void extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: step, ...(event.total === undefined ? {} : { total: event.total }), message: event.message },
      }).catch(() => {})
    })
    try {
      const [result] = await host.run([{ id, name, arguments: request.params.arguments ?? {} }], { signal: extra.signal })
      return toMcpCallResult(result!)
    } finally {
      stopProgress()
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
