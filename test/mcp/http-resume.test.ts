/**
 * Streamable HTTP sessions that survive: an unknown or ended session gets 404 (so a client starts a
 * new one), and SSE streams are resumable — event ids, a priming event with `retry`, and replay on
 * `Last-Event-ID` — so a client whose connection is cut during a call still gets that call's result.
 * The long call is gated by a deferred the test releases; nothing here waits on a timer.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createDeferred, type Deferred } from '../../src/contract/deferred.js'
import { createHost, defineTool, ToolRegistry, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { serveHttp, SSE_RETRY_MS, type HttpEndpoint } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { makeTempDir } from './serve-helpers.js'

const VERSION = '2025-11-25'
const tmp = makeTempDir('toolhost-mcp-resume-')
let host: Host
let endpoint: HttpEndpoint
let gate: Deferred<void>
let started: Deferred<void>

beforeAll(async () => {
  const registry = new ToolRegistry()
  registry.register(defineTool({
    name: 'gated',
    description: 'Runs until the test opens its gate.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    handler: async () => {
      started.resolve()
      await gate.promise
      return 'the long call finished'
    },
  }))
  host = await createHost({ root: tmp.dir, log: silentLogger, loadPlugins: false, registry, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } } })
  endpoint = await serveHttp(host, new McpSessions(), { port: 0, hostname: '127.0.0.1' })
})

afterEach(() => gate?.resolve())

afterAll(async () => {
  await endpoint?.close()
  await host?.close()
  tmp.remove()
})

function headersFor(sessionId?: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, ...(sessionId ? { 'mcp-session-id': sessionId } : {}), ...extra }
}

async function openSession(version = VERSION): Promise<string> {
  const init = await fetch(endpoint.url, {
    method: 'POST',
    headers: headersFor(),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'resume-test', version: '1' } } }),
  })
  expect(init.status).toBe(200)
  await init.text()
  const sessionId = init.headers.get('mcp-session-id')!
  await fetch(endpoint.url, { method: 'POST', headers: headersFor(sessionId), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }).then((r) => r.text())
  return sessionId
}

interface SseEvent {
  id?: string
  retry?: number
  data: string
}

/** Reads SSE events from a fetch response one at a time (a minimal parser: id, retry, data). */
function sseEvents(response: Response): { next: () => Promise<SseEvent | undefined> } {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n')
        if (end !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event: SseEvent = { data: '' }
          for (const line of block.split('\n')) {
            const [field, ...rest] = line.split(':')
            const value = rest.join(':').replace(/^ /, '')
            if (field === 'id') event.id = value
            else if (field === 'retry') event.retry = Number(value)
            else if (field === 'data') event.data += value
          }
          if (event.id !== undefined || event.data !== '') return event
          continue // a keep-alive comment
        }
        const { value, done } = await reader.read()
        if (done) return undefined
        buffer += value
      }
    },
  }
}

/** Starts the gated call on a raw POST stream; resolves once its priming event is read. */
async function startGatedCall(sessionId: string, controller: AbortController): Promise<{ priming: SseEvent }> {
  const response = await fetch(endpoint.url, {
    method: 'POST',
    headers: headersFor(sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'gated', arguments: {} } }),
    signal: controller.signal,
  })
  expect(response.headers.get('content-type')).toContain('text/event-stream')
  const priming = (await sseEvents(response).next())!
  return { priming }
}

/** Reconnects with Last-Event-ID; the server answers 409 until it has noticed the cut stream. */
async function resume(sessionId: string, lastEventId: string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(endpoint.url, { method: 'GET', headers: headersFor(sessionId, { accept: 'text/event-stream', 'last-event-id': lastEventId }) })
    if (response.status !== 409 || attempt === 200) return response
    await response.text()
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

async function resultOn(response: Response): Promise<unknown> {
  const events = sseEvents(response)
  for (;;) {
    const event = await events.next()
    if (event === undefined) throw new Error('the stream ended without the result')
    const message = JSON.parse(event.data) as { id?: number; result?: unknown }
    if (message.id === 7) return message.result
  }
}

describe('sessions: an unknown or ended session is 404', () => {
  test.each(['POST', 'GET', 'DELETE'])('%s with an mcp-session-id the server does not know', async (method) => {
    const response = await fetch(endpoint.url, {
      method,
      headers: headersFor('no-such-session'),
      ...(method === 'POST' ? { body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) } : {}),
    })
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { code: -32001, message: expect.stringMatching(/^Session not found/) } })
  })

  test('regression (issue 13): after DELETE the old id gets 404, and a new initialize opens a new session', async () => {
    const sessionId = await openSession()
    const deleted = await fetch(endpoint.url, { method: 'DELETE', headers: headersFor(sessionId) })
    expect(deleted.status).toBe(200)
    const late = await fetch(endpoint.url, { method: 'POST', headers: headersFor(sessionId), body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) })
    expect(late.status).toBe(404)
    const again = await openSession()
    expect(again).not.toBe(sessionId)
  })

  test('a request without a session id that is not initialize is 400', async () => {
    const response = await fetch(endpoint.url, { method: 'POST', headers: headersFor(), body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' }) })
    expect(response.status).toBe(400)
  })
})

