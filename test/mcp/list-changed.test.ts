import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { connectStdio, eventually, makeTempDir, startHttpServer } from './serve-helpers.js'

const plugin = (description: string): string => `import { defineTool, registry } from 'toolhost'
registry.register(defineTool({
  name: 'dyn_tool',
  description: ${JSON.stringify(description)},
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  parallelSafe: true,
  handler: () => ${JSON.stringify(description)},
}))
`

describe('serve --watch: tools/list_changed after a plugin file is added, changed and removed', { timeout: 90_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-watch-')
  const plugins = path.join(tmp.dir, 'plugins')
  const file = path.join(plugins, 'dyn.ts')
  let client: Client
  let stderr: () => string
  let changes = 0
  beforeAll(async () => {
    mkdirSync(plugins)
    writeFileSync(path.join(tmp.dir, 'config.yaml'), 'env_file: ""\nplugins:\n  dirs: [plugins]\n  builtins: false\npermissions:\n  mode: bypass\n')
    ;({ client, stderr } = await connectStdio(['--config', path.join(tmp.dir, 'config.yaml'), '--watch'], { root: tmp.dir }))
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++
    })
  }, 60_000)
  afterAll(async () => {
    await client?.close()
    tmp.remove()
  })

  // Waits for a list_changed after `before`, then for the listed tools to read `expected` (a
  // notification from an earlier step may arrive late, so the list is polled too).
  const expectChange = async (before: number, expected: string[], what: string): Promise<void> => {
    await eventually(() => (changes > before ? true : undefined), what, 20_000)
    const until = Date.now() + 20_000
    let listed: string[] = []
    while (Date.now() < until) {
      listed = (await client.listTools()).tools.map((t) => `${t.name}: ${t.description}`)
      if (JSON.stringify(listed) === JSON.stringify(expected)) return
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(listed).toEqual(expected)
  }

  test('added, changed, broken (old tools kept), removed', async () => {
    expect((await client.listTools()).tools).toEqual([])

    let before = changes
    writeFileSync(file, plugin('first version'))
    await expectChange(before, ['dyn_tool: first version'], 'list_changed after adding a plugin')
    expect(await client.callTool({ name: 'dyn_tool', arguments: {} })).toMatchObject({ content: [{ text: 'first version' }] })

    before = changes
    writeFileSync(file, plugin('second version'))
    await expectChange(before, ['dyn_tool: second version'], 'list_changed after changing it')
    expect(await client.callTool({ name: 'dyn_tool', arguments: {} })).toMatchObject({ content: [{ text: 'second version' }] })

    // A version that fails to load: the old tool keeps serving (the change notifications may still fire).
    writeFileSync(file, `${plugin('broken version')}\nthrow new Error('broken on purpose')\n`)
    await eventually(() => (stderr().includes('failed to reload') ? true : undefined), 'the reload failure on stderr', 20_000)
    expect(stderr()).toContain('broken on purpose')
    expect(await client.callTool({ name: 'dyn_tool', arguments: {} })).toMatchObject({ content: [{ text: 'second version' }] })

    before = changes
    rmSync(file)
    await expectChange(before, [], 'list_changed after removing it')
  })
})

describe('serve --http --watch: a 2026-07-28 client hears of a new plugin over subscriptions/listen', { timeout: 90_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-watch-http-')
  const plugins = path.join(tmp.dir, 'plugins')
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined
  let client: ClientV2 | undefined
  const lists: string[][] = []
  beforeAll(async () => {
    mkdirSync(plugins)
    writeFileSync(path.join(tmp.dir, 'config.yaml'), 'env_file: ""\nplugins:\n  dirs: [plugins]\n  builtins: false\npermissions:\n  mode: bypass\nserve:\n  console: "off"\n')
    server = await startHttpServer(['--config', path.join(tmp.dir, 'config.yaml'), '--watch'], tmp.dir)
    // listChanged opens subscriptions/listen on a 2026 connection, and lists the tools again on each change.
    client = new ClientV2({ name: 'toolhost-test-v2', version: '2.0.0' }, {
      versionNegotiation: { mode: 'auto' },
      listChanged: { tools: { onChanged: (_error, tools) => void lists.push((tools ?? []).map((t) => t.name)) } },
    })
    await client.connect(new StreamableHTTPClientTransport(server.url))
  }, 60_000)
  afterAll(async () => {
    await client?.close()
    await server?.stop()
    tmp.remove()
  })

  test('added: the listen stream says so, and the refreshed list has it', async () => {
    expect(client!.getProtocolEra()).toBe('modern')
    expect((await client!.listTools()).tools).toEqual([])
    writeFileSync(path.join(plugins, 'dyn.ts'), plugin('over listen'))
    await eventually(() => (lists.some((names) => names.includes('dyn_tool')) ? true : undefined), 'a refreshed list with dyn_tool after list_changed', 20_000)
    expect(await client!.callTool({ name: 'dyn_tool', arguments: {} })).toMatchObject({ content: [{ text: 'over listen' }] })
  })
})
