// An agent loop in the Anthropic Messages shapes on toolhost.
// Runs without network: `node bin/run-ts.mjs examples/anthropic-loop.ts` replays the responses
// recorded in test/fixtures/recorded/anthropic.json. With the Anthropic SDK, the model is one line:
//   const model: MessagesModel = (req) => anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 4096, ...req })
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Message, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages'
import { createHost, type Host, type RunOptions } from 'toolhost'
import { RECORDED, replay } from './openai-loop.js'

// The Anthropic SDK's own types: toolhost's definitions and tool_result message fit them without casts.
export type AnthropicMessage = MessageParam
export type AnthropicResponse = Pick<Message, 'role' | 'content' | 'stop_reason'>
export type MessagesModel = (request: { messages: MessageParam[]; tools: Tool[] }) => Promise<AnthropicResponse>

/**
 * Messages API: ask; when the reply has `tool_use` blocks, run them all through the host and answer
 * with ONE user message holding a `tool_result` per block (`is_error` on failures); repeat until
 * the model stops asking for tools.
 */
export async function runAnthropicLoop(host: Host, model: MessagesModel, prompt: string, options: RunOptions & { maxTurns?: number } = {}): Promise<MessageParam[]> {
  const tools: Tool[] = await host.definitions('anthropic')
  const messages: MessageParam[] = [{ role: 'user', content: prompt }]
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
