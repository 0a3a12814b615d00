import { asEvent } from './stream-chat.js'
import { isObject, StreamCalls } from './stream-calls.js'
import type { AnthropicAssistantMessage, FormatReader, ModelStreamEvent, StreamedCall, StreamedTurn, StreamStop } from './stream-types.js'

const CALL_BLOCKS = new Set(['tool_use'])

/**
 * Anthropic Messages stream events (what `messages.create({ stream: true })` and
 * `messages.stream()` yield). A `tool_use` block opens at `content_block_start` and closes at
 * `content_block_stop`; the turn's blocks are built as the API returns them (text, thinking with its
 * signature, tool_use with its input object).
 */
export class AnthropicStreamReader implements FormatReader {
  readonly format = 'anthropic' as const
  done = false
  error: unknown = undefined
  stopReason: string | undefined
  readonly #calls = new StreamCalls('anthropic')
  readonly #blocks = new Map<number, Record<string, unknown>>()

  read(event: Record<string, unknown>, out: ModelStreamEvent[]): void {
    const at = typeof event.index === 'number' ? event.index : -1
    switch (event.type) {
      case 'content_block_start': {
        if (!isObject(event.content_block)) return
        const block = { ...event.content_block }
        this.#blocks.set(at, block)
        if (CALL_BLOCKS.has(String(block.type))) {
          const call = this.#calls.open(at, stringOf(block.id), stringOf(block.name))
          // A server that sends the input whole at the start sends no input_json_delta.
          if (isObject(block.input) && Object.keys(block.input).length > 0) call.arguments = JSON.stringify(block.input)
        }
        return
      }
      case 'content_block_delta':
        if (isObject(event.delta)) this.#readDelta(at, event.delta, out)
        return
      case 'content_block_stop': {
        const call = this.#calls.get(at)
        const block = this.#blocks.get(at)
        if (!call || !block) return
        block.input = inputOf(call.arguments)
        const closed = this.#calls.close(at, true)
        if (closed) out.push(asEvent(closed))
        return
      }
      case 'message_delta':
        if (isObject(event.delta) && typeof event.delta.stop_reason === 'string') this.stopReason = event.delta.stop_reason
        return
      case 'message_stop':
        this.done = true
        return
      case 'error':
        this.error = event.error ?? event
        return
    }
  }

  #readDelta(at: number, delta: Record<string, unknown>, out: ModelStreamEvent[]): void {
    const block = this.#blocks.get(at)
    if (!block) return
    switch (delta.type) {
      case 'text_delta':
        if (typeof delta.text !== 'string') return
        block.text = String(block.text ?? '') + delta.text
        out.push({ type: 'text', delta: delta.text })
        return
      case 'thinking_delta':
        if (typeof delta.thinking !== 'string') return
        block.thinking = String(block.thinking ?? '') + delta.thinking
        out.push({ type: 'reasoning', delta: delta.thinking })
        return
      case 'signature_delta':
        if (typeof delta.signature === 'string') block.signature = String(block.signature ?? '') + delta.signature
        return
      case 'citations_delta':
        if (delta.citation !== undefined) block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation]
        return
      case 'input_json_delta': {
        const call = this.#calls.get(at)
        if (call && typeof delta.partial_json === 'string') call.arguments += delta.partial_json
        return
      }
    }
  }

  closeOpen(stop: Exclude<StreamStop, 'complete'>): StreamedCall[] {
    for (const [at, call] of this.#calls.openCalls()) {
      const block = this.#blocks.get(at)
      if (block) block.input = inputOf(call.arguments)
    }
    return this.#calls.closeAll(stop)
  }

  calls(): StreamedCall[] {
    return this.#calls.all()
  }

  turn(): StreamedTurn {
    const content = [...this.#blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, block]) => block)
    const message: AnthropicAssistantMessage = { role: 'assistant', content }
    return { format: 'anthropic', message }
  }
}

// The API wants tool_use input as an object: arguments cut off or not an object send back {}.
function inputOf(text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? value : {}
  } catch {
    return {}
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
