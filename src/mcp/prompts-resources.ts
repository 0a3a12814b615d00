import { ProtocolError, type Server, type ServerContext } from '@modelcontextprotocol/server'
import type { Host } from '../host/host.js'
import { answerMcpPromptsResources, type McpPromptResourceMethod } from '../registry/mcp-prompts-resources.js'
import type { PromptRequestOptions } from '../registry/prompt-entries.js'
import { isOwnResourceUri, listOwnResources, readOwnResource, RESOURCE_TEMPLATES, serveResources } from './resources.js'
import type { McpSessions } from './sessions.js'

/**
 * The server capabilities for everything besides tools: plugin prompts (`listChanged`), resources
 * (toolhost's own and the plugins', subscribable, `listChanged`) and completions.
 */
export const PROMPT_RESOURCE_CAPABILITIES = {
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
} as const

/**
 * Registers everything an instance offers besides tools, in one place, on both protocol
 * revisions: the plugins' prompts (`prompts/list`, `prompts/get`), resources and resource
 * templates beside toolhost's own (saved results, process logs: `serveResources`), and
 * `completion/complete`. Availability is decided per request with `check` and `requiresEnv`
 * exactly as for tools (the host's env and `availability.check_timeout_ms`). A URI under
 * `toolhost://results/` or `toolhost://processes/` is read by toolhost; any other by the plugin
 * that offers it. The server must declare `PROMPT_RESOURCE_CAPABILITIES`; list changes reach
 * clients through `notifyOnToolChanges`.
 *
 * @example
 * servePromptsAndResources(server, host, sessions) // inside createMcpServer
 */
export function servePromptsAndResources(server: Server, host: Host, sessions: McpSessions): void {
  serveResources(server, host, sessions)
  const catalogue = host.registry.promptsAndResources
  const options = (ctx: ServerContext): PromptRequestOptions => ({
    env: host.env,
    checkTimeoutMs: host.config.availability.check_timeout_ms,
    canAsk: host.ask !== undefined,
    signal: ctx.mcpReq.signal,
    report: (message) => host.log.warn(message),
  })
  const answer = async (method: McpPromptResourceMethod, params: unknown, ctx: ServerContext): Promise<Record<string, unknown>> => {
    const reply = await answerMcpPromptsResources(catalogue, method, params, options(ctx))
    if ('error' in reply) throw new ProtocolError(reply.error.code, reply.error.message, reply.error.data)
    return reply.result
  }

  server.setRequestHandler('prompts/list', async (request, ctx) => (await answer('prompts/list', request.params, ctx)) as never)
  server.setRequestHandler('prompts/get', async (request, ctx) => (await answer('prompts/get', request.params, ctx)) as never)
  server.setRequestHandler('completion/complete', async (request, ctx) => (await answer('completion/complete', request.params, ctx)) as never)
  server.setRequestHandler('resources/list', async (request, ctx) => {
    const plugins = (await answer('resources/list', request.params, ctx)).resources as unknown[]
    return { resources: [...(await listOwnResources(host)), ...plugins] } as never
  })
  server.setRequestHandler('resources/templates/list', async (request, ctx) => {
    const plugins = (await answer('resources/templates/list', request.params, ctx)).resourceTemplates as unknown[]
    return { resourceTemplates: [...RESOURCE_TEMPLATES, ...plugins] } as never
  })
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params
    if (isOwnResourceUri(uri)) return { contents: [await readOwnResource(host, uri)] }
    return (await answer('resources/read', request.params, ctx)) as never
  })
}