describe('resumable streams', { timeout: 30_000 }, () => {
  test('a stream opens with a priming event: an id, empty data and retry', async () => {
    gate = createDeferred()
    started = createDeferred()
    const sessionId = await openSession()
    const { priming } = await startGatedCall(sessionId, new AbortController())
    expect(priming).toEqual({ id: expect.stringMatching(/.+_\d+$/), retry: SSE_RETRY_MS, data: '' })
  })

  test.each([
    { agreed: '2025-11-25', header: '2025-03-26', primed: true, why: 'the version agreed at initialize decides, not an older header' },
    { agreed: '2025-06-18', header: '2025-06-18', primed: false, why: 'a client of an older version cannot read an empty event' },
  ])('agreed $agreed, header $header: primed $primed ($why)', async ({ agreed, header, primed }) => {
    const sessionId = await openSession(agreed)
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers: headersFor(sessionId, { 'mcp-protocol-version': header }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
    })
    const first = (await sseEvents(response).next())!
    expect(first.data === '').toBe(primed)
  })

  test('cut mid-call, reconnected with Last-Event-ID while it runs: the result arrives on the new stream', async () => {
    gate = createDeferred()
    started = createDeferred()
    const sessionId = await openSession()
    const controller = new AbortController()
    const { priming } = await startGatedCall(sessionId, controller)
    await started.promise
    controller.abort() // the connection is cut; the call keeps running
    const resumed = await resume(sessionId, priming.id!)
    expect(resumed.status).toBe(200)
    gate.resolve()
    expect(await resultOn(resumed)).toMatchObject({ content: [{ type: 'text', text: 'the long call finished' }], isError: false })
  })

  test('cut mid-call, the call ends while nobody listens: reconnecting replays the result', async () => {
    gate = createDeferred()
    started = createDeferred()
    const sessionId = await openSession()
    const controller = new AbortController()
    const { priming } = await startGatedCall(sessionId, controller)
    await started.promise
    const finished = new Promise<void>((resolve) => {
      const stop = host.onEvent((event) => {
        if (event.type === 'finished') {
          stop()
          resolve()
        }
      })
    })
    controller.abort()
    gate.resolve()
    await finished
    const resumed = await resume(sessionId, priming.id!)
    expect(await resultOn(resumed)).toMatchObject({ content: [{ type: 'text', text: 'the long call finished' }] })
  })
})

describe('the SDK client resumes by itself', { timeout: 30_000 }, () => {
  test('its SSE stream cut during a long call, callTool still gets the result', async () => {
    gate = createDeferred()
    started = createDeferred()
    // The client's fetch, with every event stream it opens cuttable: `cut()` drops the connection
    // (the server sees it closed) and the client sees its stream fail, as on a network drop.
    const open = new Set<() => void>()
    const cuttableFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(url, init)
      if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response
      const upstream = response.body.getReader()
      let cut!: () => void
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          cut = () => {
            void upstream.cancel().catch(() => {})
            controller.error(new TypeError('terminated: the test cut the connection'))
          }
        },
        async pull(controller) {
          const { value, done } = await upstream.read()
          if (done) controller.close()
          else controller.enqueue(value)
        },
      })
      open.add(cut)
      return new Response(body, { status: response.status, headers: response.headers })
    }
    const client = new Client({ name: 'resume-sdk-test', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { fetch: cuttableFetch }))
    try {
      const call = client.callTool({ name: 'gated', arguments: {} })
      await started.promise
      for (const cut of open) cut()
      open.clear()
      gate.resolve()
      await expect(call).resolves.toMatchObject({ content: [{ type: 'text', text: 'the long call finished' }] })
    } finally {
      await client.close()
    }
  })
})
