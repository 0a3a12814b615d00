import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry, type AskRequest, type Host, type HostEvent } from '../../src/index.js'
import { internalsOf } from '../../src/host/host.js'
import { silentLogger } from '../../src/contract/logger.js'
import { localName } from '../../src/mcp-client/remote-tool.js'
import { serveHttp } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { connectInMemory, eventually, makeTempDir, REPO } from '../mcp/serve-helpers.js'

const fixtureServer = (env: Record<string, string>, parallelSafe: boolean) => ({
  command: process.execPath,
  args: [path.join(REPO, 'bin/run-ts.mjs'), path.join(REPO, 'test/fixtures/mcp/server.ts')],
  env,
  parallel_safe: parallelSafe,
})

describe('mcp_servers: a stdio MCP server written with the SDK joins the registry', { timeout: 60_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-client-')
  const abortLog = path.join(tmp.dir, 'aborts.log')
  const asked: AskRequest[] = []
  let host: Host
  beforeAll(async () => {
    host = await createHost({
      root: tmp.dir,
      log: silentLogger,
      // The built-in tools too: a remote read must wait for a built-in write_file of the same file.
      plugins: [path.join(REPO, 'plugins')],
      ask: async (request) => (asked.push(request), { name: 'Ada' }),
      config: {
        plugins: { dirs: [] },
        env_file: '',
        permissions: { mode: 'bypass' },
        dispatch: { interrupt_grace_ms: 2000, path_scoped: ['mcp_fy_read_*'] },
        mcp_servers: { fx: fixtureServer({ FIXTURE_ABORT_LOG: abortLog, FIXTURE_ROOT: tmp.dir }, true), fy: fixtureServer({ FIXTURE_ROOT: tmp.dir }, false) },
      },
    })
  }, 60_000)
  afterAll(async () => {
    await host?.close()
    tmp.remove()
  })

  test('each remote tool is registered as mcp_<server>_<tool> with its input schema', async () => {
    expect(host.services.mcpClients?.map((c) => [c.server, c.connected])).toEqual([['fx', true], ['fy', true]])
    const defs = await host.definitions('anthropic')
    const add = defs.find((d) => d.name === 'mcp_fx_add')
    expect(add?.input_schema).toEqual({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false })
    expect(defs.map((d) => d.name)).toEqual(expect.arrayContaining(['mcp_fx_fail', 'mcp_fx_slow', 'mcp_fy_add']))
  })

  test('calls: a result, an isError result, and schema validation before the call leaves the host', async () => {
    const [sum, failed, invalid] = await host.run([
      { id: '1', name: 'mcp_fx_add', arguments: { a: 2, b: 3 } },
      { id: '2', name: 'mcp_fx_fail', arguments: {} },
      { id: '3', name: 'mcp_fx_add', arguments: { a: 'two' } },
    ])
    expect(sum).toMatchObject({ ok: true, content: '5' })
    expect(failed).toMatchObject({ ok: false, error: { code: 'E_TOOL_FAILED' } })
    expect(failed!.content).toContain('the fixture server says no')
    expect(invalid).toMatchObject({ ok: false, error: { code: 'E_ARGS_INVALID' } })
  })

  test('concurrency follows readOnlyHint only for a parallel_safe server; otherwise a barrier', () => {
    const footprint = (name: string) => internalsOf(host).footprintOf(host.registry.get(name)!, { a: 1, b: 2 }).kind
    expect(footprint('mcp_fx_add')).toBe('free')
    expect(footprint('mcp_fx_slow')).toBe('barrier') // no readOnlyHint
    expect(footprint('mcp_fy_add')).toBe('barrier') // fy is not parallel_safe
    expect(host.registry.get('mcp_fx_add')!.readOnly({})).toBe(true)
    expect(host.registry.get('mcp_fy_add')!.readOnly({})).toBe(false)
  })

  test('a schema with keywords strict JSON Schema refuses is kept without them and still checked locally', async () => {
    const connection = host.services.mcpClients!.find((c) => c.server === 'fx')!
    expect(connection.problems).toContainEqual(expect.stringMatching(/^mcp_fx_odd_schema: .*x-widget at \/properties\/q/))
    expect(host.registry.get('mcp_fx_odd_schema')!.parameters).toEqual({ type: 'object', properties: { q: { type: 'string' } } })
    const [ok, bad] = await host.run([
      { id: 'o', name: 'mcp_fx_odd_schema', arguments: { q: 'hi' } },
      { id: 'p', name: 'mcp_fx_odd_schema', arguments: { q: 5 } },
    ])
    expect(ok).toMatchObject({ ok: true, content: 'q=hi' })
    expect(bad).toMatchObject({ ok: false, error: { code: 'E_ARGS_INVALID' } })
  })

  test('2020-12 and draft-07 schemas are kept as they are ($defs, definitions, $ref) and validated locally', async () => {
    expect(host.registry.get('mcp_fx_lookup_by_id')!.parameters).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: { id: { pattern: '^[a-z]+$' } } })
    const results = await host.run([
      { id: '1', name: 'mcp_fx_lookup_by_id', arguments: { id: 'abc' } },
      { id: '2', name: 'mcp_fx_lookup_by_id', arguments: { id: '123' } },
      { id: '3', name: 'mcp_fx_legacy', arguments: { n: 2 } },
      { id: '4', name: 'mcp_fx_legacy', arguments: { n: 0 } },
    ])
    expect(results.map((r) => [r.ok, r.ok ? r.content : r.error?.code])).toEqual([[true, 'found abc'], [false, 'E_ARGS_INVALID'], [true, 'n=2'], [false, 'E_ARGS_INVALID']])
  })

  test('names are mapped to the model-safe alphabet and back; a collision is refused naming both', () => {
    const connection = host.services.mcpClients!.find((c) => c.server === 'fx')!
    expect(connection.tools).toContain('mcp_fx_lookup_by_id') // lookup.by_id, called back under its own name above
    expect(connection.tools.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name))).toBe(true)
    expect(connection.problems).toContainEqual(expect.stringMatching(/"lookup_by_id" is not offered: its name maps to mcp_fx_lookup_by_id, which "lookup\.by_id" of the same server already has/))
  })

  test('regression (issue 13): a trusted read-only tool taking `path` waits for a built-in write_file of that file', async () => {
    expect(internalsOf(host).footprintOf(host.registry.get('mcp_fx_read_text_file')!, { path: 'notes.txt' })).toMatchObject({ kind: 'scoped', touches: [{ label: 'notes.txt', access: 'read' }] })
    const [write, read] = await host.run([
      { id: 'w', name: 'write_file', arguments: { path: 'notes.txt', content: 'written first' } },
      { id: 'r', name: 'mcp_fx_read_text_file', arguments: { path: 'notes.txt' } },
    ], { trace: true })
    expect(write).toMatchObject({ ok: true })
    expect(read).toMatchObject({ ok: true, content: 'written first', waitedFor: ['w'] })
  })

  test('dispatch.path_scoped takes globs: mcp_fy_read_* is path-scoped (an untrusted server: writes)', () => {
    expect(internalsOf(host).footprintOf(host.registry.get('mcp_fy_read_text_file')!, { path: 'a.txt' })).toMatchObject({ kind: 'scoped', touches: [{ label: 'a.txt', access: 'write' }] })
    expect(internalsOf(host).footprintOf(host.registry.get('mcp_fy_legacy')!, { n: 1 }).kind).toBe('barrier')
  })

  test('image and structured results pass through as blocks, and reach an MCP client of toolhost unchanged', async () => {
    const [result] = await host.run([{ id: 'pic', name: 'mcp_fx_picture', arguments: {} }])
    const image = { type: 'image', data: expect.stringMatching(/^iVBOR/), mimeType: 'image/png' }
    expect(result).toMatchObject({ ok: true, blocks: [image, { type: 'text', text: 'a red pixel' }], structuredContent: { pixels: 1 } })
    expect(host.registry.get('mcp_fx_picture')!.outputSchema).toMatchObject({ required: ['pixels'] })
    const { client } = await connectInMemory(host, new McpSessions())
    try {
      const served = await client.callTool({ name: 'mcp_fx_picture', arguments: {} })
      expect(served).toMatchObject({ isError: false, content: [image, { type: 'text', text: 'a red pixel' }], structuredContent: { pixels: 1 } })
      const listed = (await client.listTools()).tools.find((t) => t.name === 'mcp_fx_picture')
      expect(listed?.outputSchema).toMatchObject({ properties: { pixels: { type: 'integer' } } })
    } finally {
      await client.close()
    }
  })

  test('the client declares roots (the workspace) and elicitation; a server’s question goes to the host’s asker', async () => {
    const [caps] = await host.run([{ id: 'c', name: 'mcp_fx_roots_and_capabilities', arguments: {} }])
    expect(JSON.parse(caps!.content)).toEqual({
      capabilities: { roots: { listChanged: false }, elicitation: { form: {} } },
      roots: [{ uri: pathToFileURL(host.root).href, name: path.basename(host.root) }],
    })
    asked.length = 0
    const [answer] = await host.run([{ id: 'ask-1', name: 'mcp_fx_ask_name', arguments: {} }])
    expect(JSON.parse(answer!.content)).toEqual({ action: 'accept', content: { name: 'Ada' } })
    expect(asked).toEqual([{ question: 'What is your name?', schema: { type: 'object', properties: { name: { type: 'string', title: 'Name', default: 'Anonymous' } }, required: ['name'] }, callId: 'ask-1' }])
  })

  test('remote progress reaches host progress events; an interrupt cancels the remote call', async () => {
    const controller = new AbortController()
    const events: HostEvent[] = []
    const stop = host.onEvent((e) => {
      events.push(e)
      if (e.type === 'progress' && e.id === 's' && e.progress === 3) controller.abort()
    })
    try {
      const [result] = await host.run([{ id: 's', name: 'mcp_fx_slow', arguments: { steps: 1000 } }], { signal: controller.signal })
      expect(result).toMatchObject({ ok: false, error: { code: 'E_INTERRUPTED' } })
      expect(events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(3)
      await eventually(() => (existsSync(abortLog) && readFileSync(abortLog, 'utf8').includes('slow cancelled') ? true : undefined), 'the server to see the cancellation')
    } finally {
      stop()
    }
  })

  test('availability is tied to the connection: when the server goes away its tools are hidden', async () => {
    await host.run([{ id: 'x', name: 'mcp_fy_exit_now', arguments: {} }])
    await eventually(() => (host.services.mcpClients!.find((c) => c.server === 'fy')!.connected ? undefined : true), 'fy to disconnect')
    expect(await host.registry.availabilityOf('mcp_fy_add')).toMatchObject({ available: false })
    const [result] = await host.run([{ id: 'y', name: 'mcp_fy_add', arguments: { a: 1, b: 1 } }])
    expect(result).toMatchObject({ ok: false, error: { code: 'E_TOOL_UNAVAILABLE' } })
    expect((await host.definitions()).some((d) => d.function.name === 'mcp_fy_add')).toBe(false)
  })
})

