/**
 * `toolhost serve` speaking MCP 2026-07-28 to the v2 SDK client over real transports: stdio (a
 * spawned `serve`) and Streamable HTTP (`serve --http 0`), approvals as multi round-trip requests on
 * both, the sealed requestState refused when tampered with or replayed; and on HTTP the wire itself
 * (raw fetch): `server/discover`, `resultType` and the cache hints on `tools/list`, the
 * `Mcp-Method` header check and the 2026 error codes.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { TOOLHOST_CLI } from '../toolhost-cli.js'
import { FIXTURE_CONFIG, makeTempDir, REPO, startHttpServer } from './serve-helpers.js'

const REVISION = '2026-07-28'
const tmp = makeTempDir('toolhost-mcp-modern-wire-')
afterAll(() => tmp.remove())

const text = (result: { content?: unknown }): string => ((result.content as Array<{ text?: string }>)[0]?.text ?? '')

/** A v2 client (auto negotiation) with elicitation that answers approvals with `decision`. */
function v2Client(decision: { value: string }): Client {
  const client = new Client({ name: 'toolhost-test-v2', version: '2.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } })
  client.setRequestHandler('elicitation/create', async (request) => {
    const message = (request.params as { message: string }).message
    const content: Record<string, string> = message.startsWith('Which') ? { choice: 'blue' } : { decision: decision.value }
    return { action: 'accept', content }
  })
  return client
}

/** Approvals over a real transport, then the manual rounds: tampered and replayed states are refused. */
async function exerciseApprovals(client: Client): Promise<void> {
  expect(client.getProtocolEra()).toBe('modern')
  expect(client.getNegotiatedProtocolVersion()).toBe(REVISION)
  const names = (await client.listTools()).tools.map((t) => t.name)
  expect(names).toEqual([...names].sort())
  expect(text(await client.callTool({ name: 'clarify', arguments: { question: 'Which colour?', choices: ['red', 'blue'] } }))).toBe('blue')
  expect(text(await client.callTool({ name: 'zap', arguments: { path: 'a.txt' } }))).toBe('zapped a.txt')

  const first = await client.callTool({ name: 'zap', arguments: { path: 'b.txt' } }, { allowInputRequired: true }) as unknown as { resultType: string; requestState: string }
  expect(first.resultType).toBe('input_required')
  const retry = (requestState: string) => client.callTool(
    { name: 'zap', arguments: { path: 'b.txt' }, inputResponses: { 'approve-1': { action: 'accept', content: { decision: 'allow-once' } } }, requestState } as Parameters<Client['callTool']>[0],
    { allowInputRequired: true },
  )
  const flipped = `${first.requestState.slice(0, -3)}${first.requestState.endsWith('AAA') ? 'BBB' : 'AAA'}`
  await expect(retry(flipped)).rejects.toMatchObject({ code: -32602, data: { code: 'E_REQUEST_STATE_INVALID' } })
  expect(text(await retry(first.requestState))).toBe('zapped b.txt')
  await expect(retry(first.requestState)).rejects.toMatchObject({ code: -32602, data: { code: 'E_REQUEST_STATE_REPLAYED' } })
}

describe('over stdio', { timeout: 60_000 }, () => {
  test('a v2 client negotiates 2026-07-28 with a spawned serve; approvals and clarify by input_required', async () => {
    const client = v2Client({ value: 'allow-once' })
    const transport = new StdioClientTransport({ command: process.execPath, args: [TOOLHOST_CLI, 'serve', '--root', tmp.dir, '--config', FIXTURE_CONFIG, '--permission-mode', 'ask'], cwd: REPO, stderr: 'pipe' })
    await client.connect(transport)
    try {
      await exerciseApprovals(client)
    } finally {
      await client.close()
    }
  })
})

describe('over Streamable HTTP', { timeout: 60_000 }, () => {
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined
  beforeAll(async () => {
    server = await startHttpServer(['--config', FIXTURE_CONFIG, '--permission-mode', 'ask'], tmp.dir)
  }, 60_000)
  afterAll(async () => server?.stop())

  const envelope = { 'io.modelcontextprotocol/protocolVersion': REVISION, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }
  async function post(method: string, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(server!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-method': method, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: { ...envelope, ...(params._meta as object | undefined) } } }),
    })
    const raw = await response.text()
    const data = response.headers.get('content-type')?.includes('text/event-stream') ? raw.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).filter((l) => l !== '').at(-1)! : raw
    return { status: response.status, body: JSON.parse(data) as Record<string, unknown> }
  }

  test('a v2 client negotiates 2026-07-28 without a session; approvals and clarify by input_required', async () => {
    const client = v2Client({ value: 'allow-once' })
    await client.connect(new StreamableHTTPClientTransport(server!.url))
    try {
      expect((client.transport as StreamableHTTPClientTransport).sessionId).toBeUndefined()
      await exerciseApprovals(client)
    } finally {
      await client.close()
    }
  })

  test('the wire: server/discover, resultType and cache hints on tools/list, header and version errors', async () => {
    const discovered = await post('server/discover', {})
    expect(discovered.status).toBe(200)
    expect(discovered.body.result).toMatchObject({ supportedVersions: [REVISION], resultType: 'complete', capabilities: { tools: { listChanged: true } } })

    const listed = await post('tools/list', {})
    const result = listed.body.result as { resultType: string; ttlMs: number; cacheScope: string; tools: Array<{ name: string }> }
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 10_000, cacheScope: 'private' })
    expect(result.tools.map((t) => t.name)).toEqual(result.tools.map((t) => t.name).sort())
    // Plugin templates change on hot reload: the hint is as short as the tools list's (was one hour).
    const templates = await post('resources/templates/list', {})
    expect(templates.body.result).toMatchObject({ resultType: 'complete', ttlMs: 10_000, cacheScope: 'public' })

    const mismatched = await post('tools/list', {}, { 'mcp-method': 'tools/call' })
    expect(mismatched.status).toBe(400)
    expect(mismatched.body.error).toMatchObject({ code: -32020 })

    const unsupported = await post('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }, { 'mcp-protocol-version': '2099-01-01' })
    expect(unsupported.status).toBe(400)
    expect(unsupported.body.error).toMatchObject({ code: -32022 })

    // A client without elicitation asks nothing: the approval is denied with today's wording.
    const denied = await post('tools/call', { name: 'zap', arguments: { path: 'c.txt' } }, { 'mcp-name': 'zap' })
    expect(denied.body.result).toMatchObject({ resultType: 'complete', isError: true })
    expect(JSON.stringify(denied.body.result)).toContain('no one could be asked')
  })

  test('a requestState is good for one retry, on any request that names the same call', async () => {
    const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }
    const call = { name: 'zap', arguments: { path: 'd.txt' }, _meta: caps }
    const first = await post('tools/call', call, { 'mcp-name': 'zap' })
    const asked = first.body.result as { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string }
    expect(asked).toMatchObject({ resultType: 'input_required', inputRequests: { 'approve-1': { method: 'elicitation/create' } } })
    const answer = { inputResponses: { 'approve-1': { action: 'accept', content: { decision: 'allow-once' } } }, requestState: asked.requestState }
    const done = await post('tools/call', { ...call, ...answer }, { 'mcp-name': 'zap' })
    expect(done.body.result).toMatchObject({ resultType: 'complete', isError: false, content: [{ text: 'zapped d.txt' }] })
    const again = await post('tools/call', { ...call, ...answer }, { 'mcp-name': 'zap' })
    expect(again.body.error).toMatchObject({ code: -32602, data: { code: 'E_REQUEST_STATE_REPLAYED' } })
  })
})
