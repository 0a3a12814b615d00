import { describe, expect, test } from 'vitest'
import { defineResource } from '../../src/contract/define-resource.js'
import type { ResourceSpec } from '../../src/contract/prompt-types.js'
import { ToolRegistry } from '../../src/registry/registry.js'

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'

function catalogueOf(...specs: Partial<ResourceSpec>[]) {
  const registry = new ToolRegistry()
  for (const spec of specs) registry.register(defineResource({ name: 'r', description: 'A resource.', mimeType: 'text/plain', read: () => 'x', ...spec } as ResourceSpec))
  return registry.promptsAndResources
}

describe('readResource: which resource answers a URI', () => {
  const catalogue = catalogueOf(
    { uri: 'notes://index', read: () => 'fixed index' },
    { uriTemplate: 'notes://{name}', read: (_u, v) => `note ${v.name}` },
    { uriTemplate: 'notes://{folder}/{name}', read: (_u, v) => `note ${v.folder}/${v.name}` },
    { uriTemplate: 'notes://{a}/{b}/{c}', requiresEnv: ['DEEP'], read: () => 'deep' },
    { uriTemplate: 'notes://{x}/{y}/{z}', read: () => 'fallback' },
  )
  test.each<{ uri: string; text?: string; code?: string; says?: string }>([
    { uri: 'notes://index', text: 'fixed index' },
    { uri: 'notes://todo', text: 'note todo' },
    { uri: 'notes://work/todo%20list', text: 'note work/todo list' },
    { uri: 'notes://1/2/3', text: 'fallback' },
    { uri: 'notes://a/b/c/d', code: 'E_NOT_FOUND', says: 'no resource or resource template matches it' },
    { uri: 'other://todo', code: 'E_NOT_FOUND', says: 'resource "other://todo" not found' },
    { uri: 'notes://%E0%A4%A', code: 'E_ARGS_INVALID', says: 'not valid percent-encoding' },
    { uri: '', code: 'E_ARGS_INVALID', says: 'non-empty string' },
    { uri: `notes://${'x'.repeat(300)}`, code: 'E_ARGS_INVALID', says: 'over 200 characters' },
  ])('$uri', async ({ uri, text, code, says }) => {
    const outcome = catalogue.readResource(uri, { env: {}, maxInputChars: 200 })
    if (code === undefined) await expect(outcome).resolves.toEqual([{ uri, mimeType: 'text/plain', text }])
    else await expect(outcome).rejects.toMatchObject({ code, message: expect.stringContaining(says!) })
  })

  test('only hidden resources match: E_NOT_FOUND with their reasons, and read never runs', async () => {
    let ran = false
    const hidden = catalogueOf({ uriTemplate: 'vault://{key}', requiresEnv: ['VAULT_TOKEN'], read: () => ((ran = true), 'secret') })
    await expect(hidden.readResource('vault://k', { env: {} })).rejects.toMatchObject({ code: 'E_NOT_FOUND', message: expect.stringContaining('vault://{key}: missing env var VAULT_TOKEN') })
    expect(ran).toBe(false)
  })

  test('read gets the URI as asked, the decoded vars, and a signal and env', async () => {
    let seen: unknown[] = []
    const catalogue = catalogueOf({ uriTemplate: 'notes://{name}', read: (uri, vars, ctx) => ((seen = [uri, vars, ctx.signal.aborted, ctx.env.N]), '') })
    await catalogue.readResource('notes://a%20b', { env: { N: '1' } })
    expect(seen).toEqual(['notes://a%20b', { name: 'a b' }, false, '1'])
  })
})

