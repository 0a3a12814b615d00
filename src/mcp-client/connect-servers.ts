import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client, StreamableHTTPClientTransport, type ElicitRequest, type ElicitResult, type StandardSchemaV1, type Tool as RemoteTool } from '@modelcontextprotocol/client'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { McpServerConfig } from '../config/types.js'
import { describeThrown, ToolhostError } from '../contract/errors.js'
import { shownName } from '../dispatch/admit/suggest.js'
import type { AskHandler, AskSchema } from '../contract/types.js'
import type { McpClientConnection, McpClientHost } from './client-host.js'
import { registerRemote, type RemoteServer } from './remote-tool.js'

const CONNECT_TIMEOUT_MS = 15_000

/**
 * Connects to every server under `mcp_servers` (at `createHost`) and registers each remote tool as
 * `mcp_<server>_<tool>` (see `localName`) with its input schema, validated locally. A tool is
 * available only while its server is connected. Concurrency and read-only/destructive behaviour come
 * from the server's annotations only when the server is marked `parallel_safe: true`; otherwise every
 * call is a barrier that counts as a write. The client declares `roots` (the workspace root as a
 * `file://` root) and, when the host can ask a person, `elicitation`: a server's questions go to the
 * host's asker. A server that cannot be reached is logged and listed among the connections this
 * resolves with (createHost keeps them as `host.services.mcpClients`); the host still starts.
 * Clients close (and their tools leave the registry) on `host.close()`.
 *
 * @example
 * // config.yaml: mcp_servers: { fx: { command: node, args: [server.mjs], parallel_safe: true } }
 * const host = await createHost({ config: 'config.yaml' }) // mcp_fx_* tools are registered
 */
export async function connectMcpServers(host: McpClientHost): Promise<McpClientConnection[]> {
  const entries = Object.entries(host.config.mcp_servers)
  for (const [name, config] of entries) assertServerConfig(name, config, host.configFile)
  return Promise.all(entries.map(([name, config]) => connectOne(host, name, config)))
}

function assertServerConfig(name: string, config: McpServerConfig, file: string | undefined): void {
  const where = `${file ?? 'config'}: mcp_servers.${name}`
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(name)) throw new ToolhostError('E_CONFIG_INVALID', `${where}: a server name must be 1-32 letters, digits, _ or -`)
  if ((config.command === undefined) === (config.url === undefined)) {
    throw new ToolhostError('E_CONFIG_INVALID', `${where}: give either \`command\` (a stdio server) or \`url\` (Streamable HTTP), not both or neither`)
  }
  if (config.url !== undefined) {
    try {
      const url = new URL(config.url)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)')
    } catch {
      throw new ToolhostError('E_CONFIG_INVALID', `${where}.url: expected an http(s) URL, got ${JSON.stringify(config.url)}`)
    }
  }
}

async function connectOne(host: McpClientHost, server: string, config: McpServerConfig): Promise<McpClientConnection> {
  const connection: McpClientConnection = { server, connected: false, tools: [], problems: [] }
  const source = `mcp:${server}`
  const ask = host.ask
  // Servers offer tools by what a client can do: toolhost answers roots (the workspace) and, when
  // its host can ask a person, form elicitation.
  let refreshTools: () => void = () => {}
  const client = new Client({ name: 'toolhost', version: '0.1.0' }, {
    capabilities: { roots: { listChanged: false }, ...(ask ? { elicitation: { form: {} } } : {}) },
    versionNegotiation: { mode: negotiationMode(config.protocol), probe: { timeoutMs: CONNECT_TIMEOUT_MS } },
    // A 2025 server's notification, or a 2026 server's listen stream: the tools are listed again.
    listChanged: { tools: { autoRefresh: false, onChanged: () => refreshTools() } },
  })
  const transport = config.url !== undefined
    ? new StreamableHTTPClientTransport(new URL(config.url))
    : new StdioClientTransport({ command: config.command!, args: config.args ?? [], env: { ...getDefaultEnvironment(), ...(config.env ?? {}) }, stderr: 'pipe' })
  if (transport instanceof StdioClientTransport) {
    transport.stderr?.on('data', (chunk: Buffer) => host.log.info(`mcp server ${server}: ${chunk.toString('utf8').trimEnd()}`))
  }
  const remote: RemoteServer = { server, client, config, isConnected: () => connection.connected, names: new Map(), problems: connection.problems, running: new Set() }
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: pathToFileURL(host.root).href, name: path.basename(host.root) || 'workspace' }] }))
  if (ask) client.setRequestHandler('elicitation/create', async (request, ctx) => forwardElicitation(ask, request, remote, ctx.mcpReq.signal))
  client.onclose = () => {
    connection.connected = false
  }
  const refresh = async (): Promise<void> => {
    // Within the connect time limit too: a server that answers initialize but never tools/list would
    // otherwise hold start-up for the SDK's default 60 s.
    const tools = await listRemoteTools(client, CONNECT_TIMEOUT_MS)
    host.registry.unregisterSource(source)
    remote.names.clear()
    for (const tool of tools) {
      // One tool the host cannot take (a schema nested past the stack, …) costs that tool, not the server's others.
      try {
        if (!isToolShaped(tool)) throw new Error('not a tool (it needs a name and an inputSchema object)')
        registerRemote(host, remote, tool, source)
      } catch (error) {
        const note = `tool ${shownName(String(tool.name))} not registered: ${describeThrown(error)}`
        remote.problems.push(note)
        host.log.error(`mcp server ${server}: ${note}`)
      }
    }
    connection.tools = [...remote.names.keys()]
  }
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS })
    connection.connected = true
    const protocol = client.getNegotiatedProtocolVersion()
    if (protocol !== undefined) connection.protocol = protocol
    refreshTools = () => {
      refresh().catch((error: unknown) => host.log.warn(`mcp server ${server}: refreshing its tools failed: ${describeThrown(error)}`))
    }
    await refresh()
  } catch (error) {
    connection.connected = false
    const why = connectFailure(error)
    connection.problems.push(`cannot connect: ${why}`)
    host.log.error(`mcp server ${server} (${host.configFile ?? 'config'}: mcp_servers.${server}): cannot connect: ${why}; its tools are not offered`)
    await client.close().catch(() => {})
    return connection
  }
  host.onClose(async () => {
    host.registry.unregisterSource(source)
    connection.connected = false
    await client.close().catch(() => {})
  })
  return connection
}

