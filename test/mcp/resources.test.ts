/**
 * MCP resources: what toolhost has — saved over-long results and process logs — listed, read,
 * offered as templates, and a running process's log subscribed to (notifications/resources/updated).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { connectInMemory, eventually, makeTempDir } from './serve-helpers.js'

const image = { type: 'image' as const, data: Buffer.alloc(3000, 1).toString('base64'), mimeType: 'image/png' }
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')

describe('MCP resources', { timeout: 30_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-resources-')
  const sessions = new McpSessions()
  let host: Host
  let client: Client
  const updated: string[] = []
  let listChanged = 0

  beforeAll(async () => {
    const registry = new ToolRegistry()
    registry.register(defineTool({
      name: 'long_text',
      description: 'Returns 300 numbered lines (over its 500-character limit).',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      maxResultChars: 500,
      handler: () => Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join('\n'),
    }))
    registry.register(defineTool({
      name: 'long_report',
      description: 'Returns 300 numbered lines beside an image (text over its 500-character limit).',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      maxResultChars: 500,
      handler: () => ({ content: [{ type: 'text', text: lines(300) }, image] }),
    }))
    host = await createHost({ root: tmp.dir, log: silentLogger, loadPlugins: false, registry, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } } })
    ;({ client } = await connectInMemory(host, sessions))
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri))
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++)
  })

  afterAll(async () => {
    await client?.close()
    await host?.close()
    tmp.remove()
  })

  test('templates name both kinds', async () => {
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['toolhost://results/{name}', 'toolhost://processes/{id}/log'])
  })

  test('a result over its limit is saved, listed (list_changed sent) and readable whole', async () => {
    const before = listChanged
    const result = await client.callTool({ name: 'long_text', arguments: {} })
    const text = (result.content as Array<{ text: string }>)[0]!.text
    expect(text).toMatch(/\[truncated: .* saved at /)
    await eventually(() => (listChanged > before ? true : undefined), 'resources/list_changed')
    const { resources } = await client.listResources()
    const saved = resources.find((r) => r.uri.startsWith('toolhost://results/'))
    expect(saved).toMatchObject({ mimeType: 'text/plain', name: expect.stringMatching(/\.txt$/) })
    expect(text).toContain(saved!.name)
    const { contents } = await client.readResource({ uri: saved!.uri })
    expect(contents).toEqual([{ uri: saved!.uri, mimeType: 'text/plain', text: Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join('\n') }])
  })

  test('a block result over its limit keeps its image, and its whole text is readable as the resource its note names', async () => {
    const result = await client.callTool({ name: 'long_report', arguments: {} })
    const blocks = result.content as Array<{ type: string; text?: string }>
    expect(blocks.filter((b) => b.type === 'image')).toEqual([image])
    const note = blocks.at(-1)!.text!
    const name = /saved at \S*?([^/\s]+\.txt)\]$/.exec(note)?.[1]
    expect(name).toBeDefined()
    const { contents } = await client.readResource({ uri: `toolhost://results/${name}` })
    expect(contents).toEqual([{ uri: `toolhost://results/${name}`, mimeType: 'text/plain', text: `${lines(300)}\n[image image/png, 3 KB, not shown]` }])
  })

  test.each([
    { uri: 'toolhost://results/..%2F..%2Fetc%2Fpasswd', why: 'a path out of the results folder' },
    { uri: 'toolhost://results/no-such-file.txt', why: 'a result that was never saved' },
    { uri: 'toolhost://processes/proc_nope/log', why: 'a process that never ran' },
    { uri: 'test://static-text', why: 'a URI toolhost does not serve' },
  ])('reading $why is "resource not found" (-32602 with data.uri, as 2026-07-28 asks of both revisions)', async ({ uri }) => {
    await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32602, data: { uri } })
  })

  test('a running process’s log is a resource; a subscriber hears when it writes and when it ends', async () => {
    const processes = host.services.processes
    const before = listChanged
    const { id } = await processes.spawn(`${JSON.stringify(process.execPath)} -e "console.log('first'); setInterval(() => console.log('more'), 50)"`)
    await eventually(() => (listChanged > before ? true : undefined), 'resources/list_changed for the new process')
    const uri = `toolhost://processes/${id}/log`
    const { resources } = await client.listResources()
    expect(resources.find((r) => r.uri === uri)).toMatchObject({ mimeType: 'text/plain', description: expect.stringContaining('running') })
    await client.subscribeResource({ uri })
    // An update may come for 'first' alone; each later one means more output: read until it is in.
    let text = ''
    for (let updates = 0; !/^first\nmore/.test(text); updates++) {
      expect(updates, `the log still reads ${JSON.stringify(text)}`).toBeLessThan(40)
      updated.length = 0
      await eventually(() => (updated.includes(uri) ? true : undefined), 'notifications/resources/updated while it writes')
      text = ((await client.readResource({ uri })).contents[0] as { text: string }).text
    }
    expect(text).toMatch(/^first\nmore/)
    updated.length = 0
    await processes.kill(id)
    await eventually(() => (updated.includes(uri) ? true : undefined), 'notifications/resources/updated for its end')
    await client.unsubscribeResource({ uri })
  })
})
