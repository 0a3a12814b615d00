// Issue 30: the real `openai` and `@anthropic-ai/sdk` clients streaming from a local SSE server, and
// the stream each returns handed to host.run / host.stream as it is: chat.completions.create({ stream:
// true }), responses.create({ stream: true }), anthropic.messages.create({ stream: true }) and
// anthropic.messages.stream(). The server holds the rest of the reply until the call whose block
// just closed has started (a gate: a host that waited for the whole reply would never get it), so
// passing proves each call starts as its block closes. Then: results in call order, the turn rebuilt
// and sent back with toMessages in the next request, a stream broken inside a call's arguments, and
// an abort mid-stream that leaves nothing running.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import type { MessageParam, Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { StreamedTurn } from '../../src/adapters/stream-types.js'
import { createDeferred, type Deferred } from '../../src/contract/deferred.js'
import { defineTool } from '../../src/contract/define-tool.js'
import { silentLogger } from '../../src/contract/logger.js'
import type { ToolResult } from '../../src/contract/types.js'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import { SseModelServer } from './sse-model-server.js'
import { streamedReply, type ReplyFormat, type ReplyScript, type ScriptedCall } from './streamed-replies.js'

const server = new SseModelServer()
let openai: OpenAI
let anthropic: Anthropic

beforeAll(async () => {
  const url = await server.start()
  openai = new OpenAI({ apiKey: 'test-key', baseURL: `${url}/v1`, maxRetries: 0 })
  anthropic = new Anthropic({ apiKey: 'test-key', baseURL: url, maxRetries: 0 })
})
afterAll(() => server.close())

/** One way an agent gets a streamed reply from its SDK, and sends the next request after it. */
interface Sdk {
  name: string
  format: ReplyFormat
  open(host: Host): Promise<AsyncIterable<unknown>>
  next(host: Host, turn: StreamedTurn, results: readonly ToolResult[]): Promise<AsyncIterable<unknown>>
}

const USER = 'Note one, then two.'

const SDKS: Sdk[] = [
  {
    name: 'openai.chat.completions.create({ stream: true })',
    format: 'openai-chat',
    open: async (host) => {
      const tools: ChatCompletionTool[] = await host.definitions('openai-chat')
      return openai.chat.completions.create({ model: 'gpt-5.4', messages: [{ role: 'user', content: USER }], tools, stream: true })
    },
    next: async (host, turn, results) => {
      if (turn.format !== 'openai-chat') throw new Error(`a Chat turn, not ${turn.format}`)
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: USER }, turn.message, ...host.toMessages(results, 'openai-chat')]
      return openai.chat.completions.create({ model: 'gpt-5.4', messages, tools: await host.definitions('openai-chat'), stream: true })
    },
  },
  {
    name: 'openai.responses.create({ stream: true })',
    format: 'openai-responses',
    open: async (host) => {
      const tools: FunctionTool[] = await host.definitions('openai-responses')
      return openai.responses.create({ model: 'gpt-5.4', input: USER, tools, stream: true })
    },
    next: async (host, turn, results) => {
      if (turn.format !== 'openai-responses') throw new Error(`a Responses turn, not ${turn.format}`)
      // The turn's output items are typed as plain objects (any item the API may send): the one cast.
      const input: ResponseInputItem[] = [{ role: 'user', content: USER }, ...(turn.output as unknown as ResponseInputItem[]), ...host.toMessages(results, 'openai-responses')]
      return openai.responses.create({ model: 'gpt-5.4', input, tools: await host.definitions('openai-responses'), stream: true })
    },
  },
  {
    name: 'anthropic.messages.create({ stream: true })',
    format: 'anthropic',
    open: async (host) => {
      const tools: AnthropicTool[] = await host.definitions('anthropic')
      return anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages: [{ role: 'user', content: USER }], tools, stream: true })
    },
    next: async (host, turn, results) => anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages: anthropicMessages(host, turn, results), tools: await host.definitions('anthropic'), stream: true }),
  },
  {
    name: 'anthropic.messages.stream()',
    format: 'anthropic',
    open: async (host) => anthropic.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages: [{ role: 'user', content: USER }], tools: await host.definitions('anthropic') }),
    next: async (host, turn, results) => anthropic.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages: anthropicMessages(host, turn, results), tools: await host.definitions('anthropic') }),
  },
]

