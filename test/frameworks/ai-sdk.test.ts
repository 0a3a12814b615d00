// toolhost/ai-sdk: a real generateText loop (AI SDK 6) against the SDK's mock language model. The
// model's calls of one step go through toolhost as one batch: the read of a key waits for the write
// of the same key issued beside it; failures and images reach the model in the SDK's own shapes.
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { afterEach, describe, expect, test } from 'vitest'
import { aiSdkTools, toAiSdkOutput } from '../../src/frameworks/ai-sdk.js'
import { PNG, storeHost, turnsPass, until, type Store } from './store-tools.js'

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } }
const toolCalls = (calls: Array<[id: string, name: string, input: object]>): GenerateResult => ({
  content: calls.map(([toolCallId, toolName, input]) => ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) })),
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
})
const answer = (text: string): GenerateResult => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] })

let store: Store | undefined
afterEach(async () => {
  store?.gate.resolve()
  await store?.host.close()
  store = undefined
})

describe('aiSdkTools(host): a ToolSet that runs every call through toolhost', () => {
  test('a generateText loop: one step’s calls are one toolhost batch; a read beside a write of the same key waits for it', async () => {
    store = await storeHost()
    const waits: Array<{ id: string; on: string[] }> = []
    store.host.onEvent((event) => {
      if (event.type === 'waiting') waits.push({ id: event.id, on: event.on.map((w) => w.id) })
    })
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCalls([
          ['call_w', 'store_write', { path: 'notes.txt', text: 'new text' }],
          ['call_r', 'store_read', { path: 'notes.txt' }],
          ['call_s', 'snapshot', {}],
          ['call_bad', 'store_read', { pth: 'notes.txt' }],
        ]),
        answer('done'),
      ],
    })
    const tools = await aiSdkTools(store.host)
    expect(Object.keys(tools).sort()).toEqual(['snapshot', 'store_read', 'store_write'])
    const run = generateText({ model, tools, stopWhen: stepCountIs(4), prompt: 'Write notes.txt, then read it back.' })
    await until(() => store!.trace.includes('start:store_write'), 'the write to start')
    await turnsPass(50)
    // The read was issued beside the write, in the same step: it waits for the write, not beside it.
    expect(store.trace).toEqual(['start:store_write'])
    expect(waits).toEqual([{ id: 'call_r', on: ['call_w'] }])
    store.gate.resolve()
    const result = await run

    expect(result.text).toBe('done')
    expect(store.trace).toEqual(['start:store_write', 'end:store_write', 'start:store_read', 'end:store_read'])
    const outputs = Object.fromEntries(result.steps[0]!.toolResults.map((r) => [r.toolCallId, r.output]))
    expect(outputs.call_r).toMatchObject({ ok: true, content: 'new text' })

    // What the model read back in the second request, in the SDK's own shapes.
    const prompt = model.doGenerateCalls[1]!.prompt
    const results = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).flatMap((p) => (p.type === 'tool-result' ? [p] : []))
    const byId = Object.fromEntries(results.map((p) => [p.toolCallId, p.output]))
    expect(byId.call_w).toEqual({ type: 'text', value: 'wrote notes.txt' })
    expect(byId.call_r).toEqual({ type: 'text', value: 'new text' })
    expect(byId.call_s).toEqual({ type: 'content', value: [{ type: 'text', text: '0 keys' }, { type: 'image-data', data: PNG, mediaType: 'image/png' }] })
    expect(byId.call_bad).toMatchObject({ type: 'error-text', value: expect.stringMatching(/^E_ARGS_INVALID: invalid arguments for store_read: `path` is required but missing; `pth` is not an accepted field/) })
  })

  test('the host’s permissions hold: in plan mode the write is refused and the model reads why', async () => {
    store = await storeHost({}, { mode: 'plan' })
    const model = new MockLanguageModelV3({ doGenerate: [toolCalls([['call_w', 'store_write', { path: 'a', text: 'x' }]]), answer('ok')] })
    const result = await generateText({ model, tools: await aiSdkTools(store.host), stopWhen: stepCountIs(3), prompt: 'Write a.' })
    expect(store.trace).toEqual([])
    expect(result.steps[0]!.toolResults[0]!.output).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    const sent = model.doGenerateCalls[1]!.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []))
    expect(sent[0]).toMatchObject({ type: 'tool-result', output: { type: 'error-text', value: expect.stringMatching(/^E_DENIED: the host is in plan mode/) } })
  })

  test('names and toolsets pick the tools', async () => {
    store = await storeHost()
    expect(Object.keys(await aiSdkTools(store.host, { names: ['snapshot'] }))).toEqual(['snapshot'])
  })

  test('toAiSdkOutput: text, error-text, content parts', () => {
    expect(toAiSdkOutput({ id: 'a', name: 't', ok: true, content: 'hi' })).toEqual({ type: 'text', value: 'hi' })
    expect(toAiSdkOutput({ id: 'a', name: 't', ok: false, content: 'x', error: { code: 'E_TIMEOUT', message: 'slow' } })).toEqual({ type: 'error-text', value: 'E_TIMEOUT: slow' })
    expect(toAiSdkOutput({ id: 'a', name: 't', ok: true, content: '', blocks: [{ type: 'resource', resource: { uri: 'file:///r/a.pdf', mimeType: 'application/pdf', blob: 'JVBE' } }, { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }))
      .toEqual({ type: 'content', value: [{ type: 'file-data', data: 'JVBE', mediaType: 'application/pdf', filename: 'a.pdf' }, { type: 'text', text: '[audio audio/wav, 3 B, not shown]' }] })
  })
})
