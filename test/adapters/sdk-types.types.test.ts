// Type tests against the model SDKs' own parameter types: tsc compiles this file (test/type-tests.test.ts
// under npm test, and npm run typecheck), so a definition or message shape that stops fitting `openai`,
// `@anthropic-ai/sdk` or the MCP SDK fails CI. No cast
// appears anywhere below: every value flows from toolhost into the SDK type as it is. The runtime
// assertions check the same values really carry what the types promise (strict, the rich parts).
import type { MessageParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages'
import type { ChatCompletionMessageParam, ChatCompletionTool, ChatCompletionToolMessageParam } from 'openai/resources/chat/completions'
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses'
import { tool, type Tool as AgentsTool } from '@openai/agents'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry, type Host, type ToolResult } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

let host: Host
const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64')

beforeAll(async () => {
  const registry = new ToolRegistry()
  registry.register(defineTool({
    name: 'read_page',
    description: 'Read a page.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'], additionalProperties: false },
    parallelSafe: true,
    handler: () => ({ content: [{ type: 'text', text: 'page 1' }, { type: 'image', data: png, mimeType: 'image/png' }] }),
  }))
  host = await createHost({ registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } } })
})
afterAll(() => host.close())

async function results(): Promise<ToolResult[]> {
  return host.run([{ id: 'call_1', name: 'read_page', arguments: '{"path":"a.txt"}' }, { id: 'call_2', name: 'nope', arguments: '{}' }])
}

describe('toolhost output is assignable to the SDKs’ types without casts', () => {
  test('OpenAI Chat Completions: ChatCompletionTool[], ChatCompletionToolMessageParam[] and ChatCompletionMessageParam[]', async () => {
    const tools: ChatCompletionTool[] = await host.definitions('openai-chat')
    const plain: ChatCompletionTool[] = await host.definitions()
    const strictTools: ChatCompletionTool[] = await host.definitions('openai', { strict: true })
    const toolMessages: ChatCompletionToolMessageParam[] = host.toMessages(await results(), 'openai-chat')
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'read a.txt' }, ...toolMessages]
    expect(tools).toEqual(plain)
    expect(tools[0]).toMatchObject({ type: 'function', function: { name: 'read_page', strict: false } })
    expect(strictTools[0]).toMatchObject({ function: { strict: true } })
    expect(messages[1]).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: 'page 1\n[image image/png, 8 B, not shown]' })
  })

  test('OpenAI Responses: FunctionTool[] (with strict) and ResponseInputItem[]', async () => {
    const tools: FunctionTool[] = await host.definitions('openai-responses')
    const input: ResponseInputItem[] = [{ role: 'user', content: 'read a.txt' }, ...host.toMessages(await results(), 'openai-responses')]
    expect(tools[0]).toMatchObject({ type: 'function', name: 'read_page', strict: false })
    expect(input[1]).toEqual({
      type: 'function_call_output',
      call_id: 'call_1',
      output: [{ type: 'input_text', text: 'page 1' }, { type: 'input_image', image_url: `data:image/png;base64,${png}` }],
    })
  })

  test('OpenAI Agents: each definition\'s parameters go into tool({ parameters, strict }) as they are (issue 24.18: was TS2322)', async () => {
    const execute = async (): Promise<string> => 'done'
    const asAgentsTools = (definitions: Awaited<ReturnType<typeof host.definitions<'openai-responses'>>>): AgentsTool[] =>
      definitions.map((d) =>
        d.strict
          ? tool({ name: d.name, description: d.description, parameters: d.parameters, strict: true, execute })
          : tool({ name: d.name, description: d.description, parameters: d.parameters, strict: false, execute }),
      )
    const loose = asAgentsTools(await host.definitions('openai-responses'))
    const strict = asAgentsTools(await host.definitions('openai-responses', { strict: true }))
    // What the SDK will send: the schema as registered (lists stated), or toolhost's strict rewrite.
    expect(loose[0]).toMatchObject({ name: 'read_page', strict: false, parameters: { type: 'object', required: ['path'], additionalProperties: false } })
    expect(strict[0]).toMatchObject({ name: 'read_page', strict: true, parameters: { required: ['path', 'limit'], additionalProperties: false } })
  })

  test('OpenAI Agents 0.20: each Chat definition\'s parameters go into tool({ parameters, strict }) as they are (issue 30: was TS2322, ObjectJsonSchema against JsonObjectSchemaNonStrict)', async () => {
    const execute = async (): Promise<string> => 'done'
    const asAgentsTools = (definitions: Awaited<ReturnType<typeof host.definitions<'openai-chat'>>>): AgentsTool[] =>
      definitions.map(({ function: f }) =>
        f.strict
          ? tool({ name: f.name, description: f.description, parameters: f.parameters, strict: true, execute })
          : tool({ name: f.name, description: f.description, parameters: f.parameters, strict: false, execute }),
      )
    const loose = asAgentsTools(await host.definitions('openai-chat'))
    const plain = asAgentsTools(await host.definitions())
    const strict = asAgentsTools(await host.definitions('openai-chat', { strict: true }))
    expect(loose[0]).toMatchObject({ name: 'read_page', strict: false, parameters: { type: 'object', required: ['path'], additionalProperties: false } })
    expect(plain[0]).toMatchObject({ name: 'read_page', strict: false })
    expect(strict[0]).toMatchObject({ name: 'read_page', strict: true, parameters: { required: ['path', 'limit'], additionalProperties: false } })
  })

  test('OpenAI Responses and Chat: a schema without properties or required states them empty (the same schema, the SDKs\' shape)', async () => {
    const registry = new ToolRegistry()
    registry.register(defineTool({ name: 'now', description: 'The time.', parameters: { type: 'object' }, handler: () => 'noon' }))
    const bare = await createHost({ registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '' } })
    try {
      const [d] = await bare.definitions('openai-responses')
      expect(d).toEqual({ type: 'function', name: 'now', description: 'The time.', parameters: { type: 'object', properties: {}, required: [] }, strict: false })
      const [chat] = await bare.definitions('openai-chat')
      expect(chat).toEqual({ type: 'function', function: { name: 'now', description: 'The time.', parameters: { type: 'object', properties: {}, required: [] }, strict: false } })
      // The registry's own schema is untouched.
      expect(registry.entry('now')?.definition.function.parameters).toEqual({ type: 'object' })
    } finally {
      await bare.close()
    }
  })

  test('MCP: the SDK’s Tool[] and CallToolResult[] (for an MCP server of your own)', async () => {
    const tools: McpTool[] = await host.definitions('mcp')
    const answers: CallToolResult[] = host.toMessages(await results(), 'mcp')
    expect(tools[0]).toMatchObject({ name: 'read_page', inputSchema: { type: 'object' }, annotations: { readOnlyHint: false } })
    expect(answers[1]).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('E_TOOL_UNKNOWN') }] })
  })

  test('Anthropic Messages: Tool[], MessageParam and ToolResultBlockParam', async () => {
    const tools: Tool[] = await host.definitions('anthropic')
    const reply: MessageParam = host.toMessages(await results(), 'anthropic')
    const blocks: ToolResultBlockParam[] = host.toMessages(await results(), 'anthropic').content
    const messages: MessageParam[] = [{ role: 'user', content: 'read a.txt' }, reply]
    expect(tools[0]).toMatchObject({ name: 'read_page', input_schema: { type: 'object' } })
    expect(messages).toHaveLength(2)
    expect(blocks[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'call_1',
      content: [{ type: 'text', text: 'page 1' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }],
    })
    expect(blocks[1]).toMatchObject({ is_error: true })
  })
})
