// Host and Origin follow serve.public_url (issue 22, item 3): on a non-loopback bind only the public
// URL's host (or the bind address itself) and its origin are accepted; and /mcp served by serveHttp
// with a token, end to end, with the official MCP client.
import os from 'node:os'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { serveHttp, type HttpEndpoint } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { makeTempDir } from '../mcp/serve-helpers.js'
import { send, serveConfig, startGuarded, type Listening } from './auth-fixtures.js'

const TOKEN = 't'.repeat(40)
const env = { TOOLHOST_TOKEN: TOKEN }
const auth = { authorization: `Bearer ${TOKEN}` }
// A non-loopback address of this machine, when it has one (the wildcard is not bound in tests).
const nonLoopback = Object.values(os.networkInterfaces()).flat().find((a) => a !== undefined && !a.internal && a.family === 'IPv4')?.address

describe.skipIf(nonLoopback === undefined)('on a non-loopback address (reason: needs a non-loopback IPv4 address to bind; a machine with a network interface up enables it)', () => {
  let guarded: Listening
  beforeAll(async () => {
    guarded = await startGuarded(serveConfig({ static_token_env: 'TOOLHOST_TOKEN' }), { hostname: nonLoopback!, env })
  })
  afterAll(() => guarded.close())
  const at = (headers: Record<string, string>) => send(guarded, { address: nonLoopback!, headers: { ...auth, ...headers } })

  test.each([
    ['the public URL\'s host', () => ({ host: 'tools.example.test' }), 200],
    ['the public URL\'s host with its default port', () => ({ host: 'tools.example.test:443' }), 200],
    ['the bind address and port', () => ({ host: `${nonLoopback}:${guarded.port}` }), 200],
    ['the public host with an Origin of the public URL', () => ({ host: 'tools.example.test', origin: 'https://tools.example.test' }), 200],
    ['another host', () => ({ host: 'evil.example.test' }), 403],
    ['the public host on another port', () => ({ host: 'tools.example.test:8443' }), 403],
    ['a loopback host (DNS rebinding to a loopback name)', () => ({ host: `127.0.0.1:${guarded.port}` }), 403],
    ['a host that starts like the public one', () => ({ host: 'tools.example.test.evil.example' }), 403],
    ['the public host with another Origin', () => ({ host: 'tools.example.test', origin: 'https://evil.example.test' }), 403],
    ['the public host with a loopback Origin', () => ({ host: 'tools.example.test', origin: `http://127.0.0.1:${guarded.port}` }), 403],
    ['the public host with the http Origin of an https URL', () => ({ host: 'tools.example.test', origin: 'http://tools.example.test' }), 403],
  ])('Host/Origin: %s → %s', async (_why, headers, status) => {
    expect((await at(headers())).status).toBe(status)
  })

  test('the Host check comes before the token: a foreign Host with a good token is still 403', async () => {
    expect((await at({ host: 'evil.example.test' })).status).toBe(403)
    expect((await send(guarded, { address: nonLoopback!, headers: { host: 'tools.example.test' } })).status).toBe(401)
  })
})

test('a loopback bind with serve.public_url accepts the public host (behind a proxy) and loopback names, nothing else', async () => {
  const guarded = await startGuarded(serveConfig({ static_token_env: 'TOOLHOST_TOKEN' }), { env })
  try {
    expect((await send(guarded, { headers: { ...auth, host: 'tools.example.test', origin: 'https://tools.example.test' } })).status).toBe(200)
    expect((await send(guarded, { headers: { ...auth, host: `localhost:${guarded.port}` } })).status).toBe(200)
    expect((await send(guarded, { headers: { ...auth, host: 'evil.example.test' } })).status).toBe(403)
  } finally {
    await guarded.close()
  }
})

describe('serveHttp with a static token, through the official MCP client', () => {
  const tmp = makeTempDir('toolhost-auth-e2e-')
  let host: Host
  let endpoint: HttpEndpoint
  beforeAll(async () => {
    process.env.TOOLHOST_TEST_AUTH_TOKEN = TOKEN
    host = await createHost({ root: tmp.dir, loadPlugins: false, log: silentLogger, config: { env_file: '', permissions: { allow: ['ping'] }, serve: { host: '127.0.0.1', auth: { static_token_env: 'TOOLHOST_TEST_AUTH_TOKEN' } } } })
    host.registry.register(defineTool({ name: 'ping', description: 'answers pong', parameters: { type: 'object', properties: {} }, handler: () => 'pong' }))
    endpoint = await serveHttp(host, new McpSessions(), { port: 0, hostname: '127.0.0.1' })
  })
  afterAll(async () => {
    await endpoint.close()
    await host.close()
    delete process.env.TOOLHOST_TEST_AUTH_TOKEN
    tmp.remove()
  })

  test('with the token the client initialises and calls a tool', async () => {
    const client = new Client({ name: 'auth-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: auth } }))
    try {
      const result = await client.callTool({ name: 'ping', arguments: {} })
      expect(result.content, JSON.stringify(result)).toEqual([{ type: 'text', text: 'pong' }])
    } finally {
      await client.close()
    }
  })

  test('without it, initialize is 401 with WWW-Authenticate naming this server\'s resource metadata, which answers', async () => {
    const port = endpoint.port
    const answer = await send({ port }, { headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } })
    expect(answer.status).toBe(401)
    const metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`
    expect(answer.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadataUrl}"`)
    const metadata = await send({ port }, { method: 'GET', path: new URL(metadataUrl).pathname, headers: { host: `127.0.0.1:${port}` } })
    expect(metadata.json()).toMatchObject({ resource: `http://127.0.0.1:${port}/mcp`, bearer_methods_supported: ['header'] })
  })
})
