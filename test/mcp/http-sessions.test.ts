/**
 * Streamable HTTP sessions are not kept for ever: a client that vanished without DELETE has its
 * session closed once it has been idle past the limit. The sweep's timer and clock are faked, so
 * the test does not depend on how busy the machine is.
 */
import { afterAll, afterEach, expect, test, vi } from 'vitest'
import { createHost, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { serveHttp, type HttpEndpoint } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { makeTempDir } from './serve-helpers.js'

const tmp = makeTempDir('toolhost-mcp-idle-')
let host: Host | undefined
let endpoint: HttpEndpoint | undefined

afterEach(async () => {
  vi.useRealTimers()
  await endpoint?.close()
  await host?.close()
  endpoint = undefined
  host = undefined
})
afterAll(() => tmp.remove())

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

async function post(url: string, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...headers, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) }, body: JSON.stringify(body) })
}

test('an idle session is closed after the idle limit; an active one is kept (150 ms limit, fake clock)', async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] })
  host = await createHost({ root: tmp.dir, log: silentLogger, loadPlugins: false, config: { plugins: { dirs: [] }, env_file: '' } })
  endpoint = await serveHttp(host, new McpSessions(), { port: 0, hostname: '127.0.0.1', idleMs: 150 })
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'idle-test', version: '1' } },
  }
  const opened = await post(endpoint.url, init)
  expect(opened.status).toBe(200)
  const sessionId = opened.headers.get('mcp-session-id')
  expect(sessionId).toBeTruthy()
  await opened.text()
  await post(endpoint.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId!).then((r) => r.text())

  // Active: a request every 50 ms keeps it.
  for (let i = 0; i < 5; i++) {
    vi.advanceTimersByTime(50)
    const listed = await post(endpoint.url, { jsonrpc: '2.0', id: 10 + i, method: 'tools/list' }, sessionId!)
    expect(listed.status).toBe(200)
    await listed.text()
  }

  // Idle past the limit: gone.
  vi.advanceTimersByTime(500)
  // The sweep closes the transport asynchronously: let that settle.
  await new Promise((r) => setImmediate(r))
  const late = await post(endpoint.url, { jsonrpc: '2.0', id: 99, method: 'tools/list' }, sessionId!)
  expect(late.status).toBe(404)
  expect(await late.text()).toMatch(/Session not found/)
})

test('sessions are capped by serve.max_sessions: another initialize gets 503 naming the key, until one ends with DELETE', async () => {
  host = await createHost({ root: tmp.dir, log: silentLogger, loadPlugins: false, config: { plugins: { dirs: [] }, env_file: '', serve: { max_sessions: 2 } } })
  endpoint = await serveHttp(host, new McpSessions(), { port: 0, hostname: '127.0.0.1' })
  const init = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cap-test', version: '1' } } })
  const ids: string[] = []
  for (const n of [1, 2]) {
    const opened = await post(endpoint.url, init(n))
    expect(opened.status).toBe(200)
    await opened.text()
    ids.push(opened.headers.get('mcp-session-id')!)
  }
  const refused = await post(endpoint.url, init(3))
  expect(refused.status).toBe(503)
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('too many sessions: 2 are open (serve.max_sessions); end one with DELETE, or retry once idle sessions close')
  // The open sessions are untouched, and ending one makes room.
  const listed = await post(endpoint.url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, ids[0])
  expect(listed.status).toBe(200)
  await listed.text()
  const ended = await fetch(endpoint.url, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': ids[1]! } })
  expect(ended.status).toBe(200)
  await ended.text()
  const again = await post(endpoint.url, init(5))
  expect(again.status).toBe(200)
  await again.text()
})

test('2026-07-28 requests in flight are capped by serve.max_requests: another gets 503 with Retry-After naming the key, until one is answered', async () => {
  const { ToolRegistry } = await import('../../src/registry/registry.js')
  const { defineTool } = await import('../../src/contract/define-tool.js')
  const { createDeferred } = await import('../../src/contract/deferred.js')
  const started = createDeferred<void>()
  const gate = createDeferred<void>()
  const registry = new ToolRegistry()
  registry.register(defineTool({ name: 'held', description: 'Waits for the test.', parameters: { type: 'object' }, parallelSafe: true, handler: async () => {
    started.resolve()
    await gate.promise
    return 'released'
  } }))
  host = await createHost({ root: tmp.dir, log: silentLogger, registry, loadPlugins: false, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, serve: { max_requests: 1 } } })
  endpoint = await serveHttp(host, new McpSessions(), { port: 0, hostname: '127.0.0.1' })
  const modern = (id: number, method: string, params: Record<string, unknown>) => fetch(endpoint!.url, {
    method: 'POST',
    headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(method === 'tools/call' ? { 'mcp-name': String(params['name']) } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'cap-test', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  })
  const first = modern(1, 'tools/call', { name: 'held', arguments: {} })
  await started.promise
  const refused = await modern(2, 'tools/list', {})
  expect(refused.status).toBe(503)
  expect(refused.headers.get('retry-after')).toBe('1')
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('too many requests in flight: 1 (serve.max_requests); retry shortly')
  gate.resolve()
  const answered = await first
  expect(answered.status).toBe(200)
  expect(await answered.text()).toContain('released')
  const again = await modern(3, 'tools/list', {})
  expect(again.status).toBe(200)
  expect(await again.text()).toContain('held')
})
