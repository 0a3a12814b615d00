// Probes for load balancers and Kubernetes: GET /healthz and /readyz answer without a token and
// whatever the Host (a kubelet names the pod's address, not serve.public_url), and say nothing but
// the state; every other path keeps the Host and token checks.
import { once } from 'node:events'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { serveHttp, type HttpEndpoint } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { send } from '../http/auth-fixtures.js'
import { makeTempDir } from './serve-helpers.js'

describe('serve --http probes', () => {
  const tmp = makeTempDir('toolhost-health-')
  let host: Host
  let endpoint: HttpEndpoint
  beforeAll(async () => {
    process.env.TOOLHOST_TEST_HEALTH_TOKEN = 'h'.repeat(40)
    host = await createHost({ root: tmp.dir, loadPlugins: false, log: silentLogger, config: { env_file: '', serve: { public_url: 'https://tools.example.test/mcp', auth: { static_token_env: 'TOOLHOST_TEST_HEALTH_TOKEN' } } } })
    endpoint = await serveHttp(host, new McpSessions(), { port: 0, hostname: '127.0.0.1' })
  })
  afterAll(async () => {
    await endpoint.close()
    await host.close()
    delete process.env.TOOLHOST_TEST_HEALTH_TOKEN
    tmp.remove()
  })

  test.each([
    ['/healthz', { status: 'ok' }],
    ['/readyz', { status: 'ready' }],
  ])('GET %s: 200 with no token and a Host that is not the public one', async (path, body) => {
    const answer = await send(endpoint, { method: 'GET', path, headers: { host: '10.1.2.3:8080' } })
    expect(answer.status).toBe(200)
    expect(answer.json()).toEqual(body)
    expect(answer.headers['cache-control']).toBe('no-store')
  })

  test('HEAD answers the same status with no body; other methods are 405 naming GET and HEAD', async () => {
    const head = await send(endpoint, { method: 'HEAD', path: '/readyz' })
    expect([head.status, head.body]).toEqual([200, ''])
    const post = await send(endpoint, { method: 'POST', path: '/healthz' })
    expect(post.status).toBe(405)
    expect(post.headers.allow).toBe('GET, HEAD')
  })

  test('only the exact probe paths skip the checks: /mcp and look-alike paths still need the Host and the token', async () => {
    expect((await send(endpoint, { method: 'GET', path: '/healthz/../mcp', headers: { host: 'evil.example.test' } })).status).toBe(403)
    expect((await send(endpoint, { method: 'GET', path: '/healthz?x=1', headers: { host: 'evil.example.test' } })).status).toBe(403)
    expect((await send(endpoint, { path: '/mcp', headers: { host: 'evil.example.test' } })).status).toBe(403)
    expect((await send(endpoint, { path: '/mcp' })).status).toBe(401)
  })

  test('once draining, /readyz is 503 on a connection still open, and new connections are refused', async () => {
    // A request half sent before the drain keeps its connection (only idle ones are closed).
    const socket = connect(endpoint.port, '127.0.0.1')
    await once(socket, 'connect')
    await new Promise<void>((resolve) => socket.write('GET /readyz HTTP/1.1\r\nHost: 10.1.2.3\r\n', () => resolve()))
    // A request on another connection, written after those bytes, is answered only once the server
    // has read them (no sleep): the half-sent request is then in progress.
    expect((await send(endpoint, { method: 'GET', path: '/healthz' })).status).toBe(200)
    expect(await endpoint.drain(0)).toBe(0)
    let raw = ''
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString()))
    socket.end('\r\n')
    await once(socket, 'close')
    expect(raw).toMatch(/^HTTP\/1\.1 503 /)
    expect(raw).toContain('{"status":"draining"}')
    const fresh = await send(endpoint, { method: 'GET', path: '/readyz' }).then((a) => a.status, (error: NodeJS.ErrnoException) => error.code)
    expect(fresh).toBe('ECONNREFUSED')
  })
})
