// toolhost/ai-sdk on AI SDK 7 (the `ai-7` devDependency, an npm alias of ai@7): the adapter's own
// `import … from 'ai'` is pointed at ai@7 here, as it resolves in a project that installed ai@7, and a
// real generateText loop runs against ai@7's mock language model (spec v4). ai@7 needs Node 22: on
// Node 20 the file is skipped, and CI runs it in its Node 22 and 24 subset (.ci/run).
import { describe, expect, test, vi } from 'vitest'
import { PNG, storeHost, turnsPass, until, type Store } from './store-tools.js'

vi.mock('ai', async () => await import('ai-7'))

const NODE_MAJOR = Number(process.versions.node.split('.')[0])

describe.skipIf(NODE_MAJOR < 22)('aiSdkTools(host) on AI SDK 7 (reason: ai@7 needs Node 22; CI runs this file on Node 22 and 24)', () => {
  test('a generateText loop: one step’s calls are one toolhost batch (the read waits for the write beside it); results, failures and images reach the model in ai@7’s shapes', async () => {
    const { generateText, stepCountIs } = await import('ai-7')
    const { MockLanguageModelV4 } = await import('ai-7/test')
    const { aiSdkTools } = await import('../../src/frameworks/ai-sdk.js')
    const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } }
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [
            { type: 'tool-call', toolCallId: 'call_w', toolName: 'store_write', input: JSON.stringify({ path: 'notes.txt', text: 'new text' }) },
            { type: 'tool-call', toolCallId: 'call_r', toolName: 'store_read', input: JSON.stringify({ path: 'notes.txt' }) },
            { type: 'tool-call', toolCallId: 'call_s', toolName: 'snapshot', input: '{}' },
            { type: 'tool-call', toolCallId: 'call_bad', toolName: 'store_read', input: JSON.stringify({ pth: 'notes.txt' }) },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        },
        { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
      ],
    })
    const store: Store = await storeHost()
    try {
      const waits: Array<{ id: string; on: string[] }> = []
      store.host.onEvent((event) => {
        if (event.type === 'waiting') waits.push({ id: event.id, on: event.on.map((w) => w.id) })
      })
      // The adapter is compiled against ai@6's types; at run time its 'ai' is ai@7 (vi.mock above).
      const tools = (await aiSdkTools(store.host)) as unknown as Parameters<typeof generateText>[0]['tools']
      const run = generateText({ model, tools, stopWhen: stepCountIs(4), prompt: 'Write notes.txt, then read it back.' })
      await until(() => store.trace.includes('start:store_write'), 'the write to start')
      await turnsPass(50)
      expect(store.trace).toEqual(['start:store_write'])
      expect(waits).toEqual([{ id: 'call_r', on: ['call_w'] }])
      store.gate.resolve()
      const result = await run
      expect(result.text).toBe('done')
      expect(store.trace).toEqual(['start:store_write', 'end:store_write', 'start:store_read', 'end:store_read'])

      const prompt = model.doGenerateCalls[1]!.prompt
      const sent = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).flatMap((p) => (p.type === 'tool-result' ? [p] : []))
      const byId = Object.fromEntries(sent.map((p) => [p.toolCallId, p.output]))
      expect(byId.call_w).toEqual({ type: 'text', value: 'wrote notes.txt' })
      expect(byId.call_r).toEqual({ type: 'text', value: 'new text' })
      // The adapter's image-data part (the v6 form) reaches an ai@7 model as its file part.
      expect(byId.call_s).toEqual({ type: 'content', value: [{ type: 'text', text: '0 keys' }, { type: 'file', data: { type: 'data', data: PNG }, mediaType: 'image/png' }] })
      expect(byId.call_bad).toMatchObject({ type: 'error-text', value: expect.stringMatching(/^E_ARGS_INVALID: invalid arguments for store_read/) })
    } finally {
      store.gate.resolve()
      await store.host.close()
    }
  })
})