/**
 * The SDK's negotiation for `mcp_servers.<name>.protocol`: `auto` probes with `server/discover`
 * (a stdio server silent for the connect limit is taken for a 2025 server and gets `initialize`).
 */
function negotiationMode(protocol: McpServerConfig['protocol']): 'auto' | 'legacy' | { pin: string } {
  if (protocol === 'legacy') return 'legacy'
  if (protocol === '2026-07-28') return { pin: protocol }
  return 'auto'
}

/** A `tools/list` answer taken as it is (each tool is checked on its own). */
const AS_SENT: StandardSchemaV1<unknown, { tools?: unknown; nextCursor?: unknown }> = {
  '~standard': { version: 1, vendor: 'toolhost', validate: (value) => ({ value: (typeof value === 'object' && value !== null ? value : {}) as { tools?: unknown; nextCursor?: unknown } }) },
}
const MAX_TOOL_PAGES = 64

/**
 * Every page of the server's `tools/list`, its tools unchecked: the SDK's `listTools` parses the
 * whole answer at once, so one tool with a schema nested past the stack would cost all of them.
 */
async function listRemoteTools(client: Client, timeout: number): Promise<Array<Record<string, unknown>>> {
  const tools: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const answer = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, AS_SENT, { timeout })
    if (Array.isArray(answer.tools)) tools.push(...(answer.tools as unknown[]).filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null))
    if (typeof answer.nextCursor !== 'string' || answer.nextCursor === '') break
    cursor = answer.nextCursor
  }
  return tools
}

function isToolShaped(tool: Record<string, unknown>): tool is Record<string, unknown> & RemoteTool {
  const schema = tool.inputSchema
  return typeof tool.name === 'string' && typeof schema === 'object' && schema !== null && !Array.isArray(schema)
}

/**
 * A server's elicitation, asked of the host's person as `ctx.ask` would (its schema as it is). The
 * question is about the server's one running call when it has one (so an MCP client of toolhost
 * that made that call is the one asked). A refusal or failure declines; an abort cancels.
 */
async function forwardElicitation(ask: AskHandler, request: ElicitRequest, remote: RemoteServer, signal: AbortSignal): Promise<ElicitResult> {
  if (request.params.mode === 'url') return { action: 'decline' }
  const callId = remote.running.size === 1 ? [...remote.running][0] : undefined
  try {
    const answer = await ask({ question: request.params.message, schema: request.params.requestedSchema as AskSchema, ...(callId === undefined ? {} : { callId }) }, signal)
    if (typeof answer === 'string') return { action: 'decline' }
    return { action: 'accept', content: answer }
  } catch {
    return { action: signal.aborted ? 'cancel' : 'decline' }
  }
}

// fetch's own message is only "fetch failed", and the SDK's version probe wraps that again: the
// reason (ECONNREFUSED, a DNS miss) is at the end of the cause chain.
function connectFailure(error: unknown): string {
  const causes: string[] = []
  for (let at = error instanceof Error ? error.cause : undefined, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    if (at.message !== '') causes.push(at.message)
  }
  return causes.length === 0 ? describeThrown(error) : `${describeThrown(error)} (${causes.join(': ')})`
}
