import { isObject, isWholeJson, StreamCalls } from './stream-calls.js'
import type { ChatAssistantMessage, FormatReader, ModelStreamEvent, StreamedCall, StreamedTurn, StreamStop } from './stream-types.js'

/**
 * Chat Completions chunks (`chat.completion.chunk`, first choice). A call closes when another call's
 * delta arrives after its arguments are whole JSON (so interleaved parallel calls close right), or at
 * the finish reason; `length` leaves the open calls unfinished.
 */
export class ChatStreamReader implements FormatReader {
  readonly format = 'openai-chat' as const
  done = false
  error: unknown = undefined
  stopReason: string | undefined
  readonly #calls = new StreamCalls('openai-chat')
  #text = ''
  #refusal = ''
  #last: number | undefined
  #unindexed = 0

  read(event: Record<string, unknown>, out: ModelStreamEvent[]): void {
    if (this.done || !Array.isArray(event.choices)) return
    for (const choice of event.choices as unknown[]) {
      if (!isObject(choice) || (choice.index ?? 0) !== 0) continue
      if (isObject(choice.delta)) this.#readDelta(choice.delta, out)
      if (typeof choice.finish_reason === 'string') {
        this.stopReason = choice.finish_reason
        this.done = true
        out.push(...this.#calls.closeAll(choice.finish_reason === 'length' ? 'cut-off' : 'complete').map(asEvent))
      }
    }
  }

  #readDelta(delta: Record<string, unknown>, out: ModelStreamEvent[]): void {
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.#text += delta.content
      out.push({ type: 'text', delta: delta.content })
    }
    if (typeof delta.refusal === 'string') this.#refusal += delta.refusal
    // OpenAI-compatible servers stream reasoning under one of these names; it is not sent back.
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (typeof reasoning === 'string' && reasoning !== '') out.push({ type: 'reasoning', delta: reasoning })
    if (Array.isArray(delta.tool_calls)) for (const part of delta.tool_calls as unknown[]) if (isObject(part)) this.#readCallDelta(part, out)
  }

  #readCallDelta(part: Record<string, unknown>, out: ModelStreamEvent[]): void {
    const fn = isObject(part.function) ? part.function : {}
    const id = typeof part.id === 'string' ? part.id : undefined
    // Servers that leave out `index` start a call with an id and continue it without.
    const key = typeof part.index === 'number' ? part.index : id !== undefined || this.#last === undefined ? -++this.#unindexed : this.#last
    // A closed call's arguments were whole JSON: what comes after (whitespace) is not read.
    if (this.#calls.isClosed(key)) return
    this.#closeWhole(key, out)
    const call = this.#calls.get(key) ?? this.#calls.open(key, id, typeof fn.name === 'string' ? fn.name : undefined)
    if (id && call.id !== id && call.arguments === '') call.id = id
    if (typeof fn.name === 'string' && fn.name !== '' && call.name === '') call.name = fn.name
    if (typeof fn.arguments === 'string' && fn.arguments !== '') {
      call.arguments += fn.arguments
      call.dirty = true
    }
    this.#last = key
  }

  // Another call's delta arrived: each other open call whose arguments grew and are now whole JSON
  // is closed (whole JSON takes no more text).
  #closeWhole(key: number, out: ModelStreamEvent[]): void {
    const whole: number[] = []
    for (const [other, call] of this.#calls.openCalls()) {
      if (other === key || !call.dirty) continue
      call.dirty = false
      if (isWholeJson(call.arguments)) whole.push(other)
    }
    for (const other of whole) {
      const call = this.#calls.close(other, true)
      if (call) out.push(asEvent(call))
    }
  }

  closeOpen(stop: Exclude<StreamStop, 'complete'>): StreamedCall[] {
    return this.#calls.closeAll(stop)
  }

  calls(): StreamedCall[] {
    return this.#calls.all()
  }

  turn(): StreamedTurn {
    const message: ChatAssistantMessage = { role: 'assistant', content: this.#text === '' ? null : this.#text }
    if (this.#refusal !== '') message.refusal = this.#refusal
    const calls = this.#calls.all()
    if (calls.length > 0) message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }))
    return { format: 'openai-chat', message }
  }
}

export function asEvent(call: StreamedCall): ModelStreamEvent {
  return { type: 'call', call }
}
