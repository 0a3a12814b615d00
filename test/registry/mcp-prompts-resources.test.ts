import { describe, expect, test } from 'vitest'
import { definePrompt } from '../../src/contract/define-prompt.js'
import { defineResource } from '../../src/contract/define-resource.js'
import { answerMcpPromptsResources, MCP_PROMPT_RESOURCE_METHODS, mcpErrorOf } from '../../src/registry/mcp-prompts-resources.js'
import { ToolRegistry } from '../../src/registry/registry.js'

const registry = new ToolRegistry()
registry.register(
  definePrompt({
    name: 'review',
    title: 'Review',
    description: 'Review a file.',
    arguments: { type: 'object', properties: { path: { type: 'string', title: 'Path', description: 'The file' }, focus: { type: 'string' } }, required: ['path'] },
    complete: { path: ['README.md'] },
    handler: (args) => `Review ${args.path}.`,
  }),
)
registry.register(definePrompt({ name: 'bare', description: 'No arguments.', handler: () => 'hi' }))
registry.register(definePrompt({ name: 'hidden', description: 'Gated.', requiresEnv: ['NOPE'], handler: () => 'hi' }))
registry.register(definePrompt({ name: 'fails', description: 'Fails.', handler: () => { throw new Error('broken') } }))
registry.register(defineResource({ uri: 'notes://index', name: 'index', description: 'All notes.', mimeType: 'text/markdown', read: () => '# index' }))
registry.register(defineResource({ uriTemplate: 'notes://{name}', name: 'note', title: 'Note', description: 'A note.', mimeType: 'text/markdown', list: () => [{ uri: 'notes://todo' }], read: (_u, v) => `# ${v.name}` }))
const catalogue = registry.promptsAndResources
const answer = (method: string, params?: unknown) => answerMcpPromptsResources(catalogue, method, params, { env: {} })

describe('answerMcpPromptsResources: results in the MCP shapes', () => {
  test('prompts/list: available prompts, arguments from the schema', async () => {
    await expect(answer('prompts/list', {})).resolves.toEqual({
      result: {
        prompts: [
          { name: 'bare', description: 'No arguments.' },
          { name: 'fails', description: 'Fails.' },
          { name: 'review', title: 'Review', description: 'Review a file.', arguments: [{ name: 'path', title: 'Path', description: 'The file', required: true }, { name: 'focus', required: false }] },
        ],
      },
    })
  })

  test.each<{ method: string; params: unknown; result: unknown }>([
    { method: 'prompts/get', params: { name: 'review', arguments: { path: 'a.md' } }, result: { description: 'Review a file.', messages: [{ role: 'user', content: { type: 'text', text: 'Review a.md.' } }] } },
    { method: 'prompts/get', params: { name: 'bare' }, result: { description: 'No arguments.', messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] } },
    {
      method: 'resources/list',
      params: undefined,
      result: { resources: [{ uri: 'notes://index', name: 'index', description: 'All notes.', mimeType: 'text/markdown' }, { uri: 'notes://todo', name: 'notes://todo', description: 'A note.', mimeType: 'text/markdown' }] },
    },
    { method: 'resources/templates/list', params: {}, result: { resourceTemplates: [{ uriTemplate: 'notes://{name}', name: 'note', title: 'Note', description: 'A note.', mimeType: 'text/markdown' }] } },
    { method: 'resources/read', params: { uri: 'notes://todo' }, result: { contents: [{ uri: 'notes://todo', mimeType: 'text/markdown', text: '# todo' }] } },
    { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'path', value: 'R' } }, result: { completion: { values: ['README.md'], total: 1, hasMore: false } } },
    { method: 'completion/complete', params: { ref: { type: 'ref/resource', uri: 'notes://{name}' }, argument: { name: 'name', value: '' }, context: { arguments: {} } }, result: { completion: { values: [], total: 0, hasMore: false } } },
  ])('$method $params', async ({ method, params, result }) => {
    await expect(answer(method, params)).resolves.toEqual({ result })
  })
})

describe('answerMcpPromptsResources: errors as JSON-RPC errors, never a throw', () => {
  test.each<{ method: string; params: unknown; code: number; toolhostCode: string; uri?: string }>([
    { method: 'prompts/get', params: { name: 'nope' }, code: -32602, toolhostCode: 'E_NOT_FOUND' },
    { method: 'prompts/get', params: { name: 'hidden' }, code: -32602, toolhostCode: 'E_NOT_FOUND' },
    { method: 'prompts/get', params: { name: 'review', arguments: {} }, code: -32602, toolhostCode: 'E_ARGS_INVALID' },
    { method: 'prompts/get', params: { name: 'review', arguments: { path: 1 } }, code: -32602, toolhostCode: 'E_ARGS_INVALID' },
    { method: 'prompts/get', params: {}, code: -32602, toolhostCode: 'E_ARGS_INVALID' },
    { method: 'prompts/get', params: null, code: -32602, toolhostCode: 'E_ARGS_INVALID' },
    { method: 'prompts/get', params: { name: 'fails' }, code: -32603, toolhostCode: 'E_HANDLER_FAILED' },
    { method: 'resources/read', params: { uri: 'other://x' }, code: -32602, toolhostCode: 'E_NOT_FOUND', uri: 'other://x' },
    { method: 'resources/read', params: { uri: 5 }, code: -32602, toolhostCode: 'E_ARGS_INVALID' },
    { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'review' } }, code: -32602, toolhostCode: 'E_ARGS_INVALID' },
    { method: 'completion/complete', params: { ref: 'review', argument: { name: 'path', value: '' } }, code: -32602, toolhostCode: 'E_ARGS_INVALID' },
    { method: 'tools/list', params: {}, code: -32601, toolhostCode: 'E_USAGE' },
  ])('$method $params → $code $toolhostCode', async ({ method, params, code, toolhostCode, uri }) => {
    const got = await answer(method, params)
    expect(got).toEqual({ error: { code, message: expect.any(String), data: uri === undefined ? { toolhostCode } : { toolhostCode, uri } } })
  })

  test('mcpErrorOf: a value that is not a ToolhostError is an internal error with its message', () => {
    expect(mcpErrorOf(new TypeError('bug'))).toEqual({ code: -32603, message: 'bug', data: { toolhostCode: 'E_HANDLER_FAILED' } })
  })

  test('the methods answered', () => {
    expect(MCP_PROMPT_RESOURCE_METHODS).toEqual(['prompts/list', 'prompts/get', 'resources/list', 'resources/templates/list', 'resources/read', 'completion/complete'])
  })
})
