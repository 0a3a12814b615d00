import { createHash } from 'node:crypto'
import type { Client, Tool as RemoteTool } from '@modelcontextprotocol/client'
import type { McpServerConfig } from '../config/types.js'
import { defineTool } from '../contract/define-tool.js'
import { DELEGATES } from '../store/claims.js'
import { describeThrown, isToolhostError, ToolhostError } from '../contract/errors.js'
import type { JsonSchema, ScopeEntry, ToolContext, ToolSpec } from '../contract/types.js'
import type { RemoteToolHost } from './client-host.js'
import { remoteResultText, remoteResultValue } from './remote-content.js'
import { strictSchemaCopy } from './remote-schema.js'

/** Tool names every model API accepts (OpenAI's rule, the strictest). */
export const MODEL_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** What registering a server's tools needs to know about its connection. */
export interface RemoteServer {
  /** The key under `mcp_servers`. */
  server: string
  client: Client
  config: McpServerConfig
  isConnected(): boolean
  /** Registry names taken so far, by the remote name each stands for (collisions are refused). */
  names: Map<string, string>
  /** Notes for `host.services.mcpClients[].problems`. */
  problems: string[]
  /** Calls of this server running now (an elicitation from it is about one of them). */
  running: Set<string>
}

/**
 * `mcp_<server>_<tool>` in the alphabet every model API accepts (`^[a-zA-Z0-9_-]{1,64}$`): other
 * characters (`.`, spaces, …) become `_`, and a name over 64 characters is cut and given a stable
 * hash of the remote name, so it stays unique and the same across restarts.
 *
 * @example
 * localName('files', 'read.text')   // 'mcp_files_read_text'
 * localName('fx', 'x'.repeat(80))   // 'mcp_fx_xxxx…_3f2a9c1b' (64 characters)
 */