describe('readResource: what read returns becomes MCP contents', () => {
  const uri = 'notes://x'
  test.each<{ why: string; value: unknown; contents: unknown[] }>([
    { why: 'text', value: 'hello', contents: [{ uri, mimeType: 'text/plain', text: 'hello' }] },
    { why: 'bytes, as base64', value: Buffer.from(PNG, 'base64'), contents: [{ uri, mimeType: 'text/plain', blob: PNG }] },
    { why: 'a sliced Uint8Array, only its bytes', value: new Uint8Array([0, 1, 2, 3]).subarray(1, 3), contents: [{ uri, mimeType: 'text/plain', blob: 'AQI=' }] },
    { why: 'a text part with its own mimeType', value: { text: '{}', mimeType: 'application/json' }, contents: [{ uri, mimeType: 'application/json', text: '{}' }] },
    { why: 'a base64 blob part', value: { blob: PNG, mimeType: 'image/png' }, contents: [{ uri, mimeType: 'image/png', blob: PNG }] },
    { why: 'a list of parts with their URIs', value: [{ uri: 'notes://x/1', text: 'a' }, { uri: 'notes://x/2', blob: new Uint8Array([255]) }], contents: [{ uri: 'notes://x/1', mimeType: 'text/plain', text: 'a' }, { uri: 'notes://x/2', mimeType: 'text/plain', blob: '/w==' }] },
    { why: '{ contents }', value: { contents: ['t'] }, contents: [{ uri, mimeType: 'text/plain', text: 't' }] },
  ])('$why', async ({ value, contents }) => {
    await expect(catalogueOf({ uri, read: () => value as never }).readResource(uri)).resolves.toEqual(contents)
  })

  test.each<{ why: string; value: unknown; says: string }>([
    { why: 'a number', value: 42, says: 'part 0, which is not an object' },
    { why: 'both text and blob', value: { text: 'a', blob: 'AA==' }, says: 'part 0 with both `text` and `blob`' },
    { why: 'a blob that is not base64', value: { blob: 'not base64!' }, says: 'part 0 without text, bytes or base64 `blob`' },
    { why: 'an empty part', value: {}, says: 'part 0 without text' },
    { why: 'a mimeType that is a number', value: { text: 'a', mimeType: 1 }, says: 'part 0 with a `mimeType` that is not a string' },
  ])('refuses $why with E_HANDLER_FAILED', async ({ value, says }) => {
    await expect(catalogueOf({ uri, read: () => value as never }).readResource(uri)).rejects.toMatchObject({ code: 'E_HANDLER_FAILED', message: expect.stringContaining(says) })
  })

  test('read throwing E_NOT_FOUND keeps the code (a note that does not exist)', async () => {
    const { ToolhostError } = await import('../../src/contract/errors.js')
    const catalogue = catalogueOf({ uriTemplate: 'notes://{name}', read: (_u, v) => { throw new ToolhostError('E_NOT_FOUND', `no note ${v.name}`) } })
    await expect(catalogue.readResource('notes://gone')).rejects.toMatchObject({ code: 'E_NOT_FOUND', message: 'no note gone' })
  })
})

describe('listResources', () => {
  test('fixed resources, then what each template lists, defaults filled, duplicates once; a failing list loses only its own', async () => {
    const reports: string[] = []
    const catalogue = catalogueOf(
      { uri: 'notes://index', name: 'index', title: 'Index' },
      { uriTemplate: 'notes://{name}', name: 'note', description: 'A note.', mimeType: 'text/markdown', list: () => [{ uri: 'notes://todo' }, { uri: 'notes://ideas', name: 'ideas', mimeType: 'text/plain' }, { uri: 'notes://index' }] },
      { uriTemplate: 'broken://{x}', list: () => { throw new Error('no folder') } },
      { uriTemplate: 'wrong://{x}', list: () => [{ uri: 'elsewhere://1' }, { uri: 'wrong://ok', description: 7 as unknown as string }, { uri: 'wrong://fine' }] },
      { uriTemplate: 'hidden://{x}', requiresEnv: ['NOPE'], list: () => [{ uri: 'hidden://1' }] },
      { uriTemplate: 'unlisted://{x}' },
    )
    const listed = await catalogue.listResources({ env: {}, report: (m) => reports.push(m) })
    expect(listed).toEqual([
      { uri: 'notes://index', name: 'index', title: 'Index', description: 'A resource.', mimeType: 'text/plain' },
      { uri: 'notes://todo', name: 'notes://todo', description: 'A note.', mimeType: 'text/markdown' },
      { uri: 'notes://ideas', name: 'ideas', description: 'A note.', mimeType: 'text/plain' },
      { uri: 'wrong://fine', name: 'wrong://fine', description: 'A resource.', mimeType: 'text/plain' },
    ])
    expect(reports).toEqual([
      expect.stringContaining('the list of resource template "broken://{x}" failed: no folder'),
      expect.stringContaining('item 0 is left out'),
      expect.stringContaining('item 1 is left out'),
    ])
  })

  test('templates come from availableResources(true), fixed ones from (false)', async () => {
    const catalogue = catalogueOf({ uri: 'a://1' }, { uriTemplate: 'a://{x}/t' })
    expect((await catalogue.availableResources(true)).map((e) => e.key)).toEqual(['a://{x}/t'])
    expect((await catalogue.availableResources(false)).map((e) => e.key)).toEqual(['a://1'])
  })
})
