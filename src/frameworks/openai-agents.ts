/**
 * `toolhost/openai-agents`: a host's tools as OpenAI Agents JS function tools, in one call. Needs
 * the optional peer dependencies `@openai/agents` (0.20, tested; 0.14.3, the line on `openai@6`, also
 * fits) and `zod@4` (the Agents SDK's peer).
 */
import { tool, type Tool, type ToolOutputFileContent, type ToolOutputImage, type ToolOutputText } from '@openai/agents'
import { blockAsText } from '../contract/content-blocks.js'
import { resultText } from '../adapters/format.js'
import type { Host } from '../host/host.js'
import type { DefinitionsQuery } from '../host/host-types.js'
import type { ContentBlock, ToolResult } from '../contract/types.js'
import { CallBatcher } from './call-batcher.js'

/** Which tools become function tools (default: every tool available now), and OpenAI strict mode. */
export type AgentsToolsOptions = Pick<DefinitionsQuery, 'names' | 'toolsets' | 'strict'>

/** What a function tool hands the Agents SDK: text, or output items for a rich result. */
export type AgentsToolOutput = string | Array<ToolOutputText | ToolOutputImage | ToolOutputFileContent>

/**
 * The tools available now as Agents SDK function tools. Every call goes through the host: calls the
 * model makes in one turn are run as one batch (authorised together, scheduled by toolhost, so a
 * read beside a write of the same file waits for it), under the host's permissions and limits.
 * Definitions are `strict: false` by default (optional arguments stay optional); `{ strict: true }`
 * (or `openai.strict`) sends toolhost's strict rewrite, and the host removes the nulls it makes the
 * model send. A failure reaches the model as `error E_CODE: message`; a rich result as text, image and
 * file items.
 *
 * @example
 * import { Agent, run } from '@openai/agents'
 * import { agentsTools } from 'toolhost/openai-agents'
 * const agent = new Agent({ name: 'helper', instructions: 'Use the tools.', tools: await agentsTools(host) })
 * const result = await run(agent, 'Summarise notes.md')
 */
export async function agentsTools(host: Host, options: AgentsToolsOptions = {}): Promise<Tool[]> {
  const definitions = await host.definitions('openai-responses', options)
  const batcher = new CallBatcher(host)
  return definitions.map((d) => {
    let calls = 0
    const execute = async (input: unknown, _context: unknown, details?: { toolCall?: { callId: string }; signal?: AbortSignal }): Promise<AgentsToolOutput> => {
      const id = details?.toolCall?.callId ?? `${d.name}_${++calls}`
      const args = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {}
      return toAgentsOutput(await batcher.call({ id, name: d.name, arguments: args }, details?.signal))
    }
    // toolhost's schemas are sent as they are (non-strict) or as its own strict rewrite (strict):
    // narrowed by `strict`, each definition's parameters are the SDK's type for it.
    return d.strict
      ? tool({ name: d.name, description: d.description, parameters: d.parameters, strict: true, execute })
      : tool({ name: d.name, description: d.description, parameters: d.parameters, strict: false, execute })
  })
}

/**
 * A toolhost result as a function tool's output: its text (a failure reads `error E_CODE: message`),
 * or for a result with blocks, text, image and file items (what the SDK cannot carry as a text note).
 *
 * @example
 * toAgentsOutput({ id: 'c', name: 'echo', ok: true, content: 'hi' }) // 'hi'
 */
export function toAgentsOutput(result: ToolResult): AgentsToolOutput {
  if (!result.ok || !result.blocks) return resultText(result)
  return result.blocks.map(toItem)
}

function toItem(block: ContentBlock): ToolOutputText | ToolOutputImage | ToolOutputFileContent {
  if (block.type === 'image') return { type: 'image', image: { data: block.data, mediaType: block.mimeType } }
  if (block.type === 'resource' && 'blob' in block.resource) {
    const { uri, mimeType, blob } = block.resource
    if (mimeType?.startsWith('image/')) return { type: 'image', image: { data: blob, mediaType: mimeType } }
    if (mimeType === 'application/pdf') return { type: 'file', file: { data: blob, mediaType: mimeType, filename: uri.split('/').pop() || 'document.pdf' } }
  }
  return { type: 'text', text: block.type === 'text' ? block.text : blockAsText(block) }
}