describe('mcp_servers: a host that cannot ask a person', { timeout: 60_000 }, () => {
  test('declares no elicitation, so the server knows not to ask', async () => {
    const tmp = makeTempDir('toolhost-mcp-client-noask-')
    const host = await createHost({ root: tmp.dir, log: silentLogger, loadPlugins: false, registry: new ToolRegistry(), config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, mcp_servers: { fz: fixtureServer({}, false) } } })
    try {
      const [caps, ask] = await host.run([
        { id: 'c', name: 'mcp_fz_roots_and_capabilities', arguments: {} },
        { id: 'a', name: 'mcp_fz_ask_name', arguments: {} },
      ])
      expect(JSON.parse(caps!.content).capabilities).toEqual({ roots: { listChanged: false } })
      expect(ask).toMatchObject({ ok: true, content: 'this client cannot be asked' })
    } finally {
      await host.close()
      tmp.remove()
    }
  })
})

describe('mcp_servers over Streamable HTTP (url), against toolhost’s own server', { timeout: 60_000 }, () => {
  test('a remote toolhost’s tools join, run, and leave the registry on close', async () => {
    const remoteRegistry = new ToolRegistry()
    remoteRegistry.register(defineTool({
      name: 'shout',
      description: 'Upper-cases text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
      readOnly: () => true,
      parallelSafe: true,
      handler: (args) => args.text.toUpperCase(),
    }))
    const remote = await createHost({ config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } }, loadPlugins: false, registry: remoteRegistry, log: silentLogger })
    const endpoint = await serveHttp(remote, new McpSessions(), { port: 0, hostname: '127.0.0.1' })
    const local = await createHost({ config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, mcp_servers: { up: { url: endpoint.url } } }, loadPlugins: false, log: silentLogger, registry: new ToolRegistry() })
    try {
      const [result] = await local.run([{ id: '1', name: 'mcp_up_shout', arguments: { text: 'hi' } }])
      expect(result).toMatchObject({ ok: true, content: 'HI' })
      expect(internalsOf(local).footprintOf(local.registry.get('mcp_up_shout')!, {}).kind).toBe('barrier') // not parallel_safe in config
    } finally {
      await local.close()
      expect(local.registry.has('mcp_up_shout')).toBe(false)
      await endpoint.close()
      await remote.close()
    }
  })
})

