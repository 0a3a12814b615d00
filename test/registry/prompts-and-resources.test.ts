import { describe, expect, test } from 'vitest'
import { definePrompt } from '../../src/contract/define-prompt.js'
import { defineResource } from '../../src/contract/define-resource.js'
import { isToolhostError } from '../../src/contract/errors.js'
import type { CheckOutcome } from '../../src/contract/types.js'
import type { ListChange } from '../../src/registry/prompt-entries.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import { defineTool } from '../../src/contract/define-tool.js'

const prompt = (name: string, extra: object = {}) => definePrompt({ name, description: `prompt ${name}`, handler: () => name, ...extra })
const resource = (uri: string, extra: object = {}) => defineResource({ uri, name: uri, description: `resource ${uri}`, mimeType: 'text/plain', read: () => uri, ...extra })
const template = (uriTemplate: string, extra: object = {}) => defineResource({ uriTemplate, name: uriTemplate, description: `template ${uriTemplate}`, mimeType: 'text/plain', read: () => uriTemplate, ...extra })

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    return isToolhostError(error) ? error.code : String(error)
  }
  return undefined
}

describe('registry.register takes prompts and resources beside tools', () => {
  test('each goes to its own list; lists are sorted', () => {
    const registry = new ToolRegistry()
    registry.register(prompt('zeta'))
    registry.register(prompt('alpha'))
    registry.register(template('notes://{name}'))
    registry.register(resource('notes://index'))
    registry.register(defineTool({ name: 'tool', description: 'd', parameters: { type: 'object' }, handler: () => '' }))
    const { promptsAndResources } = registry
    expect(promptsAndResources.prompts().map((e) => e.prompt.name)).toEqual(['alpha', 'zeta'])
    expect(promptsAndResources.resources().map((e) => e.key)).toEqual(['notes://index', 'notes://{name}'])
    expect(registry.list().map((t) => t.name)).toEqual(['tool'])
    expect(promptsAndResources.getPrompt('alpha')?.prompt.description).toBe('prompt alpha')
    expect(promptsAndResources.getResource('notes://{name}')?.resource.variables).toEqual(['name'])
  })

  test('a bare spec with kind is checked as definePrompt would, naming the file', () => {
    const registry = new ToolRegistry()
    const bad = { ...prompt('ok'), name: 'not ok' }
    expect(codeOf(() => registry.register(bad, { source: '/p/bad.ts' }))).toBe('E_SCHEMA_INVALID')
    try {
      registry.register(bad, { source: '/p/bad.ts' })
    } catch (error) {
      expect((error as Error).message).toMatch(/^\/p\/bad\.ts: definePrompt: `name`/)
    }
  })

  test('an invalid arguments schema (ajv strict) fails at registration', () => {
    const registry = new ToolRegistry()
    const spec = prompt('strict', { arguments: { type: 'object', properties: { a: { type: 'string', minLenght: 1 } } } })
    expect(codeOf(() => registry.register(spec))).toBe('E_SCHEMA_INVALID')
    expect(registry.promptsAndResources.getPrompt('strict')).toBeUndefined()
  })

  test.each([
    { what: 'a prompt name', first: prompt('twice'), second: prompt('twice') },
    { what: 'a resource URI', first: resource('notes://index'), second: resource('notes://index', { name: 'other' }) },
    { what: 'a template', first: template('notes://{name}'), second: template('notes://{name}', { name: 'other' }) },
  ])('$what registered twice is E_DUPLICATE_TOOL naming both files', ({ first, second }) => {
    const registry = new ToolRegistry()
    registry.register(first, { source: '/p/one.ts' })
    let message = ''
    try {
      registry.register(second, { source: '/p/two.ts' })
    } catch (error) {
      expect(isToolhostError(error) && error.code).toBe('E_DUPLICATE_TOOL')
      message = (error as Error).message
    }
    expect(message).toContain('/p/one.ts')
    expect(message).toContain('/p/two.ts')
  })

  test('a prompt and a tool may share a name (different lists)', () => {
    const registry = new ToolRegistry()
    registry.register(prompt('same'))
    registry.register(defineTool({ name: 'same', description: 'd', parameters: { type: 'object' }, handler: () => '' }))
    expect(registry.has('same')).toBe(true)
    expect(registry.promptsAndResources.getPrompt('same')).toBeDefined()
  })
})

