// toolhost/openai-agents: a real Agents SDK run (0.20, on its own openai@7 client) against a
// fake Responses API on 127.0.0.1 that answers with recorded responses. The turn's function calls go
// through toolhost as one batch (the read of a key waits for the write beside it), optional
// arguments stay optional, strict mode's nulls are taken out, and images reach the model as items.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, OpenAIProvider, run, setTracingDisabled, type Model } from '@openai/agents'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { agentsTools, toAgentsOutput } from '../../src/frameworks/openai-agents.js'
import type { HostEvent } from '../../src/index.js'
import { PNG, storeHost, turnsPass, until, type Store } from './store-tools.js'

type Item = Record<string, unknown>
const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 30 }
const response = (id: string, output: Item[]): Item => ({ id, object: 'response', created_at: 1764460800, status: 'completed', model: 'gpt-4.1-2025-04-14', output, usage, parallel_tool_calls: true, tool_choice: 'auto', tools: [] })
const call = (callId: string, name: string, args: object): Item => ({ type: 'function_call', id: `fc_${callId}`, call_id: callId, name, arguments: JSON.stringify(args), status: 'completed' })
const message = (text: string): Item => ({ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] })

/** A Responses API stand-in: answers POST /v1/responses with the queued responses, keeps each request body. */
class FakeResponses {
  readonly requests: Item[] = []
  readonly #queue: Item[] = []
  readonly #server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      const next = req.method === 'POST' && req.url === '/v1/responses' ? this.#queue.shift() : undefined
      if (!next) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `unexpected ${req.method} ${req.url}` } }))
        return
      }
      this.requests.push(JSON.parse(body) as Item)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(next))
    })
  })

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`
  }

  answer(...responses: Item[]): void {
    this.#queue.push(...responses)
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()))
  }
}

const fake = new FakeResponses()
let model: Model
let store: Store | undefined

beforeAll(async () => {
  // No trace export: nothing may leave this machine.
  setTracingDisabled(true)
  // The SDK's own client (Agents 0.20 brings openai@7; the project's openai devDependency is 6).
  model = await new OpenAIProvider({ apiKey: 'test-key', baseURL: await fake.start(), useResponses: true }).getModel('gpt-4.1')
})
afterAll(() => fake.close())
afterEach(async () => {
  store?.gate.resolve()
  await store?.host.close()
  store = undefined
  fake.requests.length = 0
})

function outputsOf(request: Item): Record<string, unknown> {
  const input = request.input as Item[]
  return Object.fromEntries(input.filter((i) => i.type === 'function_call_output').map((i) => [String(i.call_id), i.output]))
}

describe('agentsTools(host): Agents SDK function tools that run every call through toolhost', () => {
  test('an agent run: the turn’s calls are one toolhost batch; a read beside a write of the same key waits for it; optional arguments stay optional', async () => {
    store = await storeHost()
    const waits: Array<{ id: string; on: string[] }> = []
    store.host.onEvent((event: HostEvent) => {
      if (event.type === 'waiting') waits.push({ id: event.id, on: event.on.map((w) => w.id) })
    })
    fake.answer(
      response('resp_1', [
        call('call_w', 'store_write', { path: 'notes.txt', text: 'new text' }),
        call('call_r', 'store_read', { path: 'notes.txt' }),
        call('call_s', 'snapshot', {}),
        call('call_bad', 'store_read', { pth: 'notes.txt' }),
      ]),
      response('resp_2', [message('done')]),
    )
    const agent = new Agent({ name: 'helper', instructions: 'Use the tools.', model, tools: await agentsTools(store.host) })
    const result = run(agent, 'Write notes.txt, then read it back.')
    await until(() => store!.trace.includes('start:store_write'), 'the write to start')
    await turnsPass(50)
    expect(store.trace).toEqual(['start:store_write'])
    // The read reached the scheduler while the write ran, and waits for it.
    expect(waits).toEqual([{ id: 'call_r', on: ['call_w'] }])
    store.gate.resolve()
    expect((await result).finalOutput).toBe('done')
    expect(store.trace).toEqual(['start:store_write', 'end:store_write', 'start:store_read', 'end:store_read'])

    const [first, second] = fake.requests
    const tools = first!.tools as Item[]
    const read = tools.find((t) => t.name === 'store_read')!
    expect(read).toMatchObject({ type: 'function', strict: false })
    expect((read.parameters as Item).required).toEqual(['path'])

    const outputs = outputsOf(second!)
    expect(outputs.call_w).toBe('wrote notes.txt')
    expect(outputs.call_r).toBe('new text')
    expect(outputs.call_s).toEqual([{ type: 'input_text', text: '0 keys' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}` }])
    expect(outputs.call_bad).toMatch(/^error E_ARGS_INVALID: invalid arguments for store_read: `path` is required but missing/)
  })

  test('strict: true sends toolhost’s strict rewrite, and the nulls the model then sends are taken out before validation', async () => {
    store = await storeHost()
    store.files.set('k', 'abcdef')
    fake.answer(response('resp_1', [call('call_r', 'store_read', { path: 'k', limit: null }), call('call_r2', 'store_read', { path: 'k', limit: 3 })]), response('resp_2', [message('ok')]))
    const agent = new Agent({ name: 'helper', instructions: 'Use the tools.', model, tools: await agentsTools(store.host, { names: ['store_read'], strict: true }) })
    expect((await run(agent, 'Read k.')).finalOutput).toBe('ok')
    const [first, second] = fake.requests
    expect((first!.tools as Item[])[0]).toMatchObject({
      name: 'store_read',
      strict: true,
      parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: ['integer', 'null'] } }, required: ['path', 'limit'], additionalProperties: false },
    })
    expect(outputsOf(second!)).toEqual({ call_r: 'abcdef', call_r2: 'abc' })
  })

  test('the host’s permissions hold: with no one to ask, the write is refused and the model reads why', async () => {
    store = await storeHost({}, { mode: 'ask' })
    fake.answer(response('resp_1', [call('call_w', 'store_write', { path: 'a', text: 'x' })]), response('resp_2', [message('ok')]))
    const agent = new Agent({ name: 'helper', instructions: 'Use the tools.', model, tools: await agentsTools(store.host) })
    await run(agent, 'Write a.')
    expect(store.trace).toEqual([])
    expect(outputsOf(fake.requests[1]!).call_w).toMatch(/^error E_DENIED: store_write did not run: it needs approval .* no one could be asked; nobody refused it/)
  })

  test('toAgentsOutput: text, or items for a rich result', () => {
    expect(toAgentsOutput({ id: 'a', name: 't', ok: true, content: 'hi' })).toBe('hi')
    expect(toAgentsOutput({ id: 'a', name: 't', ok: false, content: 'x', error: { code: 'E_TIMEOUT', message: 'slow' } })).toBe('error E_TIMEOUT: slow')
    expect(toAgentsOutput({ id: 'a', name: 't', ok: true, content: '', blocks: [{ type: 'resource', resource: { uri: 'file:///r/a.pdf', mimeType: 'application/pdf', blob: 'JVBE' } }] }))
      .toEqual([{ type: 'file', file: { data: 'JVBE', mediaType: 'application/pdf', filename: 'a.pdf' } }])
  })
})
