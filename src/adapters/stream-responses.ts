import { asEvent } from './stream-chat.js'
import { isObject, StreamCalls } from './stream-calls.js'
import type { FormatReader, ModelStreamEvent, StreamedCall, StreamedTurn, StreamStop } from './stream-types.js'

/**
 * Responses API stream events. A `function_call` item opens at `response.output_item.added` and
 * closes at `response.output_item.done` (unfinished when its status is `incomplete`). The turn is
 * `response.completed`'s output, or the items as they were built when the stream stopped short.
 */
export class ResponsesStreamReader implements FormatReader {
  readonly format = 'openai-responses' as const
  done = false
  error: unknown = undefined
  stopReason: string | undefined
  readonly #calls = new StreamCalls('openai-responses')
  readonly #items = new Map<number, Record<string, unknown>>()
  #output: Array<Record<string, unknown>> | undefined

  read(event: Record<string, unknown>, out: ModelStreamEvent[]): void {
    const at = typeof event.output_index === 'number' ? event.output_index : -1
    switch (event.type) {
      case 'response.output_item.added':
        if (!isObject(event.item)) return
        this.#items.set(at, { ...event.item })
        if (event.item.type === 'function_call') {
          const call = this.#calls.open(at, stringOf(event.item.call_id), stringOf(event.item.name))
          call.arguments = stringOf(event.item.arguments) ?? ''
        }
        return
      case 'response.function_call_arguments.delta': {
        const call = this.#calls.get(at)
        if (call && typeof event.delta === 'string') call.arguments += event.delta
        return
      }
      case 'response.function_call_arguments.done': {
        const call = this.#calls.get(at)
        if (call && typeof event.arguments === 'string') call.arguments = event.arguments
        return
      }
      case 'response.output_item.done':
        if (!isObject(event.item)) return
        this.#items.set(at, event.item)
        if (event.item.type === 'function_call') this.#closeItem(at, event.item, out)
        return
      case 'response.output_text.delta':
        if (typeof event.delta === 'string') out.push({ type: 'text', delta: event.delta })
        return
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (typeof event.delta === 'string') out.push({ type: 'reasoning', delta: event.delta })
        return
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.done = true
        if (isObject(event.response)) {
          if (Array.isArray(event.response.output)) this.#output = event.response.output as Array<Record<string, unknown>>
          this.stopReason = stringOf(event.response.status)
          if (event.type === 'response.failed') this.error = event.response.error ?? event
        }
        return
      case 'error':
        this.error = event
        return
    }
  }

  #closeItem(at: number, item: Record<string, unknown>, out: ModelStreamEvent[]): void {
    const open = this.#calls.get(at)
    if (!open) return
    open.id = stringOf(item.call_id) ?? open.id
    open.name = stringOf(item.name) ?? open.name
    open.arguments = stringOf(item.arguments) ?? open.arguments
    const call = item.status === 'incomplete' ? this.#calls.close(at, false, 'cut-off') : this.#calls.close(at, true)
    if (call) out.push(asEvent(call))
  }

  closeOpen(stop: Exclude<StreamStop, 'complete'>): StreamedCall[] {
    const open = [...this.#calls.openCalls()]
    const calls = this.#calls.closeAll(stop)
    // The items of calls cut off carry the arguments that arrived, so the next request can answer them.
    for (const [at, call] of open) {
      const item = this.#items.get(at)
      if (item) this.#items.set(at, { ...item, arguments: call.arguments, status: 'incomplete' })
    }
    return calls
  }

  calls(): StreamedCall[] {
    return this.#calls.all()
  }

  turn(): StreamedTurn {
    const output = this.#output ?? [...this.#items.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item)
    return { format: 'openai-responses', output }
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
