import { blockAsText } from '../contract/content-blocks.js'
import type { ContentBlock, OpenAIToolDefinition, ToolResult } from '../contract/types.js'
import { resultText } from './format.js'
import type { OpenAIDefinitionOptions } from './openai-chat.js'
import { toStrictSchema } from './openai-strict.js'
import { withListsStated, type NonStrictParametersSchema, type StrictParametersSchema } from './openai-parameters.js'

/**
 * A Responses API function tool (flat: no nested `function` object), strict or not. Assignable to
 * the `openai` SDK's `FunctionTool`; narrowed by `strict`, its `parameters` fit the Agents SDK's
 * `tool({ parameters, strict })` without a cast.
 */
export type ResponsesToolDefinition =
  | { type: 'function'; name: string; description: string; parameters: StrictParametersSchema; strict: true }
  | { type: 'function'; name: string; description: string; parameters: NonStrictParametersSchema; strict: false }

/** One part of a rich `function_call_output`: text, an image (data URL) or a file (data URL). */
export type ResponsesOutputPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string }
  | { type: 'input_file'; file_data: string; filename: string }

/** A Responses API input item answering one `function_call` item by its `call_id`. */
export type FunctionCallOutputItem = {
  type: 'function_call_output'
  call_id: string
  output: string | ResponsesOutputPart[]
}

/**
 * Responses API definitions: `{type: 'function', name, description, parameters, strict}`. `strict`
 * is false unless asked for: without it the API would treat every tool as strict and make optional
 * arguments required. With `{ strict: true }` schemas are rewritten for strict mode.
 *
 * @example
 * await openai.responses.create({ model, input, tools: await host.definitions('openai-responses') })
 */
export function toResponsesDefinitions(definitions: readonly OpenAIToolDefinition[], options: OpenAIDefinitionOptions = {}): ResponsesToolDefinition[] {
  return definitions.map((d) => {
    const { name, description, parameters } = d.function
    const strict = options.strict === true ? toStrictSchema(parameters) : undefined
    if (strict) return { type: 'function', name, description, parameters: strict as StrictParametersSchema, strict: true }
    return { type: 'function', name, description, parameters: withListsStated(parameters), strict: false }
  })
}

/**
 * One `function_call_output` item per result, in result order. Text results (and failures, which
 * read `error E_CODE: message`) are a string; a result with blocks is a list of parts: text as
 * `input_text`, images as `input_image` and PDFs as `input_file` (base64 data URLs), and what the
 * API cannot take (audio, other files) as a text note saying it was left out.
 *
 * @example
 * input.push(...response.output, ...toResponsesItems(await host.run(response.output)))
 */
export function toResponsesItems(results: readonly ToolResult[]): FunctionCallOutputItem[] {
  return results.map((r) => ({ type: 'function_call_output', call_id: r.id, output: r.ok && r.blocks ? nonEmpty(r.blocks.flatMap(toPart), r.content) : resultText(r) }))
}

function toPart(block: ContentBlock): ResponsesOutputPart[] {
  if (block.type === 'text') return block.text === '' ? [] : [{ type: 'input_text', text: block.text }]
  if (block.type === 'image') return [{ type: 'input_image', image_url: dataUrl(block.mimeType, block.data) }]
  if (block.type === 'resource' && 'blob' in block.resource) {
    const { uri, mimeType, blob } = block.resource
    if (mimeType?.startsWith('image/')) return [{ type: 'input_image', image_url: dataUrl(mimeType, blob) }]
    if (mimeType === 'application/pdf') return [{ type: 'input_file', file_data: dataUrl(mimeType, blob), filename: fileName(uri, 'document.pdf') }]
  }
  return [{ type: 'input_text', text: blockAsText(block) }]
}

function nonEmpty<T>(parts: T[], text: string): T[] | string {
  return parts.length > 0 ? parts : text
}

function dataUrl(mimeType: string, base64: string): string {
  return `data:${mimeType};base64,${base64}`
}

/** The last path segment of a URI, or `fallback`. */
export function fileName(uri: string, fallback: string): string {
  const last = uri.split(/[/\\]/).filter(Boolean).pop()
  return last && !last.includes(':') ? decodeURIComponentSafe(last) : fallback
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
