import type { AnyTool, OpenAIToolDefinition, ToolResult } from '../contract/types.js'
import { toAnthropicDefinitions, toAnthropicMessage, type AnthropicToolDefinition, type AnthropicToolResultMessage } from './anthropic.js'
import { assertModelFormat, type ModelFormat } from './format.js'
import { toMcpCallResult, toMcpDefinition, type McpCallToolResult, type McpToolDefinition } from './mcp-definitions.js'
import { toChatDefinitions, toChatMessages, type ChatToolDefinition, type ChatToolMessage, type OpenAIDefinitionOptions } from './openai-chat.js'
import { toResponsesDefinitions, toResponsesItems, type FunctionCallOutputItem, type ResponsesToolDefinition } from './openai-responses.js'

/** The definitions list of each format. */
export type DefinitionsOf<F extends ModelFormat> = F extends 'anthropic'
  ? AnthropicToolDefinition[]
  : F extends 'openai-responses'
    ? ResponsesToolDefinition[]
    : F extends 'mcp'
      ? McpToolDefinition[]
      : ChatToolDefinition[]

/** What answers a batch in each format: tool messages, output items, one user message, or MCP results. */
export type MessagesOf<F extends ModelFormat> = F extends 'anthropic'
  ? AnthropicToolResultMessage
  : F extends 'openai-responses'
    ? FunctionCallOutputItem[]
    : F extends 'mcp'
      ? McpCallToolResult[]
      : ChatToolMessage[]

/**
 * Renders the registry's OpenAI definitions in `format` (`lookup` finds a tool for MCP annotations).
 * `strict` applies to the OpenAI formats (Chat and Responses).
 *
 * @example
 * renderDefinitions('anthropic', await registry.getDefinitions(), (n) => registry.get(n))
 */
export function renderDefinitions<F extends ModelFormat>(format: F, definitions: readonly OpenAIToolDefinition[], lookup: (name: string) => AnyTool | undefined, options: OpenAIDefinitionOptions = {}): DefinitionsOf<F> {
  assertModelFormat(format, 'definitions')
  switch (format) {
    case 'anthropic':
      return toAnthropicDefinitions(definitions) as DefinitionsOf<F>
    case 'openai-responses':
      return toResponsesDefinitions(definitions, options) as DefinitionsOf<F>
    case 'mcp':
      return definitions.flatMap((d) => {
        const tool = lookup(d.function.name)
        return tool ? [toMcpDefinition(tool)] : []
      }) as DefinitionsOf<F>
    default:
      return toChatDefinitions(definitions, options) as DefinitionsOf<F>
  }
}

/**
 * Renders results as the answer `format` expects (one entry per result, in result order).
 *
 * @example
 * renderResults('openai-responses', results) // [{ type: 'function_call_output', call_id, output }, ...]
 */
export function renderResults<F extends ModelFormat>(format: F, results: readonly ToolResult[]): MessagesOf<F> {
  assertModelFormat(format, 'toMessages')
  switch (format) {
    case 'anthropic':
      return toAnthropicMessage(results) as MessagesOf<F>
    case 'openai-responses':
      return toResponsesItems(results) as MessagesOf<F>
    case 'mcp':
      return results.map(toMcpCallResult) as MessagesOf<F>
    default:
      return toChatMessages(results) as MessagesOf<F>
  }
}
