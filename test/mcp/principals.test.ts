// Issue 31: what a client is answered in is bound to the authenticated principal — the token's
// client id AND subject, not only the client. Two users of one OAuth client ("editor"), alice and
// bob, against `serveHttp` with JWT auth: bob cannot redeem alice's 2026 requestState, nor use the
// 2025 session alice opened; alice's own retry still runs.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry, type Host } from '../../src/index.js'
import { McpSessions, serveHttp, type HttpEndpoint } from '../../src/mcp/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { ISSUER, RESOURCE, startJwks } from '../http/auth-fixtures.js'
import { makeTempDir } from './serve-helpers.js'

const tmp = makeTempDir('toolhost-mcp-principals-')
let jwks: Awaited<ReturnType<typeof startJwks>>
let host: Host
let endpoint: HttpEndpoint
const tokens: Record<string, string> = {}
let runs = 0

beforeAll(async () => {
  jwks = await startJwks()
  for (const sub of ['alice', 'bob']) tokens[sub] = await jwks.sign({ sub, client_id: 'editor', scope: 'tools' }, { expiresIn: '10m' })
  const registry = new ToolRegistry()
  registry.register(defineTool({ name: 'zap', description: 'Pretends to delete.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, destructive: () => true, handler: (args) => `zapped ${args.path} (${++runs})` }))
  const sessions = new McpSessions()
  host = await createHost({
    root: tmp.dir, log: silentLogger, loadPlugins: false, registry, audience: 'model', approve: sessions.approve,
    config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'ask', audit_log: '' }, serve: { public_url: RESOURCE, auth: { authorization_servers: [ISSUER], jwks_url: jwks.jwksUrl, scopes: ['tools'] } } },
  })
  endpoint = await serveHttp(host, sessions, { port: 0, hostname: '127.0.0.1' })
}, 30_000)

afterAll(async () => {
  await endpoint?.close()
  await host?.close()
  await jwks?.close()
  tmp.remove()
})

async function clientOf(user: string): Promise<Client> {
  const client = new Client({ name: 'editor-app', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } })
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${tokens[user]}` } } }))
  return client
}

describe('bound to the authenticated principal, subject included', () => {
  test('bob cannot redeem the requestState alice was sealed for; alice can', async () => {
    const alice = await clientOf('alice')
    const bob = await clientOf('bob')
    try {
      expect(alice.getProtocolEra()).toBe('modern')
      const first = await alice.callTool({ name: 'zap', arguments: { path: 'a.txt' } }, { allowInputRequired: true }) as unknown as { resultType: string; requestState: string }
      expect(first.resultType).toBe('input_required')
      const retry = (client: Client) => client.callTool(
        { name: 'zap', arguments: { path: 'a.txt' }, inputResponses: { 'approve-1': { action: 'accept', content: { decision: 'allow-once' } } }, requestState: first.requestState } as Parameters<Client['callTool']>[0],
        { allowInputRequired: true },
      )
      await expect(retry(bob)).rejects.toMatchObject({ code: -32602, data: { code: 'E_REQUEST_STATE_MISMATCH' } })
      const ran = runs
      const result = await retry(alice) as { content: Array<{ text: string }> }
      expect(result.content[0]!.text).toMatch(/^zapped a\.txt/)
      expect(runs).toBe(ran + 1)
    } finally {
      await alice.close()
      await bob.close()
    }
  })

  test('bob is refused the 2025 session alice opened (403), and is never answered in it', async () => {
    const post = (user: string, body: object, session?: string) => fetch(endpoint.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[user]}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}) },
      body: JSON.stringify(body),
    })
    const init = await post('alice', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'editor-app', version: '1.0.0' } } })
    expect(init.status).toBe(200)
    const session = init.headers.get('mcp-session-id')!
    expect(session).toMatch(/^[0-9a-f-]{36}$/)
    await init.text()
    const stolen = await post('bob', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, session)
    expect(stolen.status).toBe(403)
    expect(await stolen.text()).toMatch(/belongs to another authenticated principal/)
    const own = await post('alice', { jsonrpc: '2.0', method: 'notifications/initialized' }, session)
    expect(own.status).toBe(202)
  })
})
