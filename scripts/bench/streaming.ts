/**
 * Benchmark 10 — a model's streamed reply through the real SDKs (`openai` Chat and Responses,
 * `@anthropic-ai/sdk` create and stream()) from a local SSE server that writes N calls over T
 * seconds (each call's arguments in four deltas, evenly paced). Streamed: the SDK's stream handed to
 * `host.run`, each call admitted as its block closes. Gathered: the SDK's own accumulator
 * (`finalChatCompletion`, `finalResponse`, `finalMessage`) read to the end, then `host.run` on the
 * whole reply. Per call: the delay from the server writing the event that closes its block to its
 * handler starting (loopback, the SDK's parsing and the host's admission included); per run: the
 * batch's end from the request. Two tools of D ms: parallel-safe, and a barrier (each waits for the
 * one before, so streaming overlaps the chain with the reply).
 */
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { defineTool } from '../../src/contract/define-tool.js'
import type { ToolContext } from '../../src/contract/types.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import { SseModelServer, type SseStep } from '../../test/pipeline/sse-model-server.js'
import { streamedReply, type ReplyFormat } from '../../test/pipeline/streamed-replies.js'
import { createBenchHost, type BenchHost } from './bench-host.js'
import type { BenchOptions } from './options.js'
import { fmt, median, verdict, type Table } from './table.js'

const TOOL_MS = 100
const CHUNKS = 4
const TARGET_MS = 5

type Way = 'streamed' | 'gathered'
type ToolKind = 'parallel' | 'barrier'

interface Api {
  name: string
  format: ReplyFormat
  /** The SDK's stream (streamed), or the whole reply its accumulator gathered (gathered; undefined: not measured this way). */
  streamed(tools: Tools): Promise<AsyncIterable<unknown>>
  gathered?(tools: Tools): Promise<object>
}

interface Tools {
  host: BenchHost['host']
  name: string
}

interface Run {
  delays: number[]
  replyEnd: number
  batchEnd: number
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

function apis(openai: OpenAI, anthropic: Anthropic): Api[] {
  const user = 'Run the steps.'
  const model = 'gpt-5.4'
  const claude = 'claude-sonnet-5-5'
  return [
    {
      name: 'openai chat.completions',
      format: 'openai-chat',
      streamed: async ({ host }) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: user }], tools: await host.definitions('openai-chat'), stream: true }),
      gathered: async ({ host }) => openai.chat.completions.stream({ model, messages: [{ role: 'user', content: user }], tools: await host.definitions('openai-chat') }).finalChatCompletion(),
    },
    {
      name: 'openai responses',
      format: 'openai-responses',
      streamed: async ({ host }) => openai.responses.create({ model, input: user, tools: await host.definitions('openai-responses'), stream: true }),
      gathered: async ({ host }) => openai.responses.stream({ model, input: user, tools: await host.definitions('openai-responses') }).finalResponse(),
    },
    {
      name: 'anthropic messages.create',
      format: 'anthropic',
      streamed: async ({ host }) => anthropic.messages.create({ model: claude, max_tokens: 4096, messages: [{ role: 'user', content: user }], tools: await host.definitions('anthropic'), stream: true }),
      gathered: async ({ host }) => anthropic.messages.stream({ model: claude, max_tokens: 4096, messages: [{ role: 'user', content: user }], tools: await host.definitions('anthropic') }).finalMessage(),
    },
    {
      name: 'anthropic messages.stream()',
      format: 'anthropic',
      streamed: async ({ host }) => anthropic.messages.stream({ model: claude, max_tokens: 4096, messages: [{ role: 'user', content: user }], tools: await host.definitions('anthropic') }),
    },
  ]
}

