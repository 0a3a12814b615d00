import { blockAsText } from '../contract/content-blocks.js'
import type { ContentBlock, ObjectJsonSchema, OpenAIToolDefinition, ToolResult } from '../contract/types.js'
import { fileName } from './openai-responses.js'

/** An Anthropic Messages tool definition (assignable to `@anthropic-ai/sdk`'s `Tool`). */
export type AnthropicToolDefinition = {
  name: string
  description: string
  input_schema: ObjectJsonSchema
}

/** The image types the Messages API takes inline. */
export type AnthropicImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'

/** One part of a rich `tool_result`: text, an inline image, or a document (a PDF or plain text). */
export type AnthropicResultPart =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: AnthropicImageType; data: string } }
  | { type: 'document'; source: { type: 'base64'; media_type: 'application/pdf'; data: string } | { type: 'text'; media_type: 'text/plain'; data: string }; title: string }

/** One `tool_result` content block (assignable to the SDK's `ToolResultBlockParam`). */
export type AnthropicToolResultBlock = {
  type: 'tool_result'
  tool_use_id: string
  content: string | AnthropicResultPart[]
  is_error?: true
}

/** The single user message that answers every `tool_use` block of an assistant turn (a `MessageParam`). */
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
 * and read `E_CODE: message`. A result with blocks becomes a list: text, images (PNG, JPEG, GIF,
 * WebP) as image blocks, PDFs and embedded text resources as document blocks, and what the API
 * cannot take (audio, other types) as a text note saying it was left out.
 *
 * @example
 * messages.push({ role: 'assistant', content: reply.content }, toAnthropicMessage(await host.run(reply)))
 */
export function toAnthropicMessage(results: readonly ToolResult[]): AnthropicToolResultMessage {
  return {
    role: 'user',
    content: results.map((r): AnthropicToolResultBlock => {
      if (!r.ok) return { type: 'tool_result', tool_use_id: r.id, content: r.error ? `${r.error.code}: ${r.error.message}` : r.content, is_error: true }
      return { type: 'tool_result', tool_use_id: r.id, content: r.blocks && r.blocks.length > 0 ? partsOrText(r.blocks.flatMap(toPart), r.content) : r.content }
    }),
  }
}

const IMAGE_TYPES: ReadonlySet<string> = new Set<AnthropicImageType>(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

function isImageType(mimeType: string | undefined): mimeType is AnthropicImageType {
  return mimeType !== undefined && IMAGE_TYPES.has(mimeType)
}

function partsOrText(parts: AnthropicResultPart[], text: string): AnthropicResultPart[] | string {
  return parts.length > 0 ? parts : text
}

function toPart(block: ContentBlock): AnthropicResultPart[] {
  switch (block.type) {
    case 'text':
      // The API refuses empty text blocks.
      return block.text === '' ? [] : [{ type: 'text', text: block.text }]
    case 'image':
      if (isImageType(block.mimeType)) return [{ type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } }]
      break
    case 'resource': {
      const r = block.resource
      const title = fileName(r.uri, r.uri)
      if ('text' in r) return [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: r.text }, title }]
      if (r.mimeType === 'application/pdf') return [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: r.blob }, title }]
      if (isImageType(r.mimeType)) return [{ type: 'image', source: { type: 'base64', media_type: r.mimeType, data: r.blob } }]
      break
    }
  }
  return [{ type: 'text', text: blockAsText(block) }]
}