describe('mcp_servers config faults and names', () => {
  test.each([
    { name: 'neither command nor url', server: {}, message: /give either `command`.*or `url`/ },
    { name: 'both command and url', server: { command: 'x', url: 'http://127.0.0.1:1/mcp' }, message: /not both/ },
    { name: 'a url that is not http', server: { url: 'file:///etc/passwd' }, message: /expected an http\(s\) URL/ },
  ])('$name throws E_CONFIG_INVALID at start-up naming the key', async ({ server, message }) => {
    const promise = createHost({ config: { plugins: { dirs: [] }, env_file: '', mcp_servers: { bad: server } }, loadPlugins: false, log: silentLogger, registry: new ToolRegistry() })
    await expect(promise).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message: expect.stringMatching(/mcp_servers\.bad/) })
    await expect(promise).rejects.toThrow(message)
  })

  test('an HTTP server that refuses the connection is reported with the reason, not only "fetch failed"', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const host = await createHost({ config: { plugins: { dirs: [] }, env_file: '', mcp_servers: { down: { url: `http://127.0.0.1:${port}/mcp` } } }, loadPlugins: false, log: silentLogger, registry: new ToolRegistry() })
    try {
      expect(host.services.mcpClients?.[0]?.problems).toEqual([expect.stringMatching(/^cannot connect: .*ECONNREFUSED/)])
    } finally {
      await host.close()
    }
  })

  test('a server that cannot be started is reported and the host still starts', async () => {
    const host = await createHost({ config: { plugins: { dirs: [] }, env_file: '', mcp_servers: { gone: { command: 'toolhost-no-such-command-xyz' } } }, loadPlugins: false, log: silentLogger, registry: new ToolRegistry() })
    try {
      expect(host.services.mcpClients).toEqual([{ server: 'gone', connected: false, tools: [], problems: [expect.stringMatching(/^cannot connect: /)] }])
      expect(host.registry.list()).toEqual([])
    } finally {
      await host.close()
    }
  })

  test.each([
    { server: 'fx', tool: 'add', name: 'mcp_fx_add' },
    { server: 'fx', tool: 'read file', name: 'mcp_fx_read_file' },
    { server: 'files', tool: 'read.text_file', name: 'mcp_files_read_text_file' },
    { server: 'fx', tool: 'x'.repeat(80), name: expect.stringMatching(/^mcp_fx_x+_[0-9a-f]{8}$/) },
  ])('localName($server, $tool)', ({ server, tool, name }) => {
    const local = localName(server, tool)
    expect(local).toEqual(name)
    expect(local.length).toBeLessThanOrEqual(64)
  })
})