describe('availability: fail closed, decided per request, as for tools', () => {
  const never = (): Promise<CheckOutcome> => new Promise(() => {})
  test.each<{ why: string; extra: object; reason: string | undefined }>([
    { why: 'no gating', extra: {}, reason: undefined },
    { why: 'its env var set', extra: { requiresEnv: ['SET_VAR'] }, reason: undefined },
    { why: 'a missing env var', extra: { requiresEnv: ['UNSET_VAR'] }, reason: 'missing env var UNSET_VAR' },
    { why: 'a check answering false with a reason', extra: { check: () => ({ available: false, reason: 'no notes folder' }) }, reason: 'no notes folder' },
    { why: 'a check that throws', extra: { check: () => { throw new Error('boom') } }, reason: 'check threw: boom' },
    { why: 'a check that never answers', extra: { check: never }, reason: 'check took longer than 20 ms' },
    { why: 'a check quoting the secret', extra: { requiresEnv: ['SET_VAR'], check: () => ({ available: false, reason: 'bad token s3cret-value' }) }, reason: 'bad token [value of SET_VAR]' },
  ])('$why', async ({ extra, reason }) => {
    const registry = new ToolRegistry()
    registry.register(prompt('gated', extra))
    registry.register(resource('notes://gated', extra))
    registry.register(template('notes://{gated}', extra))
    const options = { env: { SET_VAR: 's3cret-value' }, checkTimeoutMs: 20 }
    const { promptsAndResources } = registry
    const offered = reason === undefined
    expect((await promptsAndResources.availablePrompts(options)).length).toBe(offered ? 1 : 0)
    expect((await promptsAndResources.availableResources(false, options)).length).toBe(offered ? 1 : 0)
    expect((await promptsAndResources.availableResources(true, options)).length).toBe(offered ? 1 : 0)
    const explained = await promptsAndResources.explainAvailability(options)
    expect(explained.map((a) => a.name)).toEqual(['prompt gated', 'resource notes://gated', 'resource notes://{gated}'])
    for (const a of explained) expect(a.reason).toBe(reason)
    for (const a of explained) expect(a.reason ?? '').not.toContain('s3cret-value')
  })
})

describe('listChanged: one event per change, saying which lists', () => {
  test('register, replace a file, remove a file, clear', async () => {
    const registry = new ToolRegistry()
    const changes: ListChange[] = []
    const off = registry.promptsAndResources.onListChanged((c) => changes.push(c))
    registry.register(prompt('a'))
    registry.register(resource('notes://a'))
    await registry.replaceSource('/p/file.ts', async () => {
      registry.register(prompt('b'))
      registry.register(template('notes://{b}'))
    })
    await registry.replaceSource('/p/file.ts', async () => registry.register(prompt('b')))
    registry.unregisterSource('/p/file.ts')
    registry.unregisterSource('/p/file.ts')
    registry.clear()
    off()
    registry.register(prompt('unheard'))
    expect(changes).toEqual([
      { prompts: true, resources: false },
      { prompts: false, resources: true },
      { prompts: true, resources: true },
      { prompts: true, resources: true },
      { prompts: true, resources: false },
      { prompts: true, resources: true },
    ])
  })

  test('a listener that throws costs no registration', () => {
    const registry = new ToolRegistry()
    registry.promptsAndResources.onListChanged(() => {
      throw new Error('listener fault')
    })
    registry.register(prompt('kept'))
    expect(registry.promptsAndResources.getPrompt('kept')).toBeDefined()
  })
})

describe('replaceSource stages prompts and resources with the file’s tools', () => {
  test('a load that fails changes nothing: the old prompts and resources keep serving', async () => {
    const registry = new ToolRegistry()
    await registry.replaceSource('/p/f.ts', async () => {
      registry.register(prompt('p', { description: 'v1' }))
      registry.register(resource('notes://r'))
    })
    await expect(
      registry.replaceSource('/p/f.ts', async () => {
        registry.register(prompt('p', { description: 'v2' }))
        throw new Error('v2 is broken')
      }),
    ).rejects.toThrow('v2 is broken')
    expect(registry.promptsAndResources.getPrompt('p')?.prompt.description).toBe('v1')
    expect(registry.promptsAndResources.getResource('notes://r')).toBeDefined()
  })

  test('while staged, the old version is still what a request finds; after, the new one', async () => {
    const registry = new ToolRegistry()
    await registry.replaceSource('/p/f.ts', async () => registry.register(prompt('p', { description: 'v1' })))
    let during: string | undefined
    await registry.replaceSource('/p/f.ts', async () => {
      registry.register(prompt('p', { description: 'v2' }))
      during = registry.promptsAndResources.getPrompt('p')?.prompt.description
    })
    expect(during).toBe('v1')
    expect(registry.promptsAndResources.getPrompt('p')?.prompt.description).toBe('v2')
  })

  test('a name another file holds fails the load, and nothing of it is registered (its tools neither)', async () => {
    const registry = new ToolRegistry()
    registry.register(prompt('taken'), { source: '/p/other.ts' })
    await expect(
      registry.replaceSource('/p/f.ts', async () => {
        registry.register(defineTool({ name: 'f_tool', description: 'd', parameters: { type: 'object' }, handler: () => '' }))
        registry.register(resource('notes://f'))
        registry.register(prompt('taken'))
      }),
    ).rejects.toMatchObject({ code: 'E_DUPLICATE_TOOL' })
    expect(registry.has('f_tool')).toBe(false)
    expect(registry.promptsAndResources.getResource('notes://f')).toBeUndefined()
    expect(registry.promptsAndResources.getPrompt('taken')?.source).toBe('/p/other.ts')
    expect(registry.promptsAndResources.hasSource('/p/f.ts')).toBe(false)
  })

  test('a file dropping a prompt on reload loses it; hasSource follows', async () => {
    const registry = new ToolRegistry()
    await registry.replaceSource('/p/f.ts', async () => {
      registry.register(prompt('kept'))
      registry.register(prompt('dropped'))
    })
    expect(registry.promptsAndResources.hasSource('/p/f.ts')).toBe(true)
    await registry.replaceSource('/p/f.ts', async () => registry.register(prompt('kept')))
    expect(registry.promptsAndResources.prompts().map((e) => e.prompt.name)).toEqual(['kept'])
    registry.unregisterSource('/p/f.ts')
    expect(registry.promptsAndResources.hasSource('/p/f.ts')).toBe(false)
  })
})
