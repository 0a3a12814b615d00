// readModelStream on recorded event sequences of each format: calls yielded as their blocks close
// (interleaved parallel Chat calls included), the whole turn at the end, and every call reported
// unfinished when the stream ends, throws or is aborted inside it.
import { describe, expect, test } from 'vitest'
import { isModelStream, readModelStream } from '../../src/adapters/model-stream.js'
import type { ModelStreamEvent } from '../../src/adapters/stream-types.js'
import { toCalls } from '../../src/adapters/parse-batch.js'

type Event = Record<string, unknown>

/** An async iterable of `events` that records what was read and whether return() closed it. */
function recorded(events: Event[], options: { throwAt?: number; hangAt?: number } = {}) {
  const state = { read: 0, returned: false }
  const iterable = {
    [Symbol.asyncIterator]() {
      return {
        next: async (): Promise<IteratorResult<Event>> => {
          if (state.read === options.throwAt) throw new Error('socket hang up')
          if (state.read === options.hangAt) return new Promise(() => {})
          const value = events[state.read++]
          return value === undefined ? { done: true, value: undefined } : { done: false, value }
        },
        return: async (): Promise<IteratorResult<Event>> => {
          state.returned = true
          return { done: true, value: undefined }
        },
      }
    },
  }
  return { iterable, state }
}

/** Reads the whole stream, noting after how many source events each call was yielded. */
async function readAll(source: ReturnType<typeof recorded>, signal?: AbortSignal): Promise<{ events: ModelStreamEvent[]; closedAfter: Record<string, number> }> {
  const events: ModelStreamEvent[] = []
  const closedAfter: Record<string, number> = {}
  for await (const event of readModelStream(source.iterable, { signal })) {
    events.push(event)
    if (event.type === 'call') closedAfter[event.call.id] = source.state.read
  }
  return { events, closedAfter }
}

const end = (events: ModelStreamEvent[]) => {
  const last = events.at(-1)
  if (last?.type !== 'end') throw new Error('no end event')
  return last
}

const chunk = (delta: Event, finish: string | null = null): Event => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta, finish_reason: finish }] })
const callDelta = (index: number, first: { id: string; name: string } | undefined, args: string): Event =>
  chunk({ tool_calls: [{ index, ...(first ? { id: first.id, type: 'function', function: { name: first.name, arguments: args } } : { function: { arguments: args } }) }] })

const CHAT: Event[] = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Reading ' }),
  chunk({ content: 'both.' }),
  callDelta(0, { id: 'call_a', name: 'read_file' }, ''),
  callDelta(0, undefined, '{"path":'),
  callDelta(0, undefined, '"a.txt"}'),
  callDelta(1, { id: 'call_b', name: 'read_file' }, ''), // 7th event: call_a closes here
  callDelta(1, undefined, '{"path":"b.txt"}'),
  chunk({}, 'tool_calls'), // 9th: call_b closes at the finish
  { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [], usage: { total_tokens: 9 } },
]

