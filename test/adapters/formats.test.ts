import { describe, expect, test } from 'vitest'
import { toMcpAnnotations } from '../../src/adapters/mcp-definitions.js'
import { toCalls } from '../../src/adapters/parse-batch.js'
import { createHost, defineTool, ToolRegistry, type ToolResult } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

const base = { description: 'A tool.', parameters: { type: 'object' }, handler: () => 'x' } as const

describe('MCP annotations from a tool’s declarations', () => {
  test.each([
    { name: 'defaults: may write; not destructive, as the host itself assumes', spec: {}, hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } },
    { name: 'static read-only', spec: { readOnly: () => true, idempotent: true }, hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
    { name: 'read-only for some arguments only is not a read-only hint', spec: { readOnly: (a: Record<string, unknown>) => a.write !== true }, hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } },
    { name: 'never destructive (static false)', spec: { destructive: () => false }, hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } },
    { name: 'destructive for some arguments: hint true', spec: { destructive: (a: Record<string, unknown>) => a.force === true }, hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } },
    { name: 'a predicate that throws on {} counts as cannot promise', spec: { readOnly: () => { throw new Error('needs args') }, destructive: () => { throw new Error('needs args') } }, hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } },
    { name: 'open world', spec: { openWorld: true, destructive: () => false }, hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true } },
  ])('$name', ({ spec, hints }) => {
    expect(toMcpAnnotations(defineTool({ name: 't', ...base, ...spec }))).toEqual(hints)
  })
})

describe('toCalls: whatever host.run is handed', () => {
  test.each([
    { name: 'ToolCall[] passes through', input: [{ id: 'a', name: 'echo', arguments: '{"text":"x"}' }], calls: [{ id: 'a', name: 'echo', arguments: '{"text":"x"}' }] },
    { name: 'Chat assistant message', input: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{}' } }] }, calls: [{ id: 'c1', name: 'echo', arguments: '{}' }] },
    { name: 'Chat completion (first choice)', input: { choices: [{ message: { role: 'assistant', tool_calls: [{ id: 'c2', type: 'function', function: { name: 'echo', arguments: '' } }] } }] }, calls: [{ id: 'c2', name: 'echo', arguments: '' }] },
    { name: 'Chat assistant message without calls', input: { role: 'assistant', content: 'done' }, calls: [] },
    { name: 'Responses output items (reasoning skipped; call_id wins over id)', input: [{ type: 'reasoning', id: 'rs' }, { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'echo', arguments: '{}' }], calls: [{ id: 'call_1', name: 'echo', arguments: '{}' }] },
    { name: 'Responses response object', input: { object: 'response', output: [{ type: 'function_call', call_id: 'call_2', name: 'echo', arguments: '{}' }] }, calls: [{ id: 'call_2', name: 'echo', arguments: '{}' }] },
    { name: 'a bare { name, arguments } entry is a call', input: [{ type: 'text', text: 'hi' }, { name: 'echo', arguments: '{}' }], calls: [{ id: 'call_1', name: 'echo', arguments: '{}' }] },
    { name: 'an entry with no name and no type still gets a call (so a result), not dropped', input: [{ foo: 1 }], calls: [{ id: 'call_0', name: '', arguments: '' }] },
    { name: 'Anthropic message (text blocks skipped)', input: { role: 'assistant', content: [{ type: 'text', text: 'hi' }, { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'x' } }] }, calls: [{ id: 'toolu_1', name: 'echo', arguments: { text: 'x' } }] },
  ])('$name', ({ input, calls }) => {
    expect(toCalls(input)).toEqual(calls)
  })

  test('something that is no model message is a usage error', () => {
    expect(() => toCalls({ hello: 'world' })).toThrow(expect.objectContaining({ code: 'E_USAGE' }))
  })
})

describe('host.definitions(format) and host.toMessages(results, format)', () => {
  const results: ToolResult[] = [
    { id: 'a', name: 'echo', ok: true, content: 'hi' },
    { id: 'b', name: 'nope', ok: false, content: 'no tool', error: { code: 'E_TOOL_UNKNOWN', message: 'there is no tool named "nope"' } },
  ]

  test('each format renders the same tools in its own shape', async () => {
    const registry = new ToolRegistry()
    const parameters = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
    registry.register(defineTool({ name: 'echo', description: 'Echo.', parameters, readOnly: () => true, handler: () => '' }))
    const host = await createHost({ config: { plugins: { dirs: [] }, env_file: '' }, loadPlugins: false, registry, log: silentLogger })
    try {
      expect(await host.definitions()).toEqual([{ type: 'function', function: { name: 'echo', description: 'Echo.', parameters, strict: false } }])
      expect(await host.definitions('openai')).toEqual(await host.definitions())
      // strict: false stated, so Responses does not normalise the tool to strict (all fields required).
      expect(await host.definitions('openai-responses')).toEqual([{ type: 'function', name: 'echo', description: 'Echo.', parameters, strict: false }])
      expect(await host.definitions('anthropic')).toEqual([{ name: 'echo', description: 'Echo.', input_schema: parameters }])
      expect(await host.definitions('mcp')).toEqual([
        { name: 'echo', description: 'Echo.', inputSchema: parameters, annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false } },
      ])
      expect(await host.definitions('anthropic', { names: ['other'] })).toEqual([])
      await expect(host.definitions('gemini' as 'mcp')).rejects.toThrow(/format must be one of/)

      expect(host.toMessages(results, 'openai-chat')).toEqual([
        { role: 'tool', tool_call_id: 'a', content: 'hi' },
        { role: 'tool', tool_call_id: 'b', content: 'error E_TOOL_UNKNOWN: there is no tool named "nope"' },
      ])
      expect(host.toMessages(results, 'openai-responses')).toEqual([
        { type: 'function_call_output', call_id: 'a', output: 'hi' },
        { type: 'function_call_output', call_id: 'b', output: 'error E_TOOL_UNKNOWN: there is no tool named "nope"' },
      ])
      expect(host.toMessages(results, 'anthropic')).toEqual({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'hi' },
          { type: 'tool_result', tool_use_id: 'b', content: 'E_TOOL_UNKNOWN: there is no tool named "nope"', is_error: true },
        ],
      })
      expect(host.toMessages(results, 'mcp')).toEqual([
        { content: [{ type: 'text', text: 'hi' }], isError: false },
        { content: [{ type: 'text', text: 'E_TOOL_UNKNOWN: there is no tool named "nope"' }], isError: true },
      ])
    } finally {
      await host.close()
    }
  })
})
