// An agent loop in the Anthropic Messages shapes on toolhost.
// Runs without network: `node bin/run-ts.mjs examples/anthropic-loop.ts` replays the responses
// recorded in test/fixtures/recorded/anthropic.json. With the Anthropic SDK, the model is one line:
//   const model: MessagesModel = (req) => anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 4096, ...req })
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createHost, type Host, type RunOptions } from 'toolhost'
import { RECORDED, replay } from './openai-loop.js'

export type ContentBlock = Record<string, unknown> & { type: string }
export interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: string | ContentBlock[]
}
export interface AnthropicResponse {
  role: 'assistant'
  content: ContentBlock[]
  stop_reason: string | null
}
export type MessagesModel = (request: { messages: AnthropicMessage[]; tools: unknown[] }) => Promise<AnthropicResponse>

/**
 * Messages API: ask; when the reply has `tool_use` blocks, run them all through the host and answer
 * with ONE user message holding a `tool_result` per block (`is_error` on failures); repeat until
 * the model stops asking for tools.
 */
export async function runAnthropicLoop(host: Host, model: MessagesModel, prompt: string, options: RunOptions & { maxTurns?: number } = {}): Promise<AnthropicMessage[]> {
  const tools = await host.definitions('anthropic')
  const messages: AnthropicMessage[] = [{ role: 'user', content: prompt }]
  for (let turn = 0; turn < (options.maxTurns ?? 8); turn++) {
    const reply = await model({ messages, tools })
    messages.push({ role: 'assistant', content: reply.content })
    if (!reply.content.some((block) => block.type === 'tool_use')) break
    const results = await host.run(reply, options)
    messages.push(host.toMessages(results, 'anthropic'))
  }
  return messages
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const recorded = JSON.parse(readFileSync(path.join(RECORDED, 'anthropic.json'), 'utf8')) as { prompt: string; responses: AnthropicResponse[] }
  const host = await createHost({ config: { env_file: '' } })
  try {
    for (const message of await runAnthropicLoop(host, replay(recorded.responses), recorded.prompt)) console.log(JSON.stringify(message))
  } finally {
    await host.close()
  }
}
