import type { OpenAIToolDefinition, ToolResult } from '../types.js'
import { resultText } from './format.js'

/** A Chat Completions tool message: the answer to one `tool_calls` entry. */
export type ChatToolMessage = {
  role: 'tool'
  tool_call_id: string
  content: string
}

/**
 * Chat Completions function-tool definitions (the registry's own form, copied so callers may edit).
 *
 * @example
 * const tools = toChatDefinitions(await host.definitions())
 * await openai.chat.completions.create({ model, messages, tools })
 */
export function toChatDefinitions(definitions: readonly OpenAIToolDefinition[]): OpenAIToolDefinition[] {
  return definitions.map((d) => ({ type: 'function', function: { ...d.function } }))
}

/**
 * One `role: 'tool'` message per result, in result order, each naming its call by `tool_call_id`.
 * A failed call's content is `error E_CODE: message`, so the model can read and correct it.
 *
 * @example
 * messages.push(assistantMessage, ...toChatMessages(await host.run(assistantMessage)))
 */
export function toChatMessages(results: readonly ToolResult[]): ChatToolMessage[] {
  return results.map((r) => ({ role: 'tool', tool_call_id: r.id, content: resultText(r) }))
}
