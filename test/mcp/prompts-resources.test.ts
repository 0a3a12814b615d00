/**
 * Plugin prompts, resources and completions served by `createMcpServer` to the v2 SDK client on
 * both revisions (2026-07-28 negotiated by `server/discover`, and the 2025 handshake), in process
 * over the stdio serving path: the capabilities, gating by `requiresEnv` and `check` as for tools,
 * plugin resources beside toolhost's own, errors as Invalid Params, and list changes (a
 * notification to a 2025 session, the `subscriptions/listen` stream for 2026).
 */
import type { Client } from '@modelcontextprotocol/client'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { createHost, definePrompt, defineResource, ToolRegistry, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { notifyOnToolChanges } from '../../src/mcp/server.js'
import { connectV2InMemory, eventually, makeTempDir } from './serve-helpers.js'

const tmp = makeTempDir('toolhost-mcp-prompts-')
afterAll(() => tmp.remove())

interface Opened { host: Host; client: Client; registry: ToolRegistry; close: () => Promise<void> }
let opened: Opened | undefined

afterEach(async () => {
  await opened?.close()
  opened = undefined
})

async function open(mode: 'auto' | 'legacy'): Promise<Opened> {
  const registry = new ToolRegistry()
  registry.register(definePrompt({
    name: 'greet', description: 'Greets someone.',
    arguments: { type: 'object', properties: { who: { type: 'string', description: 'Whom' } }, required: ['who'] },
    complete: { who: ['alice', 'albert', 'bob'] },
    handler: (args) => `Hello, ${args.who}!`,
  }))
  registry.register(definePrompt({ name: 'secret', description: 'Needs a key.', requiresEnv: ['TOOLHOST_TEST_MISSING_KEY'], handler: () => 'hidden' }))
  registry.register(definePrompt({ name: 'checked', description: 'Its check says no.', check: () => false, handler: () => 'hidden' }))
  registry.register(defineResource({ uri: 'notes://todo', name: 'todo', description: 'The list.', mimeType: 'text/plain', read: () => 'buy milk' }))
  registry.register(defineResource({
    uriTemplate: 'notes://day/{day}', name: 'day', description: 'One day.', mimeType: 'text/plain',
    complete: { day: ['monday', 'tuesday'] },
    read: (_uri, vars) => `notes of ${vars.day}`,
  }))
  const sessions = new McpSessions()
  const host = await createHost({
    root: tmp.dir, log: silentLogger, loadPlugins: false, registry, audience: 'model', env: {},
    config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass', audit_log: '' } },
  })
  const stopNotify = notifyOnToolChanges(host, sessions, 5)
  const { client, close } = await connectV2InMemory(host, sessions, { mode })
  opened = {
    host, client, registry,
    close: async () => {
      stopNotify()
      await close()
      await host.close()
    },
  }
  return opened
}

describe.each([['2026-07-28', 'auto'], ['2025', 'legacy']] as const)('on %s', (_revision, mode) => {
  test('declares prompts, resources and completions; lists only what is available', async () => {
    const { client } = await open(mode)
    expect(client.getServerCapabilities()).toMatchObject({ prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true }, completions: {} })
    const { prompts } = await client.listPrompts()
    expect(prompts).toEqual([{ name: 'greet', description: 'Greets someone.', arguments: [{ name: 'who', description: 'Whom', required: true }] }])
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri)).toContain('notes://todo')
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['toolhost://results/{name}', 'toolhost://processes/{id}/log', 'notes://day/{day}'])
  })

  test('gets a prompt, reads fixed and templated resources, completes arguments', async () => {
    const { client } = await open(mode)
    expect((await client.getPrompt({ name: 'greet', arguments: { who: 'ada' } })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, ada!' } }])
    expect((await client.readResource({ uri: 'notes://todo' })).contents).toEqual([{ uri: 'notes://todo', mimeType: 'text/plain', text: 'buy milk' }])
    expect((await client.readResource({ uri: 'notes://day/monday' })).contents).toMatchObject([{ uri: 'notes://day/monday', text: 'notes of monday' }])
    const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'al' } })
    expect(prompt.completion.values).toEqual(['alice', 'albert'])
    const template = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://day/{day}' }, argument: { name: 'day', value: 't' } })
    expect(template.completion.values).toEqual(['tuesday'])
  })

  test('a hidden prompt, an unknown prompt and an unknown URI are Invalid Params', async () => {
    const { client } = await open(mode)
    await expect(client.getPrompt({ name: 'secret' })).rejects.toMatchObject({ code: -32602 })
    await expect(client.getPrompt({ name: 'checked' })).rejects.toMatchObject({ code: -32602 })
    await expect(client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 })
    await expect(client.readResource({ uri: 'notes://elsewhere' })).rejects.toMatchObject({ code: -32602 })
    await expect(client.readResource({ uri: 'toolhost://results/missing.txt' })).rejects.toMatchObject({ code: -32602 })
  })
})

test('2026-07-28: a new prompt and resource reach the client over subscriptions/listen', async () => {
  const { client, registry } = await open('auto')
  const heard: string[] = []
  client.setNotificationHandler('notifications/prompts/list_changed', () => void heard.push('prompts'))
  client.setNotificationHandler('notifications/resources/list_changed', () => void heard.push('resources'))
  const subscription = await client.listen({ promptsListChanged: true, resourcesListChanged: true })
  expect(subscription.honoredFilter).toMatchObject({ promptsListChanged: true, resourcesListChanged: true })
  registry.register(definePrompt({ name: 'late', description: 'Joins later.', handler: () => 'late' }))
  registry.register(defineResource({ uri: 'notes://late', name: 'late', description: 'Joins later.', mimeType: 'text/plain', read: () => 'late' }))
  await eventually(() => (heard.includes('prompts') && heard.includes('resources') ? true : undefined), 'prompts and resources list_changed on the listen stream')
  expect((await client.listPrompts({}, { cacheMode: 'refresh' })).prompts.map((p) => p.name)).toContain('late')
  await subscription.close()
})

test('2025: a new prompt is announced to the session with notifications/prompts/list_changed', async () => {
  const { client, registry } = await open('legacy')
  const heard: string[] = []
  client.setNotificationHandler('notifications/prompts/list_changed', () => void heard.push('prompts'))
  registry.register(definePrompt({ name: 'late', description: 'Joins later.', handler: () => 'late' }))
  await eventually(() => (heard.includes('prompts') ? true : undefined), 'notifications/prompts/list_changed')
  expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet', 'late'])
})
