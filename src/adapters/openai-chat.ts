import type { OpenAIToolDefinition, ToolResult } from '../contract/types.js'
import { resultText } from './format.js'
import { withListsStated, type NonStrictParametersSchema, type StrictParametersSchema } from './openai-parameters.js'
import { toStrictSchema } from './openai-strict.js'

/** A Chat Completions tool message: the answer to one `tool_calls` entry (text only: Chat takes no images). */
export type ChatToolMessage = {
  role: 'tool'
  tool_call_id: string
  content: string
}

/**
 * A Chat Completions function tool as `definitions('openai-chat')` renders it, strict or not.
 * Assignable to the `openai` SDK's `ChatCompletionTool`; narrowed by `function.strict`, its
 * `parameters` fit the Agents SDK's `tool({ parameters, strict })` without a cast.
 */
export type ChatToolDefinition =
  | { type: 'function'; function: { name: string; description: string; parameters: StrictParametersSchema; strict: true } }
  | { type: 'function'; function: { name: string; description: string; parameters: NonStrictParametersSchema; strict: false } }

/** How definitions are rendered for the OpenAI formats. */
export interface OpenAIDefinitionOptions {
  /**
   * Strict mode: schemas rewritten as strict function calling requires (`toStrictSchema`) and
   * `strict: true`; a tool whose schema has no strict form stays `strict: false`. Default false.
   */
  strict?: boolean
}

/**
 * Chat Completions function-tool definitions, each with `strict` (false unless asked for), a
 * non-strict one's `parameters` stating `properties` and `required` (empty when the schema has none).
 * Assignable to the `openai` SDK's `ChatCompletionTool[]`.
 *
 * @example
 * const tools = toChatDefinitions(await host.definitions())
 * await openai.chat.completions.create({ model, messages, tools })
 */
export function toChatDefinitions(definitions: readonly OpenAIToolDefinition[], options: OpenAIDefinitionOptions = {}): ChatToolDefinition[] {
  return definitions.map((d) => {
    const strict = options.strict === true ? toStrictSchema(d.function.parameters) : undefined
    const { name, description, parameters } = d.function
    if (strict) return { type: 'function', function: { name, description, parameters: strict as StrictParametersSchema, strict: true } }
    return { type: 'function', function: { name, description, parameters: withListsStated(parameters), strict: false } }
  })
}

/**
 * One `role: 'tool'` message per result, in result order, each naming its call by `tool_call_id`.
 * The content is the result's text rendering (saying what non-text content was left out); a failed
 * call's content is `error E_CODE: message`, so the model can read and correct it.
 *
 * @example
 * messages.push(assistantMessage, ...toChatMessages(await host.run(assistantMessage)))
 */
export function toChatMessages(results: readonly ToolResult[]): ChatToolMessage[] {
  return results.map((r) => ({ role: 'tool', tool_call_id: r.id, content: resultText(r) }))
}