function anthropicMessages(host: Host, turn: StreamedTurn, results: readonly ToolResult[]): MessageParam[] {
  if (turn.format !== 'anthropic') throw new Error(`an Anthropic turn, not ${turn.format}`)
  // The turn's blocks are typed as plain objects (any block the API may send): the one cast.
  return [{ role: 'user', content: USER }, { role: 'assistant', content: turn.message.content as unknown as MessageParam['content'] }, host.toMessages(results, 'anthropic')]
}

const call = (id: string, text: string): ScriptedCall => ({ id, name: 'note', arguments: JSON.stringify({ text }) })

let root: string
let host: Host
let log: string[]
/** Each note's start, by its text; a note whose `release` is set waits for it (or its signal). */
let started: Map<string, Deferred<void>>
let release: Map<string, Promise<void>>
let settled: Map<string, Deferred<string>>

const startOf = (text: string): Deferred<void> => {
  if (!started.has(text)) started.set(text, createDeferred<void>())
  return started.get(text)!
}
const settledOf = (text: string): Deferred<string> => {
  if (!settled.has(text)) settled.set(text, createDeferred<string>())
  return settled.get(text)!
}

beforeEach(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-sdk-streams-'))
  log = []
  started = new Map()
  release = new Map()
  settled = new Map()
  const registry = new ToolRegistry()
  registry.register(defineTool({
    name: 'note', description: 'Notes its text.', parallelSafe: true,
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    handler: async ({ text }: { text: string }, ctx) => {
      log.push(`start ${text}`)
      startOf(text).resolve()
      try {
        const gate = release.get(text)
        if (gate) {
          await new Promise<void>((resolve, reject) => {
            const onAbort = (): void => reject(new Error(`${text} was aborted`))
            if (ctx.call.signal.aborted) onAbort()
            ctx.call.signal.addEventListener('abort', onAbort, { once: true })
            void gate.then(resolve).finally(() => ctx.call.signal.removeEventListener('abort', onAbort))
          })
        }
        log.push(`end ${text}`)
        settledOf(text).resolve('returned')
        return `noted ${text}`
      } catch (error) {
        settledOf(text).resolve('aborted')
        throw error
      }
    },
  }))
  host = await createHost({ root, registry, loadPlugins: false, log: silentLogger, env: {}, config: { env_file: '', plugins: { dirs: [] }, permissions: { mode: 'bypass' } } })
})

afterEach(async () => {
  await host.close()
  rmSync(root, { recursive: true, force: true })
  server.requests.length = 0
})

