// An agent loop in the OpenAI shapes — Chat Completions and Responses — on toolhost.
// Runs without network: `node bin/run-ts.mjs examples/openai-loop.ts [chat|responses]` replays the
// model responses recorded in test/fixtures/recorded/. With the OpenAI SDK, the model is one line:
//   const model: ChatModel = (req) => openai.chat.completions.create({ model: 'gpt-5.4', ...req })
//   const model: ResponsesModel = (req) => openai.responses.create({ model: 'gpt-5.4', ...req })
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ChatCompletion, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { FunctionTool, Response, ResponseInputItem } from 'openai/resources/responses/responses'
import { createHost, type Host, type RunOptions } from 'toolhost'

// The OpenAI SDK's own types: toolhost's definitions and messages fit them without casts.
export type ChatMessage = ChatCompletionMessageParam
export type { ChatCompletion }
export type ChatModel = (request: { messages: ChatCompletionMessageParam[]; tools: ChatCompletionTool[] }) => Promise<ChatCompletion>

export type ResponseItem = ResponseInputItem
export type ResponsesResponse = Pick<Response, 'output'>
export type ResponsesModel = (request: { input: ResponseInputItem[]; tools: FunctionTool[] }) => Promise<ResponsesResponse>

/**
 * Chat Completions: ask, run every `tool_calls` entry through the host, append one `role: 'tool'`
 * message per call (errors included), repeat until the model answers without tools.
 */
export async function runChatLoop(host: Host, model: ChatModel, prompt: string, options: RunOptions & { maxTurns?: number } = {}): Promise<ChatCompletionMessageParam[]> {
  const tools: ChatCompletionTool[] = await host.definitions('openai-chat')
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }]
  for (let turn = 0; turn < (options.maxTurns ?? 8); turn++) {
    const completion = await model({ messages, tools })
    const message = completion.choices[0]!.message
    messages.push(message)
    if (!message.tool_calls || message.tool_calls.length === 0) break
    const results = await host.run(message, options)
    messages.push(...host.toMessages(results, 'openai-chat'))
  }
  return messages
}

/**
 * Responses API: ask, run every `function_call` item, append the output items and one
 * `function_call_output` per call, repeat until a turn has no function calls.
 */
export async function runResponsesLoop(host: Host, model: ResponsesModel, prompt: string, options: RunOptions & { maxTurns?: number } = {}): Promise<ResponseInputItem[]> {
  // strict: false (the default) keeps optional arguments optional; { strict: true } opts in.
  const tools: FunctionTool[] = await host.definitions('openai-responses')
  const input: ResponseInputItem[] = [{ type: 'message', role: 'user', content: prompt }]
  for (let turn = 0; turn < (options.maxTurns ?? 8); turn++) {
    const response = await model({ input, tools })
    // Carry back what the turn produced: its messages, reasoning and function calls.
    input.push(...response.output.filter((item) => item.type === 'message' || item.type === 'reasoning' || item.type === 'function_call'))
    if (!response.output.some((item) => item.type === 'function_call')) break
    const results = await host.run(response, options)
    input.push(...host.toMessages(results, 'openai-responses'))
  }
  return input
}

/** A model that replays recorded responses in order (no network). */
export function replay<T>(responses: readonly T[]): () => Promise<T> {
  let next = 0
  return async () => {
    const response = responses[next++]
    if (response === undefined) throw new Error(`the recording has only ${responses.length} responses`)
    return response
  }
}

export const RECORDED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/recorded')

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const which = process.argv[2] ?? 'chat'
  const host = await createHost({ config: { env_file: '' } })
  try {
    if (which === 'responses') {
      const recorded = JSON.parse(readFileSync(path.join(RECORDED, 'openai-responses.json'), 'utf8')) as { prompt: string; responses: ResponsesResponse[] }
      for (const item of await runResponsesLoop(host, replay(recorded.responses), recorded.prompt)) console.log(JSON.stringify(item))
    } else {
      const recorded = JSON.parse(readFileSync(path.join(RECORDED, 'openai-chat.json'), 'utf8')) as { prompt: string; responses: ChatCompletion[] }
      for (const message of await runChatLoop(host, replay(recorded.responses), recorded.prompt)) console.log(JSON.stringify(message))
    }
  } finally {
    await host.close()
  }
}
