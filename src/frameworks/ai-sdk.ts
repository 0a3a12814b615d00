/**
 * `toolhost/ai-sdk`: a host's tools as a Vercel AI SDK `ToolSet`, in one call. Needs the optional
 * peer dependency `ai`: version 6 (the newest line that runs on Node 20) or 7 (which needs Node 22).
 */
import { jsonSchema, tool, type Tool, type ToolSet } from 'ai'
import { blockAsText } from '../contract/content-blocks.js'
import type { Host } from '../host/host.js'
import type { DefinitionsQuery } from '../host/host-types.js'
import type { ContentBlock, ToolResult } from '../contract/types.js'
import { CallBatcher } from './call-batcher.js'

/** Which tools become AI SDK tools (default: every tool available now). */
export type AiSdkToolsOptions = Pick<DefinitionsQuery, 'names' | 'toolsets'>

/** What the AI SDK passes to the model for a tool's output (its `ToolResultOutput`, not exported by `ai`). */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>

type ContentPart = Extract<ToolResultOutput, { type: 'content' }>['value'][number]

/**
 * The tools available now as an AI SDK `ToolSet`. Every `execute` goes through the host: calls the
 * model makes in one step are run as one batch (authorised together, scheduled by toolhost, so a read
 * beside a write of the same file waits for it), under the host's permissions and limits. The
 * `execute` output is toolhost's `ToolResult`; the model reads it through `toModelOutput`: text, a
 * failure as `error-text` (`E_CODE: message`), or content parts (text, images, PDFs) for a rich result.
 *
 * @example
 * import { generateText, stepCountIs } from 'ai'
 * import { aiSdkTools } from 'toolhost/ai-sdk'
 * const host = await createHost({ root: '.' })
 * const { text } = await generateText({ model, tools: await aiSdkTools(host), stopWhen: stepCountIs(8), prompt: 'Summarise notes.md' })
 */
export async function aiSdkTools(host: Host, options: AiSdkToolsOptions = {}): Promise<ToolSet> {
  const definitions = await host.definitions('openai-chat', { ...options, strict: false })
  const batcher = new CallBatcher(host)
  const tools: ToolSet = {}
  for (const { function: fn } of definitions) {
    tools[fn.name] = tool<Record<string, unknown>, ToolResult>({
      description: fn.description,
      // toolhost validates the arguments itself (its own ajv set-up and messages), so the schema is
      // only described to the model here, not checked twice.
      inputSchema: jsonSchema<Record<string, unknown>>(fn.parameters as Parameters<typeof jsonSchema>[0]),
      execute: (input, { toolCallId, abortSignal }) => batcher.call({ id: toolCallId, name: fn.name, arguments: input }, abortSignal),
      toModelOutput: ({ output }) => toAiSdkOutput(output),
    })
  }
  return tools
}

/**
 * A toolhost result as the AI SDK's model output: text, `error-text` for a failure, or `content`
 * parts for a result with blocks (what the SDK cannot carry becomes a text note).
 *
 * @example
 * toAiSdkOutput({ id: 'c', name: 'echo', ok: true, content: 'hi' }) // { type: 'text', value: 'hi' }
 */
export function toAiSdkOutput(result: ToolResult): ToolResultOutput {
  if (!result.ok) return { type: 'error-text', value: result.error ? `${result.error.code}: ${result.error.message}` : result.content }
  if (!result.blocks) return { type: 'text', value: result.content }
  return { type: 'content', value: result.blocks.map(toPart) }
}

function toPart(block: ContentBlock): ContentPart {
  if (block.type === 'image') return { type: 'image-data', data: block.data, mediaType: block.mimeType }
  if (block.type === 'resource' && 'blob' in block.resource) {
    const { uri, mimeType, blob } = block.resource
    if (mimeType?.startsWith('image/')) return { type: 'image-data', data: blob, mediaType: mimeType }
    if (mimeType === 'application/pdf') return { type: 'file-data', data: blob, mediaType: mimeType, filename: uri.split('/').pop() || 'document.pdf' }
  }
  return { type: 'text', text: block.type === 'text' ? block.text : blockAsText(block) }
}