describe('Chat Completions chunks', () => {
  test('each call is yielded when the next call’s first delta or the finish arrives; the turn is the assistant message', async () => {
    const { events, closedAfter } = await readAll(recorded(CHAT))
    expect(closedAfter).toEqual({ call_a: 7, call_b: 9 })
    expect(events.filter((e) => e.type === 'text').map((e) => e.type === 'text' && e.delta).join('')).toBe('Reading both.')
    const last = end(events)
    expect(last).toMatchObject({ stop: 'complete', stopReason: 'tool_calls', format: 'openai-chat' })
    expect(last.turn).toEqual({
      format: 'openai-chat',
      message: {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
          { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } },
        ],
      },
    })
    // The turn is what toCalls and the next request take, as with a whole reply.
    expect(last.turn?.format === 'openai-chat' && toCalls(last.turn.message)).toEqual([
      { id: 'call_a', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_b', name: 'read_file', arguments: '{"path":"b.txt"}' },
    ])
    expect(last.calls.map((c) => [c.id, c.index, c.finished, c.format])).toEqual([['call_a', 0, true, 'openai-chat'], ['call_b', 1, true, 'openai-chat']])
  })

  test('interleaved parallel calls: a call closes once another call’s delta arrives after its arguments are whole, never before', async () => {
    const source = recorded([
      callDelta(0, { id: 'call_a', name: 'write_file' }, '{"path":"a.txt",'),
      callDelta(1, { id: 'call_b', name: 'read_file' }, '{"path":'),
      callDelta(0, undefined, '"text":"hi"}'),
      callDelta(1, undefined, '"b.txt"}'),
      callDelta(0, undefined, ' '), // call_a closed at the 4th: this whitespace is not a new call
      chunk({}, 'tool_calls'),
    ])
    const { events, closedAfter } = await readAll(source)
    // call_a's arguments were whole after the 3rd event, and call_b's delta came next.
    expect(closedAfter).toEqual({ call_a: 4, call_b: 6 })
    expect(end(events).calls.map((c) => [c.id, c.index, c.arguments])).toEqual([
      ['call_a', 0, '{"path":"a.txt","text":"hi"}'],
      ['call_b', 1, '{"path":"b.txt"}'],
    ])
  })

  test('a stream that ends inside a call’s arguments reports it unfinished, cut off', async () => {
    const { events } = await readAll(recorded(CHAT.slice(0, 8).concat([callDelta(1, undefined, '')]).slice(0, 8)))
    const last = end(events)
    expect(last.stop).toBe('cut-off')
    expect(last.calls.map((c) => [c.id, c.finished, c.cutOff])).toEqual([['call_a', true, undefined], ['call_b', false, 'cut-off']])
  })

  test('finish_reason length leaves the open call unfinished', async () => {
    const { events } = await readAll(recorded([callDelta(0, { id: 'call_a', name: 'read_file' }, '{"pa'), chunk({}, 'length')]))
    expect(end(events)).toMatchObject({ stop: 'complete', stopReason: 'length', calls: [{ id: 'call_a', finished: false, cutOff: 'cut-off' }] })
  })

  test('an SDK iterator that throws: the calls seen are reported, the error is in the end, nothing is thrown', async () => {
    const source = recorded(CHAT, { throwAt: 6 })
    const { events } = await readAll(source)
    const last = end(events)
    expect(last.stop).toBe('error')
    expect(String(last.error)).toContain('socket hang up')
    expect(last.calls.map((c) => [c.id, c.finished, c.cutOff])).toEqual([['call_a', false, 'error']])
    expect(source.state.returned).toBe(true)
  })

  test('an abort mid-stream closes the iterator (return()) while next() is pending, and reports every call seen', async () => {
    const source = recorded(CHAT, { hangAt: 7 })
    const controller = new AbortController()
    const events: ModelStreamEvent[] = []
    for await (const event of readModelStream(source.iterable, { signal: controller.signal })) {
      events.push(event)
      if (event.type === 'call') setTimeout(() => controller.abort(), 5) // call_a closed; the stream then hangs
    }
    const last = end(events)
    expect(last.stop).toBe('aborted')
    expect(last.calls.map((c) => [c.id, c.finished, c.cutOff])).toEqual([['call_a', true, undefined], ['call_b', false, 'aborted']])
    expect(source.state.returned).toBe(true)
  })

  test('a loop that stops reading early closes the iterator', async () => {
    const source = recorded(CHAT)
    for await (const event of readModelStream(source.iterable)) if (event.type === 'text') break
    expect(source.state.returned).toBe(true)
  })
})

