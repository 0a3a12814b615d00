import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { FIXTURE_CONFIG, makeTempDir, startHttpServer } from './serve-helpers.js'

type Text = { type: string; text: string }

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: 'toolhost-http-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

describe('toolhost serve --http (Streamable HTTP), two clients', { timeout: 60_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-http-')
  let server: Awaited<ReturnType<typeof startHttpServer>>
  let first: Client
  let second: Client
  beforeAll(async () => {
    server = await startHttpServer(['--config', FIXTURE_CONFIG], tmp.dir)
    ;[first, second] = await Promise.all([connect(server.url), connect(server.url)])
  }, 60_000)
  afterAll(async () => {
    await first?.close()
    await second?.close()
    await server?.stop()
    tmp.remove()
  })

  test('binds to 127.0.0.1 by default and serves /mcp', () => {
    expect(server.url.hostname).toBe('127.0.0.1')
    expect(server.url.pathname).toBe('/mcp')
  })

  test('lists tools with annotations and answers calls, errors as isError results', async () => {
    const { tools } = await first.listTools()
    expect(tools.find((t) => t.name === 'peek')?.annotations?.readOnlyHint).toBe(true)
    const ok = await first.callTool({ name: 'peek', arguments: {} })
    expect(ok).toMatchObject({ isError: false, content: [{ type: 'text', text: 'peeked' }] })
    const failed = await second.callTool({ name: 'always_fails', arguments: {} })
    expect(failed.isError).toBe(true)
    expect((failed.content as Text[])[0]!.text).toMatch(/^E_TOOL_FAILED: /)
  })

  test("two clients' calls on the same path never overlap (one scheduler; timestamps)", async () => {
    // Timing-based, labelled: each call holds the path 300 ms.
    const call = (client: Client) => client.callTool({ name: 'touch_path', arguments: { path: 'shared/file.txt', ms: 300 } })
    const results = await Promise.all([call(first), call(second)])
    const spans = results.map((r) => JSON.parse((r.content as Text[])[0]!.text) as { start: number; end: number }).sort((a, b) => a.start - b.start)
    expect(spans[1]!.start).toBeGreaterThanOrEqual(spans[0]!.end)
  })

  test('a request to another path is refused, and a request without a session must initialise first', async () => {
    const other = await fetch(new URL('/other', server.url))
    expect(other.status).toBe(404)
    const noSession = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
    expect(noSession.status).toBe(400)
  })

  test('DNS rebinding: another Host name or a foreign browser Origin is refused', async () => {
    const { request } = await import('node:http')
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on('error', reject)
        req.end('{}')
      })
    expect(await status({ host: `evil.example:${server.url.port}` })).toBe(403)
    expect(await status({ origin: 'https://evil.example' })).toBe(403)
    expect(await status({ origin: `http://localhost:${server.url.port}` })).toBe(400) // allowed through, then: not an initialize request
  })
})

describe('serve --http usage errors', { timeout: 60_000 }, () => {
  test.each([
    { name: 'a port that is not a number', port: 'eighty', message: /--http needs a port number/ },
    { name: 'a port out of range', port: '70000', message: /--http needs a port number/ },
    { name: 'a port already in use', port: 'taken', message: /E_USAGE: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/ },
  ])('$name exits 2 and says what to change', async ({ port, message }) => {
    const { createServer } = await import('node:net')
    const { main } = await import('../../src/cli/main.js')
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()))
    const taken = String((blocker.address() as { port: number }).port)
    const tmp = makeTempDir('toolhost-http-usage-')
    const err: string[] = []
    try {
      const code = await main(['serve', '--http', port === 'taken' ? taken : port, '--config', FIXTURE_CONFIG, '--root', tmp.dir], { out: () => {}, err: (t) => err.push(t) })
      expect(code).toBe(2)
      expect(err.join('\n')).toMatch(message)
    } finally {
      blocker.close()
      tmp.remove()
    }
  })
})
