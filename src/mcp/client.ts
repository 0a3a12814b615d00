import { createHash } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema, type Tool as RemoteTool } from '@modelcontextprotocol/sdk/types.js'
import type { McpServerConfig } from '../config/types.js'
import { defineTool, TOOL_NAME_PATTERN } from '../define-tool.js'
import { describeThrown, isToolhostError, ToolhostError } from '../errors.js'
import type { Host } from '../host.js'
import { remoteResultText } from './remote-content.js'

/** One configured MCP server as the host sees it. */
export interface McpClientConnection {
  /** The key under `mcp_servers`. */
  server: string
  connected: boolean
  /** Registry names of its tools (`mcp_<server>_<tool>`). */
  tools: string[]
  /** Why it is not connected, or a tool that could not be registered as-is. */
  problems: string[]
}

declare module '../types.js' {
  interface HostServices {
    /** The `mcp_servers` connections (MCP client). */
    mcpClients?: McpClientConnection[]
  }
}

const CONNECT_TIMEOUT_MS = 15_000

/**
 * Connects to every server under `mcp_servers` (at `createHost`) and registers each remote tool as
 * `mcp_<server>_<tool>` with its input schema. A tool is available only while its server is
 * connected. Concurrency and read-only/destructive behaviour come from the server's annotations only
 * when the server is marked `parallel_safe: true`; otherwise every call is a barrier that counts as
 * a write. A server that cannot be reached is logged and listed in `host.services.mcpClients`; the
 * host still starts. Clients close (and their tools leave the registry) on `host.close()`.
 *
 * @example
 * // config.yaml: mcp_servers: { fx: { command: node, args: [server.mjs], parallel_safe: true } }
 * const host = await createHost({ config: 'config.yaml' }) // mcp_fx_* tools are registered
 */
export async function connectMcpServers(host: Host): Promise<McpClientConnection[]> {
  const entries = Object.entries(host.config.mcp_servers)
  for (const [name, config] of entries) assertServerConfig(name, config, host.configFile)
  const connections = await Promise.all(entries.map(([name, config]) => connectOne(host, name, config)))
  host.services.mcpClients = connections
  return connections
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

async function connectOne(host: Host, server: string, config: McpServerConfig): Promise<McpClientConnection> {
  const connection: McpClientConnection = { server, connected: false, tools: [], problems: [] }
  const source = `mcp:${server}`
  const client = new Client({ name: 'toolhost', version: '0.1.0' })
  const transport = config.url !== undefined
    ? new StreamableHTTPClientTransport(new URL(config.url))
    : new StdioClientTransport({ command: config.command!, args: config.args ?? [], env: { ...getDefaultEnvironment(), ...(config.env ?? {}) }, stderr: 'pipe' })
  if (transport instanceof StdioClientTransport) {
    transport.stderr?.on('data', (chunk: Buffer) => host.log.info(`mcp server ${server}: ${chunk.toString('utf8').trimEnd()}`))
  }
  client.onclose = () => {
    connection.connected = false
  }
  const refresh = async (): Promise<void> => {
    const { tools } = await client.listTools()
    host.registry.unregisterSource(source)
    connection.tools = []
    for (const remote of tools) registerRemote(host, client, connection, config, remote, source)
  }
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS })
    connection.connected = true
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      refresh().catch((error: unknown) => host.log.warn(`mcp server ${server}: refreshing its tools failed: ${describeThrown(error)}`))
    })
    await refresh()
  } catch (error) {
    connection.connected = false
    connection.problems.push(`cannot connect: ${describeThrown(error)}`)
    host.log.error(`mcp server ${server} (${host.configFile ?? 'config'}: mcp_servers.${server}): cannot connect: ${describeThrown(error)}; its tools are not offered`)
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

function registerRemote(host: Host, client: Client, connection: McpClientConnection, config: McpServerConfig, remote: RemoteTool, source: string): void {
  const name = localName(connection.server, remote.name)
  const trusted = config.parallel_safe === true
  const hints = remote.annotations ?? {}
  const readOnly = trusted && hints.readOnlyHint === true
  const destructive = !readOnly && (trusted ? hints.destructiveHint !== false : true)
  const timeout = host.config.dispatch.timeout_ms
  const base = {
    name,
    toolset: `mcp_${connection.server}`,
    description: remote.description ?? remote.title ?? `${remote.name} from MCP server ${connection.server}`,
    parameters: remote.inputSchema as Record<string, unknown>,
    check: () => connection.connected,
    // Never trust a remote server's hints for scheduling or permissions unless config says so.
    parallelSafe: readOnly,
    readOnly: () => readOnly,
    destructive: () => destructive,
    idempotent: trusted && hints.idempotentHint === true,
    openWorld: hints.openWorldHint !== false,
    handler: async (args: Record<string, unknown>, ctx: { signal: AbortSignal; progress: (m: string, p?: number, t?: number) => void }) => {
      if (!connection.connected) throw new ToolhostError('E_TOOL_UNAVAILABLE', `MCP server ${connection.server} is disconnected; ${name} cannot run now`)
      const result = await client.callTool({ name: remote.name, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout,
        resetTimeoutOnProgress: true,
        onprogress: (p) => ctx.progress(p.message ?? `${remote.name}: ${p.progress}${p.total === undefined ? '' : `/${p.total}`}`, p.progress, p.total),
      })
      const text = remoteResultText(result)
      if (result.isError === true) throw new ToolhostError('E_TOOL_FAILED', `${name} (MCP server ${connection.server}) failed: ${text}`)
      return text
    },
  }
  try {
    host.registry.register(defineTool(base), { source })
  } catch (error) {
    if (!isToolhostError(error) || error.code !== 'E_SCHEMA_INVALID') {
      connection.problems.push(`${remote.name}: ${describeThrown(error)}`)
      host.log.error(`mcp server ${connection.server}: tool ${remote.name} not registered: ${describeThrown(error)}`)
      return
    }
    // The remote schema does not compile under ajv strict mode: offer the tool with a bare object
    // schema and let the server validate (its error comes back as the call's result).
    const note = `the input schema of ${remote.name} does not compile under strict JSON Schema (${describeThrown(error)}); arguments are checked by the server only`
    connection.problems.push(note)
    host.log.warn(`mcp server ${connection.server}: ${note}`)
    host.registry.register(defineTool({ ...base, parameters: { type: 'object' }, description: `${base.description}\n(Input schema: ${JSON.stringify(remote.inputSchema)})` }), { source })
  }
  connection.tools.push(name)
}

/**
 * `mcp_<server>_<tool>`, with characters a tool name cannot hold replaced, kept within 64 characters.
 *
 * @example
 * localName('files', 'read file') // 'mcp_files_read_file'
 */
export function localName(server: string, tool: string): string {
  const name = `mcp_${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, '_')
  if (TOOL_NAME_PATTERN.test(name)) return name
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8)
  return `${name.slice(0, 55)}_${hash}`
}

