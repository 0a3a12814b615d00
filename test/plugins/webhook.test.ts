import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { silentLogger } from '../../src/contract/logger.js'
import { registry } from '../../src/registry/registry.js'

// notify_webhook against a local HTTP server this test starts (127.0.0.1 only).
interface Received {
  method: string | undefined
  contentType: string | undefined
  body: unknown
}

let server: Server
let url: string
let received: Received[] = []
let answer: { status: number; body: string } = { status: 200, body: 'ok' }
let host: Host
const saved = process.env.TOOLHOST_WEBHOOK_URL

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = ''
    request.on('data', (chunk: Buffer) => (text += chunk.toString()))
    request.on('end', () => resolve(text))
  })

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const text = await readBody(request)
    received.push({ method: request.method, contentType: request.headers['content-type'], body: JSON.parse(text) })
    response.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  registry.clear()
  expect(await loadPluginFile(path.resolve('plugins/webhook.ts'), registry)).toEqual({ ok: true, tools: ['notify_webhook'] })
  host = await createHost({ config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } }, loadPlugins: false, log: silentLogger })
})

afterAll(async () => {
  await host.close()
  await new Promise((resolve) => server.close(resolve))
  if (saved === undefined) delete process.env.TOOLHOST_WEBHOOK_URL
  else process.env.TOOLHOST_WEBHOOK_URL = saved
})

beforeEach(() => {
  received = []
  answer = { status: 200, body: 'ok' }
  process.env.TOOLHOST_WEBHOOK_URL = url
})

afterEach(() => {
  delete process.env.TOOLHOST_WEBHOOK_URL
})

const notify = (args: Record<string, unknown>) => host.call({ id: 'n', name: 'notify_webhook', arguments: JSON.stringify(args) })

describe('notify_webhook', () => {
  test('POSTs {title, message} as JSON and reports the status', async () => {
    expect(await notify({ message: 'build finished', title: 'CI' })).toEqual({ id: 'n', name: 'notify_webhook', ok: true, content: 'notification sent (HTTP 200)' })
    expect(received).toEqual([{ method: 'POST', contentType: 'application/json', body: { title: 'CI', message: 'build finished' } }])
  })

  test('the title defaults to "toolhost"', async () => {
    await notify({ message: 'done' })
    expect(received[0]?.body).toEqual({ title: 'toolhost', message: 'done' })
  })

  test('an HTTP error status → E_TOOL_FAILED with the status and the start of the body', async () => {
    answer = { status: 500, body: 'database unavailable' }
    const result = await notify({ message: 'x' })
    expect(result.error?.code).toBe('E_TOOL_FAILED')
    expect(result.error?.message).toBe('notify_webhook failed: the webhook answered HTTP 500 Internal Server Error: database unavailable; the notification was not delivered')
  })

  test('an unreachable webhook → E_TOOL_FAILED saying why', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    process.env.TOOLHOST_WEBHOOK_URL = `http://127.0.0.1:${port}/hook`
    const result = await notify({ message: 'x' })
    expect(result.error?.code).toBe('E_TOOL_FAILED')
    expect(result.error?.message).toMatch(new RegExp(`^notify_webhook failed: could not reach the webhook at http://127\\.0\\.0\\.1:${port}: fetch failed: .*ECONNREFUSED`))
    expect(received).toEqual([])
  })

  test('an empty message is refused before anything is sent', async () => {
    expect((await notify({ message: '' })).error?.code).toBe('E_ARGS_INVALID')
    expect(received).toEqual([])
  })
})

describe('gating', () => {
  test.each([
    { value: undefined, reason: 'missing env var TOOLHOST_WEBHOOK_URL' },
    { value: '', reason: 'missing env var TOOLHOST_WEBHOOK_URL' },
    { value: 'not a url', reason: 'TOOLHOST_WEBHOOK_URL is not a URL' },
    { value: 'ftp://127.0.0.1/x', reason: 'TOOLHOST_WEBHOOK_URL must be http(s), got ftp:' },
  ])('TOOLHOST_WEBHOOK_URL=$value: hidden ($reason), and a call by name is refused without sending', async ({ value, reason }) => {
    if (value === undefined) delete process.env.TOOLHOST_WEBHOOK_URL
    else process.env.TOOLHOST_WEBHOOK_URL = value
    expect(await host.definitions()).toEqual([])
    expect(await registry.explainAvailability()).toEqual([{ name: 'notify_webhook', available: false, reason }])
    const result = await notify({ message: 'x' })
    expect(result.error).toMatchObject({ code: 'E_TOOL_UNAVAILABLE', message: expect.stringMatching(/^notify_webhook is not available right now \(/) })
    expect(result.error!.message).toContain(`(${reason}); use another tool`)
    expect(received).toEqual([])
  })

  test('shown when TOOLHOST_WEBHOOK_URL is an http URL', async () => {
    expect((await host.definitions()).map((d) => d.function.name)).toEqual(['notify_webhook'])
  })
})
