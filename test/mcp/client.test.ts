import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry, type Host, type HostEvent } from '../../src/index.js'
import { silentLogger } from '../../src/logger.js'
import { localName } from '../../src/mcp/client.js'
import { serveHttp } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { eventually, makeTempDir, REPO } from './serve-helpers.js'

const fixtureServer = (env: Record<string, string>, parallelSafe: boolean) => ({
  command: process.execPath,
  args: [path.join(REPO, 'bin/run-ts.mjs'), path.join(REPO, 'test/fixtures/mcp/server.ts')],
  env,
  parallel_safe: parallelSafe,
})

describe('mcp_servers: a stdio MCP server written with the SDK joins the registry', { timeout: 60_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-client-')
  const abortLog = path.join(tmp.dir, 'aborts.log')
  let host: Host
  beforeAll(async () => {
    host = await createHost({
      root: tmp.dir,
      log: silentLogger,
      config: {
        plugins: { dirs: [] },
        env_file: '',
        permissions: { mode: 'bypass' },
        dispatch: { interrupt_grace_ms: 2000 },
        mcp_servers: { fx: fixtureServer({ FIXTURE_ABORT_LOG: abortLog }, true), fy: fixtureServer({}, false) },
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
    const footprint = (name: string) => host.footprintOf(host.registry.get(name)!, { a: 1, b: 2 }).kind
    expect(footprint('mcp_fx_add')).toBe('free')
    expect(footprint('mcp_fx_slow')).toBe('barrier') // no readOnlyHint
    expect(footprint('mcp_fy_add')).toBe('barrier') // fy is not parallel_safe
    expect(host.registry.get('mcp_fx_add')!.readOnly({})).toBe(true)
    expect(host.registry.get('mcp_fy_add')!.readOnly({})).toBe(false)
  })

  test('a schema strict ajv refuses is registered with a bare object schema and a note', async () => {
    const connection = host.services.mcpClients!.find((c) => c.server === 'fx')!
    expect(connection.problems.join('\n')).toContain('odd_schema')
    const [result] = await host.run([{ id: 'o', name: 'mcp_fx_odd_schema', arguments: { q: 'hi' } }])
    expect(result).toMatchObject({ ok: true, content: 'q=hi' })
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
      expect(local.footprintOf(local.registry.get('mcp_up_shout')!, {}).kind).toBe('barrier') // not parallel_safe in config
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
    { server: 'fx', tool: 'x'.repeat(80), name: expect.stringMatching(/^mcp_fx_x+_[0-9a-f]{8}$/) },
  ])('localName($server, $tool)', ({ server, tool, name }) => {
    const local = localName(server, tool)
    expect(local).toEqual(name)
    expect(local.length).toBeLessThanOrEqual(64)
  })
})
