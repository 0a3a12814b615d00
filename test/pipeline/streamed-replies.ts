// Scripts of a model's streamed reply (some text, then tool calls) as each API streams it over SSE:
// Chat Completions chunks, Responses stream events, Anthropic Messages stream events. Steps can be
// placed right after the event that closes a call (a gate), between argument deltas (a pause), or
// inside a call's arguments (the stream breaks or hangs there). The event that closes call i is
// marked `close:i` (SseModelServer.marks).
import type { SseStep } from './sse-model-server.js'

export type ReplyFormat = 'openai-chat' | 'openai-responses' | 'anthropic'

export interface ScriptedCall {
  id: string
  name: string
  /** The JSON text of its arguments, sent in `chunks` deltas. */
  arguments: string
}

export interface ReplyScript {
  text?: string
  calls: ScriptedCall[]
  /** Steps right after the event that closes call `index` (Chat: the next call's first delta, or the finish). */
  afterClose?: (index: number) => SseStep[]
  /** Argument deltas per call (default 2). */
  chunks?: number
  /** Steps between two argument deltas, and before each call's first (benchmarks: a pause). */
  between?: () => SseStep[]
  /** After the first argument delta of call `index`, these steps, and the script ends (a break, a hold). */
  stopInside?: { index: number; then: SseStep[] }
}

const MODEL = { 'openai-chat': 'gpt-5.4', 'openai-responses': 'gpt-5.4', anthropic: 'claude-sonnet-5-5' } as const

/** The SSE steps of `script` as `format`'s API streams it. */
export function streamedReply(format: ReplyFormat, script: ReplyScript): SseStep[] {
  if (format === 'openai-chat') return chatReply(script)
  if (format === 'openai-responses') return responsesReply(script)
  return anthropicReply(script)
}

function split(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts))
  const out: string[] = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out.length > 0 ? out : ['']
}

/**
 * A call's argument deltas, `between` before each; true when the script stops inside it (the
 * first delta, then `stopInside.then`).
 */
function argumentSteps(script: ReplyScript, index: number, delta: (text: string) => SseStep, out: SseStep[]): boolean {
  const parts = split(script.calls[index]!.arguments, script.chunks ?? 2)
  for (const part of parts) {
    out.push(...(script.between?.() ?? []), delta(part))
    if (script.stopInside?.index === index) {
      out.push(...script.stopInside.then)
      return true
    }
  }
  return false
}

function chatReply(script: ReplyScript): SseStep[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
    id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764460800, model: MODEL['openai-chat'], choices: [{ index: 0, delta, finish_reason: finish }],
  })
  const out: SseStep[] = [{ data: chunk({ role: 'assistant', content: '' }) }]
  if (script.text) out.push({ data: chunk({ content: script.text }) })
  for (const [i, call] of script.calls.entries()) {
    // This call's first delta closes the one before it.
    out.push({ data: chunk({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }), ...(i > 0 ? { mark: `close:${i - 1}` } : {}) })
    if (i > 0) out.push(...(script.afterClose?.(i - 1) ?? []))
    if (argumentSteps(script, i, (text) => ({ data: chunk({ tool_calls: [{ index: i, function: { arguments: text } }] }) }), out)) return out
  }
  const last = script.calls.length - 1
  out.push({ data: chunk({}, last >= 0 ? 'tool_calls' : 'stop'), ...(last >= 0 ? { mark: `close:${last}` } : {}) })
  if (last >= 0) out.push(...(script.afterClose?.(last) ?? []))
  out.push({ data: '[DONE]' })
  return out
}

function responsesReply(script: ReplyScript): SseStep[] {
  let sequence = 0
  const event = (type: string, fields: Record<string, unknown>, mark?: string): SseStep => ({ event: type, data: { type, sequence_number: sequence++, ...fields }, ...(mark ? { mark } : {}) })
  const response = (status: string, output: unknown[]): Record<string, unknown> => ({
    id: 'resp_1', object: 'response', created_at: 1764460800, status, model: MODEL['openai-responses'], output, parallel_tool_calls: true, tool_choice: 'auto', tools: [],
    usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 30 },
  })
  const out: SseStep[] = [event('response.created', { response: response('in_progress', []) })]
  const items: unknown[] = []
  if (script.text) {
    const message = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: script.text, annotations: [] }] }
    out.push(
      event('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }),
      event('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
      event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: script.text }),
      event('response.output_text.done', { item_id: 'msg_1', output_index: 0, content_index: 0, text: script.text }),
      event('response.content_part.done', { item_id: 'msg_1', output_index: 0, content_index: 0, part: message.content[0] }),
      event('response.output_item.done', { output_index: 0, item: message }),
    )
    items.push(message)
  }
  for (const [i, call] of script.calls.entries()) {
    const at = items.length
    const item = { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: '', status: 'in_progress' }
    out.push(event('response.output_item.added', { output_index: at, item }))
    if (argumentSteps(script, i, (text) => event('response.function_call_arguments.delta', { item_id: item.id, output_index: at, delta: text }), out)) return out
    const done = { ...item, arguments: call.arguments, status: 'completed' }
    out.push(
      event('response.function_call_arguments.done', { item_id: item.id, output_index: at, arguments: call.arguments }),
      event('response.output_item.done', { output_index: at, item: done }, `close:${i}`),
      ...(script.afterClose?.(i) ?? []),
    )
    items.push(done)
  }
  out.push(event('response.completed', { response: response('completed', items) }))
  return out
}

function anthropicReply(script: ReplyScript): SseStep[] {
  const event = (type: string, fields: Record<string, unknown>, mark?: string): SseStep => ({ event: type, data: { type, ...fields }, ...(mark ? { mark } : {}) })
  const out: SseStep[] = [event('message_start', {
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: MODEL.anthropic, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 1 } },
  })]
  let index = 0
  if (script.text) {
    out.push(
      event('content_block_start', { index, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { index, delta: { type: 'text_delta', text: script.text } }),
      event('content_block_stop', { index }),
    )
    index++
  }
  for (const [i, call] of script.calls.entries()) {
    const at = index++
    out.push(event('content_block_start', { index: at, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }))
    if (argumentSteps(script, i, (text) => event('content_block_delta', { index: at, delta: { type: 'input_json_delta', partial_json: text } }), out)) return out
    out.push(event('content_block_stop', { index: at }, `close:${i}`), ...(script.afterClose?.(i) ?? []))
  }
  out.push(
    event('message_delta', { delta: { stop_reason: script.calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } }),
    event('message_stop', {}),
  )
  return out
}
