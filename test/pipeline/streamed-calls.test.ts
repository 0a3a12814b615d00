// host.run(stream) and host.stream(stream): a model's streaming reply handed over as its SDK yields
// it. Each call starts the moment its block closes (before the stream ends), every call seen gets
// exactly one result in its slot (a cut-off one E_ARGS_INVALID), and the whole turn is told at the end.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { silentLogger } from '../../src/contract/logger.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import { defineTool } from '../../src/contract/define-tool.js'

type Event = Record<string, unknown>

const chunk = (delta: Event, finish: string | null = null): Event => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta, finish_reason: finish }] })
const callDelta = (index: number, first: { id: string; name: string } | undefined, args: string): Event =>
  chunk({ tool_calls: [{ index, ...(first ? { id: first.id, type: 'function', function: { name: first.name, arguments: args } } : { function: { arguments: args } }) }] })

/** The events of `events`, the marker `'wait'` holding the stream until `release()`; notes in `log` when it waits and ends. */
function held(events: Array<Event | 'wait'>) {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const iterable = {
    async *[Symbol.asyncIterator]() {
      for (const event of events) {
        if (event === 'wait') {
          log.push('stream waits')
          await gate
          continue
        }
        yield event
      }
      log.push('stream ended')
    },
  }
  return { iterable, release }
}

let root: string
let host: Host
let log: string[]

beforeEach(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-streamed-'))
  log = []
  const registry = new ToolRegistry()
  registry.register(defineTool({
    name: 'note', description: 'notes its text', parallelSafe: true,
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    handler: ({ text }: { text: string }) => {
      log.push(`ran ${text}`)
      return text
    },
  }))
  host = await createHost({ root, registry, loadPlugins: false, config: { env_file: '', permissions: { mode: 'bypass' } }, log: silentLogger })
})

afterEach(async () => {
  await host.close()
  rmSync(root, { recursive: true, force: true })
})

describe('a model stream handed to the host', () => {
  test('host.run starts a call as its block closes, before the stream ends, and answers every call in turn order', async () => {
    const source = held([
      chunk({ role: 'assistant', content: 'Noting.' }),
      callDelta(0, { id: 'c1', name: 'note' }, '{"text":"one"}'),
      callDelta(1, { id: 'c2', name: 'note' }, '{"text":'),
      'wait',
      callDelta(1, undefined, '"two"}'),
      chunk({}, 'tool_calls'),
    ])
    const told: string[] = []
    const running = host.run(source.iterable, { onStreamEvent: (e) => told.push(e.type === 'end' ? `end ${e.stop}` : `${e.type} ${e.delta}`) })
    // c1's block closed when c2's first delta came: it runs while the stream still waits.
    await expect.poll(() => log).toContain('ran one')
    await expect.poll(() => log).toContain('stream waits')
    expect(log).not.toContain('stream ended')
    source.release()
    const results = await running
    expect(results.map((r) => [r.id, r.ok, r.content])).toEqual([['c1', true, 'one'], ['c2', true, 'two']])
    expect(told).toEqual(['text Noting.', 'end complete'])
  })

  test('a call the stream cuts off gets one E_ARGS_INVALID result saying so; the calls before it ran', async () => {
    const source = held([callDelta(0, { id: 'c1', name: 'note' }, '{"text":"one"}'), callDelta(1, { id: 'c2', name: 'note' }, '{"text":"tw')])
    const results = await host.run(source.iterable)
    expect(results.map((r) => [r.id, r.ok])).toEqual([['c1', true], ['c2', false]])
    expect(results[1]!.error).toMatchObject({ code: 'E_ARGS_INVALID' })
    expect(results[1]!.error!.message).toContain('cut off')
  })

  test('host.stream yields each result as it completes and ends with the stream', async () => {
    const source = held([callDelta(0, { id: 'c1', name: 'note' }, '{"text":"one"}'), callDelta(1, { id: 'c2', name: 'note' }, '{"text":"two"}'), chunk({}, 'tool_calls')])
    const seen: string[] = []
    for await (const result of host.stream(source.iterable)) seen.push(result.id)
    expect(seen.sort()).toEqual(['c1', 'c2'])
  })

  test('in serial mode the calls are gathered and run in turn order once the stream ends', async () => {
    const source = held([callDelta(0, { id: 'c1', name: 'note' }, '{"text":"one"}'), callDelta(1, { id: 'c2', name: 'note' }, '{"text":"two"}'), 'wait', chunk({}, 'tool_calls')])
    const running = host.run(source.iterable, { mode: 'serial' })
    await expect.poll(() => log).toContain('stream waits')
    expect(log).not.toContain('ran one')
    source.release()
    const results = await running
    expect(results.map((r) => r.id)).toEqual(['c1', 'c2'])
    expect(log).toEqual(['stream waits', 'stream ended', 'ran one', 'ran two'])
  })
})