export async function runStreaming(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const calls = options.streamCalls
  const seconds = options.streamSeconds
  const runs = options.quick ? 1 : 3
  const starts = new Map<string, number>()
  const registry = new ToolRegistry()
  const handler = async (_args: unknown, ctx: ToolContext): Promise<string> => {
    starts.set(ctx.call.id, performance.now())
    await sleep(TOOL_MS)
    return 'ok'
  }
  const none = { type: 'object', properties: { step: { type: 'integer' } }, additionalProperties: false } as const
  registry.register(defineTool({ name: 'step_parallel', description: 'Sleeps (benchmark).', parameters: none, parallelSafe: true, handler }))
  registry.register(defineTool({ name: 'step_barrier', description: 'Sleeps, one at a time (benchmark).', parameters: none, handler }))
  const bench = await createBenchHost({ registry, dispatch: { max_workers: Math.max(8, calls) } })
  const server = new SseModelServer()
  const url = await server.start()
  const openai = new OpenAI({ apiKey: 'bench', baseURL: `${url}/v1`, maxRetries: 0 })
  const anthropic = new Anthropic({ apiKey: 'bench', baseURL: url, maxRetries: 0 })
  const pause = (seconds * 1000) / (calls * CHUNKS)

  const once = async (api: Api, way: Way, kind: ToolKind): Promise<Run> => {
    const name = `step_${kind}`
    const ids = Array.from({ length: calls }, (_, i) => `call_${i}`)
    const steps: SseStep[] = streamedReply(api.format, {
      text: 'Running the steps.',
      calls: ids.map((id, i) => ({ id, name, arguments: JSON.stringify({ step: i }) })),
      chunks: CHUNKS,
      between: () => [{ pauseMs: pause }],
    })
    // The reply's last event (Chat: [DONE]) marks its end.
    let last = steps.length - 1
    while (last > 0 && !('data' in steps[last]!)) last--
    steps[last] = { ...(steps[last] as { data: unknown }), mark: 'end' }
    server.marks.clear()
    starts.clear()
    server.reply(steps)
    const tools = { host: bench.host, name }
    const t0 = performance.now()
    const results = way === 'streamed' ? await bench.host.run(await api.streamed(tools)) : await bench.host.run(await api.gathered!(tools))
    const batchEnd = performance.now() - t0
    const failed = results.filter((r) => !r.ok)
    if (results.length !== calls || failed.length > 0) throw new Error(`${api.name} ${way}: ${results.length} results, ${failed.length} failed: ${failed[0]?.error?.message ?? ''}`)
    const delays = ids.map((id, i) => starts.get(id)! - server.marks.get(`close:${i}`)!)
    return { delays, replyEnd: server.marks.get('end')! - t0, batchEnd }
  }

  const rows: Array<Array<string | number>> = []
  const medians: string[] = []
  let allMet = true
  try {
    for (const api of apis(openai, anthropic)) {
      // One run discarded per API: its SDK's code and the host's path warm (JIT, the first connection).
      await once(api, 'streamed', 'parallel')
      for (const kind of ['parallel', 'barrier'] as const) {
        for (const way of ['streamed', 'gathered'] as const) {
          if (way === 'gathered' && !api.gathered) continue
          const measured: Run[] = []
          for (let r = 0; r < runs; r++) measured.push(await once(api, way, kind))
          const delays = measured.flatMap((m) => m.delays)
          const mid = median(delays)
          rows.push([api.name, kind, way, fmt(mid, 2), fmt(percentile(delays, 95), 2), fmt(median(measured.map((m) => m.replyEnd)) / 1000, 2), fmt(median(measured.map((m) => m.batchEnd)) / 1000, 2)])
          if (way === 'streamed' && kind === 'parallel') {
            medians.push(`${api.name} ${fmt(mid, 2)} ms`)
            allMet &&= mid <= TARGET_MS
          }
        }
      }
    }
  } finally {
    await server.close()
    await bench.dispose()
  }
  const table: Table = {
    title: `10. Streaming: ${calls} calls over ${fmt(seconds, 1)} s through the real SDKs, block close → call start (${runs} run${runs === 1 ? '' : 's'} each)`,
    headers: ['API (SDK call)', 'tools', 'way', 'close→start median ms', 'p95 ms', 'reply end s', 'batch end s'],
    rows,
    notes: [
      `each call's arguments in ${CHUNKS} deltas, ${fmt(pause, 1)} ms apart; tools sleep ${TOOL_MS} ms; close = the server writing the event that closes the block (Chat: the next call's first delta, or the finish), start = the handler's first line; both on this process's clock`,
      'gathered: the SDK\'s accumulator (finalChatCompletion, finalResponse, finalMessage) read to the end, then host.run on the whole reply; its close→start is the wait for the reply\'s end',
      'barrier tools run one at a time: a streamed call\'s close→start includes the wait for the call before it',
      'before each API\'s rows one streamed run is made and discarded (warm-up)',
    ],
  }
  return { tables: [table], targets: [`streaming: block close → call start, median ≤ ${TARGET_MS} ms (streamed, parallel tools): ${medians.join(', ')} — ${verdict(allMet)}`] }
}