describe.each(SDKS)('$name handed to the host', (sdk) => {
  test('each call starts as its block closes (the server holds the rest until it has), results in call order, the turn rebuilt, toMessages and the next request work', async () => {
    const calls = [call('call_1', 'one'), call('call_2', 'two'), call('call_3', 'three')]
    // The first note runs until the stream has ended: the later ones finish first, yet run answers in call order.
    const streamEnded = createDeferred<void>()
    release.set('one', streamEnded.promise)
    const script: ReplyScript = { text: 'Noting.', calls, afterClose: (i) => [{ until: startOf(['one', 'two', 'three'][i]!).promise }] }
    server.reply(streamedReply(sdk.format, script))
    const texts: string[] = []
    let turn: StreamedTurn | undefined
    let stop: string | undefined
    const running = host.run(await sdk.open(host), {
      onStreamEvent: (event) => {
        if (event.type === 'text') texts.push(event.delta)
        if (event.type === 'end') {
          turn = event.turn
          stop = event.stop
          streamEnded.resolve()
        }
      },
    })
    const results = await running
    expect(results.map((r) => [r.id, r.ok, r.content])).toEqual([['call_1', true, 'noted one'], ['call_2', true, 'noted two'], ['call_3', true, 'noted three']])
    // Every note started while the stream was still held open after its block.
    expect(log.indexOf('start two')).toBeLessThan(log.indexOf('end one'))
    expect(log.indexOf('end three')).toBeLessThan(log.indexOf('end one'))
    expect(texts.join('')).toBe('Noting.')
    expect(stop).toBe('complete')
    expect(turn).toBeDefined()
    expect(toolCallsOf(turn!)).toEqual(calls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.arguments) as unknown })))
    expect(textOf(turn!)).toBe('Noting.')

    // The next request: the rebuilt turn and the results, as the API wants them; its reply (text only) runs nothing.
    server.reply(streamedReply(sdk.format, { text: 'All noted.', calls: [] }))
    let second: StreamedTurn | undefined
    const none = await host.run(await sdk.next(host, turn!, results), { onStreamEvent: (event) => event.type === 'end' && (second = event.turn) })
    expect(none).toEqual([])
    expect(second && textOf(second)).toBe('All noted.')
    expect(answersIn(sdk.format, server.requests[1]!.body)).toEqual({ call_1: 'noted one', call_2: 'noted two', call_3: 'noted three' })
    expect(callsIn(sdk.format, server.requests[1]!.body)).toEqual(['call_1', 'call_2', 'call_3'])
  })

  test('host.stream yields each result as it completes, while the stream is still open', async () => {
    const calls = [call('call_1', 'one'), call('call_2', 'two')]
    const seen = createDeferred<void>()
    // The reply's rest waits until host.stream has yielded the first result.
    server.reply(streamedReply(sdk.format, { calls, afterClose: (i) => (i === 0 ? [{ until: seen.promise }] : []) }))
    const order: string[] = []
    for await (const result of host.stream(await sdk.open(host))) {
      order.push(result.id)
      seen.resolve()
    }
    expect(order).toEqual(['call_1', 'call_2'])
  })

  test('a stream broken inside a call’s arguments (the server destroys the socket): every call seen gets one result, the cut one E_ARGS_INVALID', async () => {
    const calls = [call('call_1', 'one'), call('call_2', 'two'), call('call_3', 'three')]
    server.reply(streamedReply(sdk.format, { calls, stopInside: { index: 1, then: [{ until: startOf('one').promise }, { destroy: true }] } }))
    const results = await host.run(await sdk.open(host))
    expect(results.map((r) => [r.id, r.ok])).toEqual([['call_1', true], ['call_2', false]])
    expect(results[1]!.error).toMatchObject({ code: 'E_ARGS_INVALID' })
    expect(results[1]!.error!.message).toMatch(/note did not run: the reply was cut off inside its arguments \(the stream (broke|ended)\)/)
    expect(log).toEqual(['start one', 'end one'])
  })

  test('an abort mid-stream: the running call is interrupted, the open one E_ARGS_INVALID, the request closed, nothing left running', async () => {
    const calls = [call('call_1', 'one'), call('call_2', 'two')]
    const never = new Promise<void>(() => {})
    release.set('one', never)
    // The stream hangs inside call_2's arguments, and the first note never returns on its own.
    const steps = streamedReply(sdk.format, { calls, stopInside: { index: 1, then: [{ until: never }] } })
    server.reply(steps)
    const read = createDeferred<void>()
    let events = steps.filter((step) => 'data' in step).length
    const stream = observed(await sdk.open(host), () => --events === 0 && read.resolve())
    const controller = new AbortController()
    const running = host.run(stream, { signal: controller.signal })
    // Abort once the first note runs and every event the server wrote (call_2's first delta last) was read.
    await Promise.all([startOf('one').promise, read.promise])
    controller.abort()
    const results = await running
    expect(results.map((r) => [r.id, r.ok, r.error?.code])).toEqual([['call_1', false, 'E_INTERRUPTED'], ['call_2', false, 'E_ARGS_INVALID']])
    expect(results[1]!.error!.message).toContain('the run was interrupted')
    // The handler saw its signal and returned; the SDK's request was closed (the server saw the client go).
    expect(await settledOf('one').promise).toBe('aborted')
    await expect.poll(() => server.requests[0]!.wentAway).toBe(true)
    expect(log).toEqual(['start one'])
  })
})