const RESPONSES: Event[] = [
  { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', status: 'in_progress', output: [] } },
  { type: 'response.output_item.added', output_index: 0, sequence_number: 1, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
  { type: 'response.reasoning_summary_text.delta', output_index: 0, item_id: 'rs_1', summary_index: 0, delta: 'Two reads.', sequence_number: 2 },
  { type: 'response.output_item.done', output_index: 0, sequence_number: 3, item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two reads.' }] } },
  { type: 'response.output_item.added', output_index: 1, sequence_number: 4, item: { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'read_file', arguments: '', status: 'in_progress' } },
  { type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc_1', delta: '{"path":', sequence_number: 5 },
  { type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc_1', delta: '"a.txt"}', sequence_number: 6 },
  { type: 'response.function_call_arguments.done', output_index: 1, item_id: 'fc_1', arguments: '{"path":"a.txt"}', sequence_number: 7 },
  { type: 'response.output_item.done', output_index: 1, sequence_number: 8, item: { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'read_file', arguments: '{"path":"a.txt"}', status: 'completed' } },
  { type: 'response.output_item.added', output_index: 2, sequence_number: 9, item: { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'read_file', arguments: '', status: 'in_progress' } },
  { type: 'response.function_call_arguments.delta', output_index: 2, item_id: 'fc_2', delta: '{"path":"b', sequence_number: 10 },
  { type: 'response.function_call_arguments.delta', output_index: 2, item_id: 'fc_2', delta: '.txt"}', sequence_number: 11 },
  { type: 'response.output_item.done', output_index: 2, sequence_number: 12, item: { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'read_file', arguments: '{"path":"b.txt"}', status: 'completed' } },
  { type: 'response.completed', sequence_number: 13, response: { id: 'resp_1', status: 'completed', output: 'filled below' } },
]
const RESPONSE_OUTPUT = [RESPONSES[3]!.item, RESPONSES[8]!.item, RESPONSES[12]!.item]
;(RESPONSES[13]!.response as Event).output = RESPONSE_OUTPUT

describe('Responses stream events', () => {
  test('each call is yielded at its response.output_item.done; the turn is the response’s output items', async () => {
    const { events, closedAfter } = await readAll(recorded(RESPONSES))
    expect(closedAfter).toEqual({ call_a: 9, call_b: 13 })
    expect(events.filter((e) => e.type === 'reasoning')).toEqual([{ type: 'reasoning', delta: 'Two reads.' }])
    const last = end(events)
    expect(last).toMatchObject({ stop: 'complete', stopReason: 'completed', turn: { format: 'openai-responses', output: RESPONSE_OUTPUT } })
    expect(last.turn?.format === 'openai-responses' && toCalls(last.turn.output)).toEqual([
      { id: 'call_a', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_b', name: 'read_file', arguments: '{"path":"b.txt"}' },
    ])
  })

  test('a stream that ends inside a call: unfinished, and its item carries what arrived so the next request can answer it', async () => {
    const { events } = await readAll(recorded(RESPONSES.slice(0, 11)))
    const last = end(events)
    expect(last.stop).toBe('cut-off')
    expect(last.calls.map((c) => [c.id, c.finished, c.arguments])).toEqual([['call_a', true, '{"path":"a.txt"}'], ['call_b', false, '{"path":"b']])
    expect(last.turn?.format === 'openai-responses' && last.turn.output[2]).toMatchObject({ type: 'function_call', call_id: 'call_b', arguments: '{"path":"b', status: 'incomplete' })
  })

  test('an error event stops the stream: the open call is unfinished', async () => {
    const { events } = await readAll(recorded([...RESPONSES.slice(0, 10), { type: 'error', code: 'server_error', message: 'boom', sequence_number: 10 }]))
    expect(end(events)).toMatchObject({ stop: 'error', error: { message: 'boom' }, calls: [{ id: 'call_a', finished: true }, { id: 'call_b', finished: false, cutOff: 'error' }] })
  })
})

const ANTHROPIC: Event[] = [
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5', stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Read both.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Reading.' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: {} } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"path": "a' } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '.txt"}' } },
  { type: 'content_block_stop', index: 2 }, // 12th
  { type: 'ping' },
  { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: {} } },
  { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"path": "b.txt"}' } },
  { type: 'content_block_stop', index: 3 }, // 16th
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } },
  { type: 'message_stop' },
]

describe('Anthropic Messages stream events', () => {
  test('a reply that reached message_stop is read on to the stream\'s end and not closed early (so messages.stream()\'s finalMessage() completes)', async () => {
    const source = recorded([...ANTHROPIC, { type: 'ping' }])
    const { events } = await readAll(source)
    expect(end(events)).toMatchObject({ stop: 'complete' })
    // Every event, the ping after message_stop included, and then the read that said done.
    expect(source.state.read).toBe(ANTHROPIC.length + 2)
    expect(source.state.returned).toBe(false)
  })

  test('each tool_use is yielded at its content_block_stop; the turn has thinking with its signature, text and tool_use inputs', async () => {
    const { events, closedAfter } = await readAll(recorded(ANTHROPIC))
    expect(closedAfter).toEqual({ toolu_a: 12, toolu_b: 16 })
    expect(events.filter((e) => e.type === 'reasoning' || e.type === 'text')).toEqual([{ type: 'reasoning', delta: 'Read both.' }, { type: 'text', delta: 'Reading.' }])
    const last = end(events)
    expect(last).toMatchObject({ stop: 'complete', stopReason: 'tool_use', format: 'anthropic' })
    expect(last.turn).toEqual({
      format: 'anthropic',
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Read both.', signature: 'EqQBCgIYAhIM' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a.txt' } },
          { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'b.txt' } },
        ],
      },
    })
    expect(last.calls.map((c) => [c.id, c.arguments, c.finished])).toEqual([['toolu_a', '{"path": "a.txt"}', true], ['toolu_b', '{"path": "b.txt"}', true]])
  })

  test('a stream that breaks inside a tool_use: unfinished, its block’s input {} so the turn can be sent back', async () => {
    const source = recorded(ANTHROPIC, { throwAt: 10 })
    const { events } = await readAll(source)
    const last = end(events)
    expect(last).toMatchObject({ stop: 'error', calls: [{ id: 'toolu_a', finished: false, cutOff: 'error', arguments: '{"path": "a' }] })
    expect(last.turn?.format === 'anthropic' && last.turn.message.content[2]).toEqual({ type: 'tool_use', id: 'toolu_a', name: 'read_file', input: {} })
    expect(source.state.returned).toBe(true)
  })
})

describe('what is a model stream', () => {
  test('isModelStream: an async iterable, not an array, string or message', async () => {
    expect(isModelStream(recorded([]).iterable)).toBe(true)
    expect(isModelStream((async function* () {})())).toBe(true)
    expect(isModelStream([{ id: 'a', name: 'b', arguments: '{}' }])).toBe(false)
    expect(isModelStream('[]')).toBe(false)
    expect(isModelStream({ role: 'assistant', content: [] })).toBe(false)
    expect(isModelStream(null)).toBe(false)
  })

  test('a stream of something else throws E_USAGE at its first event and is closed; an empty stream just ends', async () => {
    const source = recorded([{ hello: 'world' }])
    await expect(readAll(source)).rejects.toMatchObject({ code: 'E_USAGE', message: expect.stringContaining('no Chat Completions chunk') })
    expect(source.state.returned).toBe(true)
    const { events } = await readAll(recorded([]))
    expect(events).toEqual([{ type: 'end', stop: 'cut-off', calls: [] }])
  })
})
