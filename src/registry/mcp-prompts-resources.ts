/**
 * The prompts and resources of plugins as MCP answers, for the MCP server to wire into its request
 * handlers (it lives above the registry and owns the SDK; this file needs neither). Plain JSON in,
 * plain JSON out: the result of each method, or a JSON-RPC error with the toolhost code in `data`.
 */
import { describeThrown, isToolhostError } from '../contract/errors.js'
import type { CompletionRef } from './complete-argument.js'
import type { PromptEntry, PromptRequestOptions } from './prompt-entries.js'
import type { PromptsAndResources } from './prompts-and-resources.js'

/** The MCP methods `answerMcpPromptsResources` answers. */
export const MCP_PROMPT_RESOURCE_METHODS = ['prompts/list', 'prompts/get', 'resources/list', 'resources/templates/list', 'resources/read', 'completion/complete'] as const

export type McpPromptResourceMethod = (typeof MCP_PROMPT_RESOURCE_METHODS)[number]

/** A JSON-RPC error as MCP sends it; `data.toolhostCode` is the catalogue's code (`E_NOT_FOUND`, …). */
export interface McpErrorShape {
  code: number
  message: string
  data: { toolhostCode: string; uri?: string }
}

/** What a method answers: its result, or an error. */
export type McpAnswer = { result: Record<string, unknown> } | { error: McpErrorShape }

/** JSON-RPC codes used here (MCP 2026-07-28 answers an unknown resource with Invalid Params, as the v2 SDK does on every revision). */
export const JSON_RPC = { METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602, INTERNAL_ERROR: -32603 } as const

/**
 * Answers one MCP request on prompts, resources or completions from the plugins' registrations,
 * deciding availability now with `options` (the host's env and check time limit, the request's
 * signal). Pagination cursors are ignored: every list comes whole. `resources/list` and
 * `resources/read` answer for the plugins' resources only: the server adds its own (saved results,
 * process logs) to the list, and reads its own URIs when this answers `E_NOT_FOUND`
 * (`error.data.toolhostCode`). Never throws.
 *
 * @example
 * const options = (signal: AbortSignal) => ({ env: host.env, checkTimeoutMs: host.config.availability.check_timeout_ms, signal, report: (m: string) => host.log.warn(m) })
 * server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
 *   const answer = await answerMcpPromptsResources(host.registry.promptsAndResources, 'prompts/get', request.params, options(extra.signal))
 *   if ('error' in answer) throw new McpError(answer.error.code, answer.error.message, answer.error.data)
 *   return answer.result
 * })
 */
export async function answerMcpPromptsResources(catalogue: PromptsAndResources, method: string, params: unknown, options: PromptRequestOptions = {}): Promise<McpAnswer> {
  const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>
  try {
    switch (method) {
      case 'prompts/list':
        return { result: { prompts: (await catalogue.availablePrompts(options)).map(describePrompt) } }
      case 'prompts/get':
        if (typeof p.name !== 'string') return invalid('prompts/get needs `name`, a string')
        return { result: { ...(await catalogue.renderPrompt(p.name, p.arguments, options)) } }
      case 'resources/list':
        return { result: { resources: await catalogue.listResources(options) } }
      case 'resources/templates/list':
        return { result: { resourceTemplates: (await catalogue.availableResources(true, options)).map(({ resource }) => ({ uriTemplate: resource.uriTemplate, name: resource.name, ...(resource.title !== undefined ? { title: resource.title } : {}), description: resource.description, mimeType: resource.mimeType })) } }
      case 'resources/read':
        if (typeof p.uri !== 'string') return invalid('resources/read needs `uri`, a string')
        return { result: { contents: await catalogue.readResource(p.uri, options) } }
      case 'completion/complete': {
        const argument = p.argument as { name?: unknown; value?: unknown } | undefined
        if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') return invalid('completion/complete needs `argument` with string `name` and `value`')
        const context = (p.context as { arguments?: unknown } | undefined)?.arguments
        return { result: { completion: await catalogue.complete(p.ref as CompletionRef, { name: argument.name, value: argument.value }, context as Record<string, string> | undefined, options) } }
      }
      default:
        return { error: { code: JSON_RPC.METHOD_NOT_FOUND, message: `${method} is not a prompts, resources or completion method`, data: { toolhostCode: 'E_USAGE' } } }
    }
  } catch (error) {
    return { error: mcpErrorOf(error) }
  }
}

/**
 * The JSON-RPC error for a failure: a prompt, URI or argument the client got wrong
 * (`E_NOT_FOUND`, `E_ARGS_INVALID`) is Invalid Params (a URI in `data.uri`); a plugin's failure or
 * time-out is Internal Error with its message.
 *
 * @example
 * mcpErrorOf(new ToolhostError('E_NOT_FOUND', 'resource "notes://x" not found: …', { details: { uri: 'notes://x' } }))
 * // { code: -32602, message: 'resource "notes://x" not found: …', data: { toolhostCode: 'E_NOT_FOUND', uri: 'notes://x' } }
 */
export function mcpErrorOf(error: unknown): McpErrorShape {
  if (!isToolhostError(error)) return { code: JSON_RPC.INTERNAL_ERROR, message: describeThrown(error), data: { toolhostCode: 'E_HANDLER_FAILED' } }
  const uri = error.details?.uri
  const data = { toolhostCode: error.code, ...(typeof uri === 'string' ? { uri } : {}) }
  const clientFault = error.code === 'E_NOT_FOUND' || error.code === 'E_ARGS_INVALID'
  return { code: clientFault ? JSON_RPC.INVALID_PARAMS : JSON_RPC.INTERNAL_ERROR, message: error.message, data }
}

function invalid(message: string): McpAnswer {
  return { error: { code: JSON_RPC.INVALID_PARAMS, message, data: { toolhostCode: 'E_ARGS_INVALID' } } }
}

// A prompt as prompts/list shows it: its arguments from its schema's properties.
function describePrompt({ prompt }: PromptEntry): Record<string, unknown> {
  const schema = prompt.arguments as { properties?: Record<string, { title?: unknown; description?: unknown }>; required?: string[] }
  const required = new Set(schema.required ?? [])
  const args = Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    ...(typeof property.title === 'string' ? { title: property.title } : {}),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    required: required.has(name),
  }))
  return { name: prompt.name, ...(prompt.title !== undefined ? { title: prompt.title } : {}), description: prompt.description, ...(args.length > 0 ? { arguments: args } : {}) }
}
