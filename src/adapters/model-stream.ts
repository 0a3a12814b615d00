import { ToolhostError } from '../contract/errors.js'
import { AnthropicStreamReader } from './stream-anthropic.js'
import { isObject } from './stream-calls.js'
import { ChatStreamReader } from './stream-chat.js'
import { ResponsesStreamReader } from './stream-responses.js'
import type { FormatReader, ModelStreamEvent, ReadModelStreamOptions, StreamEnd, StreamStop } from './stream-types.js'

const ANTHROPIC_EVENTS = new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping'])

/**
 * True when `value` is a model's streaming response: an async iterable (an SDK `Stream`, a
 * `MessageStream`, an async generator of events) and not an array, a string or a message.
 *
 * @example
 * isModelStream(await openai.chat.completions.create({ model, messages, tools, stream: true })) // true
 * isModelStream(completion.choices[0]!.message) // false
 */
export function isModelStream(value: unknown): value is AsyncIterable<unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  try {
    return typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  } catch {
    return false
  }
}

/**
 * Reads a model's streaming response as its SDK yields it — Chat Completions chunks, Responses
 * stream events or Anthropic Messages stream events, known from the events themselves — and yields
 * each tool call the moment its block closes (Chat: another call's delta or the finish reason;
 * Responses: `response.output_item.done`; Anthropic: `content_block_stop`), text and reasoning deltas
 * as they arrive, and last an `end` event with the whole assistant turn as the API would have
 * returned it, every call in turn order and how the stream stopped.
 *
 * It never throws for the stream's fault: a stream that ends or breaks inside a call, an SDK
 * iterator that throws, or `signal` firing yields every call not yet closed with `finished: false`,
 * then the end (`stop` says which). On abort, or when the loop reading it stops early, the SDK's
 * iterator is closed (`return()`, and the SDK stream's own abort). A reply that reached its own end
 * is read on to the stream's end (the APIs end it right there), so an SDK's accumulator such as
 * `messages.stream()`'s `finalMessage()` completes too. It throws `E_USAGE` only for a stream whose
 * first event is no model event.
 *
 * @example
 * const stream = await openai.chat.completions.create({ model, messages, tools, stream: true })
 * for await (const event of readModelStream(stream, { signal })) {
 *   if (event.type === 'text') process.stdout.write(event.delta)
 *   if (event.type === 'call') console.log('closed:', event.call.name, event.call.arguments)
 *   if (event.type === 'end' && event.turn?.format === 'openai-chat') messages.push(event.turn.message)
 * }
 */
export async function* readModelStream(stream: AsyncIterable<unknown>, options: ReadModelStreamOptions = {}): AsyncGenerator<ModelStreamEvent, void, undefined> {
  const { signal } = options
  const iterator = stream[Symbol.asyncIterator]()
  let reader: FormatReader | undefined
  let stop: StreamStop | undefined
  let error: unknown
  let closed = false
  // The iterator said done: nothing to close (return() is for stopping early; MessageStream's aborts).
  let ended = false
  const close = (abort: boolean): void => {
    if (closed) return
    closed = true
    closeStream(stream, iterator, abort)
  }
  const aborted = abortPromise(signal)
  try {
    const out: ModelStreamEvent[] = []
    while (stop === undefined) {
      let next: IteratorResult<unknown>
      try {
        next = await (aborted ? Promise.race([iterator.next(), aborted.promise]) : iterator.next())
      } catch (thrown) {
        if (thrown === ABORTED) stop = 'aborted'
        else {
          stop = 'error'
          error = thrown
        }
        break
      }
      if (next.done) {
        ended = true
        break
      }
      const event = next.value
      if (!isObject(event)) continue
      if (!reader) {
        reader = readerFor(event)
        if (!reader) {
          close(true)
          throw new ToolhostError('E_USAGE', `readModelStream: ${describeEvent(event)} is no Chat Completions chunk, Responses stream event or Anthropic Messages stream event; pass the stream the SDK returned for stream: true`)
        }
      }
      reader.read(event, out)
      if (reader.error !== undefined) {
        stop = 'error'
        error = reader.error
      }
      // After the reply's own end (a finish reason, response.completed, message_stop) read on to the
      // stream's end: Chat may send a usage chunk, and an SDK's accumulator (messages.stream()'s
      // finalMessage(), its 'end' listeners) completes only when the stream has ended, not aborted.
      yield* out.splice(0)
      if (signal?.aborted) stop = 'aborted'
    }
    stop ??= reader?.done ? 'complete' : 'cut-off'
    if (stop !== 'complete') close(true)
    const end: StreamEnd = { type: 'end', stop, calls: [] }
    if (reader) {
      for (const call of reader.closeOpen(stop === 'complete' ? 'cut-off' : stop)) yield { type: 'call', call }
      end.format = reader.format
      end.turn = reader.turn()
      end.calls = reader.calls()
      if (reader.stopReason !== undefined) end.stopReason = reader.stopReason
    }
    if (stop === 'error') end.error = error
    yield end
  } finally {
    aborted?.dispose()
    // The loop reading this stopped early or the stream stopped short (abort the request); a stream
    // read to its end is left as it ended.
    if (!ended || stop !== 'complete') close(stop !== 'complete')
  }
}

function readerFor(event: Record<string, unknown>): FormatReader | undefined {
  if (event.object === 'chat.completion.chunk' || (Array.isArray(event.choices) && event.type === undefined)) return new ChatStreamReader()
  if (typeof event.type !== 'string') return undefined
  if (event.type.startsWith('response.')) return new ResponsesStreamReader()
  if (ANTHROPIC_EVENTS.has(event.type)) return new AnthropicStreamReader()
  return undefined
}

function describeEvent(event: Record<string, unknown>): string {
  return typeof event.type === 'string' ? `an event of type ${JSON.stringify(event.type)}` : `an object with keys ${Object.keys(event).slice(0, 5).join(', ') || '(none)'}`
}

const ABORTED = Symbol('aborted')

function abortPromise(signal: AbortSignal | undefined): { promise: Promise<never>; dispose(): void } | undefined {
  if (!signal) return undefined
  let onAbort = (): void => {}
  const promise = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(ABORTED)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  promise.catch(() => {})
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) }
}

// The SDKs' streams stop their request through their own abort (a pending next() settles then);
// return() closes the iterator. Neither is awaited: a stuck SDK must not hold the reader.
function closeStream(stream: unknown, iterator: AsyncIterator<unknown>, abort: boolean): void {
  if (abort) try {
    const s = stream as { abort?: unknown; controller?: unknown }
    if (typeof s.abort === 'function') (s.abort as () => void).call(stream)
    else if (s.controller instanceof AbortController) s.controller.abort()
  } catch {
    // a stream whose abort throws is closed by return() below
  }
  try {
    void iterator.return?.()?.catch(() => {})
  } catch {
    // nothing more can be done about an iterator whose return() throws
  }
}
