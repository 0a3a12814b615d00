import type { OpenAIToolDefinition, ToolResult } from '../types.js'

/** An Anthropic Messages tool definition. */
export type AnthropicToolDefinition = {
  name: string
  description: string
  input_schema: Record<string, unknown>
}

/** One `tool_result` content block. */
export type AnthropicToolResultBlock = {
  type: 'tool_result'
  tool_use_id: string
  content: string
  is_error?: true
}

/** The single user message that answers every `tool_use` block of an assistant turn. */
export type AnthropicToolResultMessage = {
  role: 'user'
  content: AnthropicToolResultBlock[]
}

/**
 * Anthropic Messages definitions: `{name, description, input_schema}`.
 *
 * @example
 * await anthropic.messages.create({ model, max_tokens, messages, tools: await host.definitions('anthropic') })
 */
export function toAnthropicDefinitions(definitions: readonly OpenAIToolDefinition[]): AnthropicToolDefinition[] {
  return definitions.map((d) => ({ name: d.function.name, description: d.function.description, input_schema: d.function.parameters }))
}

/**
 * ONE user message holding a `tool_result` block per result, in result order (the API wants every
 * `tool_use` of the previous turn answered in the next user message). Failures set `is_error: true`
 * and read `E_CODE: message`.
 *
 * @example
 * messages.push({ role: 'assistant', content: reply.content }, toAnthropicMessage(await host.run(reply)))
 */
export function toAnthropicMessage(results: readonly ToolResult[]): AnthropicToolResultMessage {
  return {
    role: 'user',
    content: results.map((r) =>
      r.ok
        ? { type: 'tool_result', tool_use_id: r.id, content: r.content }
        : { type: 'tool_result', tool_use_id: r.id, content: r.error ? `${r.error.code}: ${r.error.message}` : r.content, is_error: true },
    ),
  }
}