test('anthropic.messages.stream(): after host.run has read it, the SDK\'s finalMessage() is the turn the end event told (what docs/embedding.md sends back)', async () => {
  server.reply(streamedReply('anthropic', { text: 'Noting.', calls: [call('call_1', 'one')] }))
  const stream = anthropic.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages: [{ role: 'user', content: USER }], tools: await host.definitions('anthropic') })
  let turn: StreamedTurn | undefined
  const results = await host.run(stream, { onStreamEvent: (event) => event.type === 'end' && (turn = event.turn) })
  expect(results.map((r) => r.content)).toEqual(['noted one'])
  const final = await stream.finalMessage()
  expect(turn).toMatchObject({ format: 'anthropic', message: { role: 'assistant', content: final.content } })
  expect(final.content.map((b) => b.type)).toEqual(['text', 'tool_use'])
})

/**
 * The SDK's stream itself (its abort and controller reached through), with `onEvent` told of each
 * event its iterator yields: how a test knows the host has been handed an event.
 */
function observed<T extends AsyncIterable<unknown>>(stream: T, onEvent: () => void): T {
  return new Proxy(stream, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (key !== Symbol.asyncIterator) return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
      return () => {
        const iterator = target[Symbol.asyncIterator]()
        return {
          async next() {
            const next = await iterator.next()
            if (!next.done) onEvent()
            return next
          },
          return: async (value?: unknown) => (await iterator.return?.(value)) ?? { done: true, value: undefined },
        }
      }
    },
  })
}

function toolCallsOf(turn: StreamedTurn): Array<{ id: string; name: string; arguments: unknown }> {
  if (turn.format === 'openai-chat') return (turn.message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) as unknown }))
  if (turn.format === 'openai-responses') return turn.output.filter((i) => i.type === 'function_call').map((i) => ({ id: String(i.call_id), name: String(i.name), arguments: JSON.parse(String(i.arguments)) as unknown }))
  return turn.message.content.filter((b) => b.type === 'tool_use').map((b) => ({ id: String(b.id), name: String(b.name), arguments: b.input }))
}

function textOf(turn: StreamedTurn): string {
  if (turn.format === 'openai-chat') return turn.message.content ?? ''
  if (turn.format === 'openai-responses') {
    return turn.output.filter((i) => i.type === 'message').flatMap((i) => i.content as Array<{ text?: string }>).map((p) => p.text ?? '').join('')
  }
  return turn.message.content.filter((b) => b.type === 'text').map((b) => String(b.text)).join('')
}

type Body = Record<string, unknown>

/** The tool results a request body carries, by call id. */
function answersIn(format: ReplyFormat, body: Body): Record<string, unknown> {
  if (format === 'openai-chat') return Object.fromEntries((body.messages as Body[]).filter((m) => m.role === 'tool').map((m) => [String(m.tool_call_id), m.content]))
  if (format === 'openai-responses') return Object.fromEntries((body.input as Body[]).filter((i) => i.type === 'function_call_output').map((i) => [String(i.call_id), i.output]))
  const user = (body.messages as Body[]).at(-1)!
  return Object.fromEntries((user.content as Body[]).filter((b) => b.type === 'tool_result').map((b) => [String(b.tool_use_id), b.content]))
}

/** The ids of the assistant turn's calls a request body carries back. */
function callsIn(format: ReplyFormat, body: Body): string[] {
  if (format === 'openai-chat') return ((body.messages as Body[]).find((m) => m.role === 'assistant')!.tool_calls as Body[]).map((c) => String(c.id))
  if (format === 'openai-responses') return (body.input as Body[]).filter((i) => i.type === 'function_call').map((i) => String(i.call_id))
  const assistant = (body.messages as Body[]).find((m) => m.role === 'assistant')!
  return (assistant.content as Body[]).filter((b) => b.type === 'tool_use').map((b) => String(b.id))
}
