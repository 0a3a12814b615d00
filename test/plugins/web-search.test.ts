// web_search against a local HTTP server standing in for SearXNG: results, limits, and every way
// the service can fail (unreachable, HTTP error, not JSON, wrong shape) as E_TOOL_FAILED.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { registry, type Host } from '../../src/index.js'
import { call, hostOn, makeSandbox, type Sandbox } from '../workspace/sandbox.js'

let sb: Sandbox
let server: Server
let base: string
let respond: (url: URL) => { status: number; body: string }
const seen: URL[] = []
const saved = process.env.SEARXNG_URL

const RESULTS = {
  results: [
    { title: 'First  result', url: 'https://a.example/1', content: 'snippet\n one' },
    { title: 'Second', url: 'https://b.example/2' },
    { title: 'No url, skipped' },
    { title: 'Third', url: 'https://c.example/3', content: 'three' },
  ],
}

beforeAll(async () => {
  sb = makeSandbox('toolhost-web-')
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local')
    seen.push(url)
    const { status, body } = respond(url)
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/searx`
  registry.clear()
})

afterEach(() => {
  seen.length = 0
  if (saved === undefined) delete process.env.SEARXNG_URL
  else process.env.SEARXNG_URL = saved
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  registry.clear()
  sb.cleanup()
})

async function withHost<T>(url: string | undefined, work: (host: Host) => Promise<T>, config: Record<string, unknown> = {}): Promise<T> {
  if (url === undefined) delete process.env.SEARXNG_URL
  else process.env.SEARXNG_URL = url
  const host = await hostOn(sb.root, {}, config)
  try {
    return await work(host)
  } finally {
    await host.close()
  }
}

describe('web_search', () => {
  test("reads SEARXNG_URL from the host's environment (createHost({ env }), where .env is loaded), not process.env", async () => {
    delete process.env.SEARXNG_URL
    respond = () => ({ status: 200, body: JSON.stringify(RESULTS) })
    const host = await hostOn(sb.root, { env: { SEARXNG_URL: base } })
    try {
      const result = await call(host, 'web_search', { query: 'from the host env', max_results: 1 })
      expect(result).toMatchObject({ ok: true })
      expect(seen[0]!.searchParams.get('q')).toBe('from the host env')
    } finally {
      await host.close()
    }
  })

  test('queries /search?q=…&format=json under SEARXNG_URL and lists title, url and snippet', async () => {
    respond = () => ({ status: 200, body: JSON.stringify(RESULTS) })
    const result = await withHost(base, (host) => call(host, 'web_search', { query: 'toolhost docs', max_results: 2 }))
    expect(result.content).toBe('1. First result\n   https://a.example/1\n   snippet one\n2. Second\n   https://b.example/2')
    expect(seen[0]!.pathname).toBe('/searx/search')
    expect(seen[0]!.searchParams.get('q')).toBe('toolhost docs')
    expect(seen[0]!.searchParams.get('format')).toBe('json')
  })

  test('defaults to web_search.max_results', async () => {
    respond = () => ({ status: 200, body: JSON.stringify(RESULTS) })
    const result = await withHost(base, (host) => call(host, 'web_search', { query: 'q' }), { web_search: { max_results: 1 } })
    expect(result.content).toBe('1. First result\n   https://a.example/1\n   snippet one')
  })

  test('no results says so', async () => {
    respond = () => ({ status: 200, body: '{"results":[]}' })
    expect((await withHost(base, (host) => call(host, 'web_search', { query: 'nothing' }))).content).toBe('no results for "nothing"')
  })

  test('without SEARXNG_URL it is hidden and refused by name', async () => {
    await withHost(undefined, async (host) => {
      expect((await host.definitions()).map((d) => d.function.name)).not.toContain('web_search')
      const result = await call(host, 'web_search', { query: 'q' })
      expect(result.error?.code).toBe('E_TOOL_UNAVAILABLE')
      expect(result.content).toMatch(/SEARXNG_URL/)
    })
  })

  test('with SEARXNG_URL it is offered, parallel-safe, read-only and open-world', async () => {
    await withHost(base, async (host) => {
      expect((await host.definitions()).map((d) => d.function.name)).toContain('web_search')
      const tool = registry.get('web_search')!
      expect([tool.parallelSafe, tool.readOnly({ query: 'q' }), tool.openWorld]).toEqual([true, true, true])
    })
  })

  test.each([
    ['an HTTP error', () => ({ status: 403, body: 'forbidden' }), /HTTP 403.*search\.formats/],
    ['a body that is not JSON', () => ({ status: 200, body: '<html>' }), /not JSON/],
    ['JSON without results', () => ({ status: 200, body: '{"answers":[]}' }), /without a "results" list/],
  ])('%s is E_TOOL_FAILED with the reason', async (_name, reply, message) => {
    respond = reply
    const result = await withHost(base, (host) => call(host, 'web_search', { query: 'q' }))
    expect(result.error?.code).toBe('E_TOOL_FAILED')
    expect(result.content).toMatch(message)
  })

  test('an unreachable service is E_TOOL_FAILED naming it', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const result = await withHost(`http://127.0.0.1:${port}`, (host) => call(host, 'web_search', { query: 'q' }))
    expect(result.error?.code).toBe('E_TOOL_FAILED')
    // The URL is SEARXNG_URL's value, which may carry a token: errors never show it.
    expect(result.content).toMatch(/could not reach the search service at \[value of SEARXNG_URL\]: ECONNREFUSED/)
    expect(result.content).not.toContain(String(port))
  })
})