export function localName(server: string, tool: string): string {
  const name = `mcp_${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, '_')
  if (MODEL_SAFE_NAME.test(name)) return name
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8)
  return `${name.slice(0, 55)}_${hash}`
}

/**
 * Registers one remote tool as `localName(server, tool)`; calls go back to the server under the
 * remote name. Its input schema is kept in its own dialect and validated locally (a copy without
 * non-JSON-Schema keywords if strict JSON Schema refuses the original; a bare object schema only if
 * even that fails). Behaviour comes from the server's annotations only when the server is trusted
 * (`parallel_safe: true`); a trusted read-only tool that takes `path`/`paths` is path-scoped (reads),
 * so it waits for an earlier write of the same file. Its results pass through as blocks.
 */
export function registerRemote(host: RemoteToolHost, remote: RemoteServer, tool: RemoteTool, source: string): void {
  const name = localName(remote.server, tool.name)
  const taken = remote.names.get(name)
  if (taken !== undefined) {
    const note = `tool ${JSON.stringify(tool.name)} is not offered: its name maps to ${name}, which ${JSON.stringify(taken)} of the same server already has`
    remote.problems.push(note)
    host.log.error(`mcp server ${remote.server}: ${note}`)
    return
  }
  const trusted = remote.config.parallel_safe === true
  const hints = tool.annotations ?? {}
  const readOnly = trusted && hints.readOnlyHint === true
  const destructive = !readOnly && (trusted ? hints.destructiveHint !== false : true)
  const inputSchema = tool.inputSchema as JsonSchema
  // A trusted read-only tool taking `path`/`paths` reads them; any other is a barrier unless config
  // dispatch.path_scoped names it (its `path`/`paths` are then written, as readOnly is false).
  const scope = readOnly ? pathScope(inputSchema) : undefined
  const spec: ToolSpec = {
    name,
    toolset: `mcp_${remote.server}`,
    description: tool.description ?? tool.title ?? `${tool.name} from MCP server ${remote.server}`,
    parameters: inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JsonSchema } : {}),
    check: () => remote.isConnected(),
    // Never trust a remote server's hints for scheduling or permissions unless config says so.
    parallelSafe: readOnly && scope === undefined,
    ...(scope ? { scope } : {}),
    readOnly: () => readOnly,
    destructive: () => destructive,
    idempotent: trusted && hints.idempotentHint === true,
    openWorld: hints.openWorldHint !== false,
    handler: (args: Record<string, unknown>, ctx: ToolContext) => callRemote(host, remote, tool.name, name, args, ctx),
  }
  if (!tryRegister(host, spec, source, remote)) {
    const { schema, dropped } = strictSchemaCopy(inputSchema)
    const output = spec.outputSchema ? strictSchemaCopy(spec.outputSchema) : undefined
    const kept = { ...spec, parameters: schema, ...(output ? { outputSchema: output.schema } : {}) }
    const all = [...dropped, ...(output?.dropped ?? []).map((d) => `${d} (outputSchema)`)]
    if (tryRegister(host, kept, source, remote, `its schema is kept and checked here without what strict JSON Schema refuses: ${all.join(', ') || 'nothing'}`)) return
    // Not even the strict copy compiles: offer the tool, and let the server check the arguments.
    const note = `the input schema of ${tool.name} does not compile as strict JSON Schema; arguments are checked by the server only`
    remote.problems.push(note)
    host.log.warn(`mcp server ${remote.server}: ${note}`)
    const { outputSchema: _dropped, ...bare } = spec
    host.registry.register(defineTool({ ...bare, parameters: { type: 'object' }, description: `${spec.description}\n(Input schema: ${JSON.stringify(inputSchema)})` }), { source })
    markDelegating(host, spec.name)
  }
  remote.names.set(name, tool.name)
}

// True when registered; false when the schema does not compile (anything else is noted and true).
function tryRegister(host: RemoteToolHost, spec: ToolSpec, source: string, remote: RemoteServer, note?: string): boolean {
  try {
    host.registry.register(defineTool(spec), { source })
    markDelegating(host, spec.name)
    if (note) {
      remote.problems.push(`${spec.name}: ${note}`)
      host.log.info(`mcp server ${remote.server}: ${spec.name}: ${note}`)
    }
    return true
  } catch (error) {
    if (isToolhostError(error) && error.code === 'E_SCHEMA_INVALID') return false
    remote.problems.push(`${spec.name}: ${describeThrown(error)}`)
    host.log.error(`mcp server ${remote.server}: tool ${spec.name} not registered: ${describeThrown(error)}`)
    return true
  }
}

// The server claims what its calls touch (a toolhost on the same root, through the shared store):
// a claim here too would have this host's call wait for its own call there. Marked on the registered
// tool itself: registering rebuilds a tool from its known fields.
function markDelegating(host: RemoteToolHost, name: string): void {
  const registered = host.registry.get(name)
  if (registered !== undefined) Object.defineProperty(registered, DELEGATES, { value: true })
}

/** `path` / `paths` arguments as reads (or writes), when the schema has them. */
function pathScope(schema: JsonSchema): ((args: Record<string, unknown>) => ScopeEntry[]) | undefined {
  const properties = (schema.properties ?? {}) as Record<string, unknown>
  if (!('path' in properties) && !('paths' in properties)) return undefined
  return (args) => {
    const paths = [args.path, ...(Array.isArray(args.paths) ? args.paths : [])].filter((p): p is string => typeof p === 'string' && p !== '')
    return paths.map((path) => ({ path, access: 'read' }))
  }
}

async function callRemote(host: RemoteToolHost, remote: RemoteServer, remoteName: string, name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
  if (!remote.isConnected()) throw new ToolhostError('E_TOOL_UNAVAILABLE', `MCP server ${remote.server} is disconnected; ${name} cannot run now`)
  remote.running.add(ctx.call.id)
  try {
    const result = await remote.client.callTool({ name: remoteName, arguments: args }, {
      signal: ctx.call.signal,
      timeout: host.config.dispatch.timeout_ms,
      resetTimeoutOnProgress: true,
      onprogress: (p) => ctx.report.progress(p.message ?? `${remoteName}: ${p.progress}${p.total === undefined ? '' : `/${p.total}`}`, p.progress, p.total),
    })
    if (result.isError === true) throw new ToolhostError('E_TOOL_FAILED', `${name} (MCP server ${remote.server}) failed: ${remoteResultText(result)}`)
    return remoteResultValue(result)
  } finally {
    remote.running.delete(ctx.call.id)
  }
}
