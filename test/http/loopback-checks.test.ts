// DNS rebinding defences compare host names exactly (issue 12, item 18): before, an Origin of
// `http://127.0.0.1.evil.example` passed as loopback. Also: an HTTP body over serve.max_message_bytes
// is refused with 413, saying which limit.
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { isLoopback } from '../../src/http/loopback.js'
import { serveHttp, type HttpEndpoint } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { makeTempDir } from '../mcp/serve-helpers.js'

test.each([
  ['localhost', true],
  ['LOCALHOST', true],
  ['127.0.0.1', true],
  ['127.1.2.3', true],
  ['::1', true],
  ['[::1]', true],
  ['127.0.0.1.evil.example', false],
  ['localhost.evil.example', false],
  ['evil-localhost', false],
  ['127.evil', false],
  ['128.0.0.1', false],
  ['::2', false],
  ['', false],
])('isLoopback(%j) is %s', (hostname, expected) => {
  expect(isLoopback(hostname)).toBe(expected)
})

describe('the loopback HTTP endpoint', () => {
  const tmp = makeTempDir('toolhost-loopback-')
  let host: Host
  let endpoint: HttpEndpoint
  beforeAll(async () => {
    host = await createHost({ root: tmp.dir, loadPlugins: false, log: silentLogger, config: { env_file: '', serve: { host: '127.0.0.1', max_message_bytes: 4096 } } })
    endpoint = await serveHttp(host, new McpSessions(), { port: 0, hostname: '127.0.0.1' })
  })
  afterAll(async () => {
    await endpoint.close()
    await host.close()
    tmp.remove()
  })

  function post(headers: Record<string, string>, body = '{}'): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      })
      req.on('error', reject)
      req.end(body)
    })
  }

  test.each([
    { why: 'an Origin that starts like a loopback address', headers: () => ({ origin: 'http://127.0.0.1.evil.example' }), status: 403 },
    { why: 'an Origin under localhost.', headers: () => ({ origin: `http://localhost.evil.example:${endpoint.port}` }), status: 403 },
    { why: 'a non-http Origin', headers: () => ({ origin: 'file://localhost' }), status: 403 },
    { why: 'a Host that starts like a loopback address', headers: () => ({ host: `127.0.0.1.evil.example:${endpoint.port}` }), status: 403 },
    { why: 'a loopback Host with another port', headers: () => ({ host: `127.0.0.1:${endpoint.port + 1}` }), status: 403 },
    { why: 'a Host with user info', headers: () => ({ host: `evil@127.0.0.1:${endpoint.port}` }), status: 403 },
    { why: 'an IPv6 loopback Origin', headers: () => ({ origin: `http://[::1]:${endpoint.port}` }), status: 400 },
    { why: 'localhost as Host and Origin', headers: () => ({ host: `localhost:${endpoint.port}`, origin: `http://localhost:${endpoint.port}` }), status: 400 },
  ])('$why → $status', async ({ headers, status }) => {
    // 400 means let through the checks, then refused as a request without a session.
    expect((await post(headers())).status).toBe(status)
  })

  test('a body over serve.max_message_bytes is 413, naming the limit', async () => {
    const response = await post({}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(5000) } }))
    expect(response.status).toBe(413)
    expect(response.text).toContain('over 4096 bytes (serve.max_message_bytes)')
  })
})
