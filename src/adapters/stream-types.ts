/**
 * What `readModelStream` yields while a model's streaming reply arrives: each tool call the moment
 * its block closes, text and reasoning deltas as they come, and at the end the whole assistant turn.
 */

/** The model API a stream speaks, known from its events. */
export type StreamFormat = 'openai-chat' | 'openai-responses' | 'anthropic'

/**
 * How a stream stopped: `complete` (the reply's own end arrived: a finish reason, `response.completed`,
 * `message_stop`), `cut-off` (the stream ended before that, or the model ran out of output tokens
 * inside a call), `error` (the SDK's iterator threw, or the stream carried an error event), `aborted`
 * (the signal fired).
 */
export type StreamStop = 'complete' | 'cut-off' | 'error' | 'aborted'

/**
 * One tool call of a streamed reply. `arguments` is the raw JSON text the model sent (what
 * `host.run` takes as a call's arguments). `index` is its place among the turn's calls (the order
 * `run` answers in); calls are yielded in the order their blocks closed.
 */
export interface StreamedCall {
  id: string
  name: string
  arguments: string
  format: StreamFormat
  index: number
  /**
   * False for a call whose block never closed (the stream ended, broke or was aborted inside it, or
   * the model ran out of output tokens there): its arguments are what arrived, and it must not run.
   */
  finished: boolean
  /** Why an unfinished call is unfinished: how the stream stopped. */
  cutOff?: Exclude<StreamStop, 'complete'>
}

/** The whole assistant turn, as the API would have returned it in one reply. */
export type StreamedTurn =
  | { format: 'openai-chat'; message: ChatAssistantMessage }
  | { format: 'openai-responses'; output: Array<Record<string, unknown>> }
  | { format: 'anthropic'; message: AnthropicAssistantMessage }

/** A Chat Completions assistant message: its text (null when it has none) and its tool calls. */
export interface ChatAssistantMessage {
  role: 'assistant'
  content: string | null
  refusal?: string
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>
}

/**
 * An Anthropic assistant message: the content blocks as the Messages API returns them (text,
 * thinking with its signature, tool_use with its input object, …), ready to send back as the
 * assistant turn (the stop reason is the end event's `stopReason`).
 */
export interface AnthropicAssistantMessage {
  role: 'assistant'
  content: Array<Record<string, unknown>>
}

/** The last event: how the stream stopped, the whole turn (absent for a stream with no model event), every call in turn order. */
export interface StreamEnd {
  type: 'end'
  stop: StreamStop
  /** The model's own stop or finish reason (`tool_calls`, `end_turn`, `completed`, …) when it sent one. */
  stopReason?: string
  format?: StreamFormat
  turn?: StreamedTurn
  calls: StreamedCall[]
  /** What the SDK threw, or the stream's error event, when `stop` is `error`. */
  error?: unknown
}

/** What `readModelStream` yields. */
export type ModelStreamEvent =
  | { type: 'call'; call: StreamedCall }
  | { type: 'text'; delta: string }
  | { type: 'reasoning'; delta: string }
  | StreamEnd

/** Options of `readModelStream`. */
export interface ReadModelStreamOptions {
  /** Stops reading: the SDK's iterator is closed, every call not yet closed is yielded unfinished, then the end. */
  signal?: AbortSignal
}

/**
 * One format's reading of a stream (inside `readModelStream`): each event read into what it yields,
 * and at the stop the calls still open and the whole turn.
 */
export interface FormatReader {
  readonly format: StreamFormat
  /** Reads one event, pushing what it closes or carries onto `out`. */
  read(event: Record<string, unknown>, out: ModelStreamEvent[]): void
  /** True once the reply's own end arrived. */
  readonly done: boolean
  /** An error event the stream carried, if any (the stream stops there). */
  readonly error: unknown
  readonly stopReason: string | undefined
  /** The calls still open, in turn order, marked unfinished with `stop`. */
  closeOpen(stop: Exclude<StreamStop, 'complete'>): StreamedCall[]
  /** Every call of the turn, in turn order. */
  calls(): StreamedCall[]
  turn(): StreamedTurn
}
