import type { OpenAIToolDefinition, ToolResult } from '../types.js'
import { resultText } from './format.js'

/** A Responses API function tool (flat: no nested `function` object). */
export type ResponsesToolDefinition = {
  type: 'function'
  name: string
  description: string
  parameters: Record<string, unknown>
}

/** A Responses API input item answering one `function_call` item by its `call_id`. */
export type FunctionCallOutputItem = {
  type: 'function_call_output'
  call_id: string
  output: string
}

/**
 * Responses API definitions: `{type: 'function', name, description, parameters}`.
 *
 * @example
 * await openai.responses.create({ model, input, tools: await host.definitions('openai-responses') })
 */
export function toResponsesDefinitions(definitions: readonly OpenAIToolDefinition[]): ResponsesToolDefinition[] {
  return definitions.map((d) => ({ type: 'function', name: d.function.name, description: d.function.description, parameters: d.function.parameters }))
}

/**
 * One `function_call_output` item per result, in result order. Failures carry `error E_CODE: message`.
 *
 * @example
 * input.push(...response.output, ...toResponsesItems(await host.run(response.output)))
 */
export function toResponsesItems(results: readonly ToolResult[]): FunctionCallOutputItem[] {
  return results.map((r) => ({ type: 'function_call_output', call_id: r.id, output: resultText(r) }))
}
