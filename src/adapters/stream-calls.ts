import type { StreamedCall, StreamFormat, StreamStop } from './stream-types.js'

/** A call whose block is open: its arguments so far. */
export interface OpenCall {
  id: string
  name: string
  arguments: string
  readonly index: number
  /** Text arrived since the last look at whether its arguments are whole (Chat only). */
  dirty: boolean
}

/**
 * The calls of one streamed turn, by the key their events name them with (Chat's `index`, a
 * Responses `output_index`, an Anthropic block `index`): opened in turn order, each closed once.
 */
export class StreamCalls {
  readonly #format: StreamFormat
  readonly #open = new Map<number, OpenCall>()
  readonly #closed = new Set<number>()
  // Every call of the turn, in turn order; an open one is filled in when it closes.
  readonly #calls: Array<StreamedCall | undefined> = []

  constructor(format: StreamFormat) {
    this.#format = format
  }

  /** Opens the call `key` names, in the next place of the turn (a key seen before returns its call). */
  open(key: number, id: string | undefined, name: string | undefined): OpenCall {
    const known = this.#open.get(key)
    if (known) return known
    const index = this.#calls.length
    const call: OpenCall = { id: id || `call_${index}`, name: name ?? '', arguments: '', index, dirty: false }
    this.#open.set(key, call)
    this.#calls.push(undefined)
    return call
  }

  /** True when the call `key` names has closed: later text for it is not its. */
  isClosed(key: number): boolean {
    return this.#closed.has(key)
  }

  get(key: number): OpenCall | undefined {
    return this.#open.get(key)
  }

  /** The open calls, in the order they were opened. */
  openCalls(): IterableIterator<[number, OpenCall]> {
    return this.#open.entries()
  }

  /** Closes the call `key` names; undefined when none is open there. */
  close(key: number, finished: boolean, cutOff?: Exclude<StreamStop, 'complete'>): StreamedCall | undefined {
    const open = this.#open.get(key)
    if (!open) return undefined
    this.#open.delete(key)
    this.#closed.add(key)
    const call: StreamedCall = { id: open.id, name: open.name, arguments: open.arguments, format: this.#format, index: open.index, finished }
    if (!finished && cutOff) call.cutOff = cutOff
    this.#calls[open.index] = call
    return call
  }

  /** Closes every open call, in turn order, as unfinished with `stop` (or finished, for `complete`). */
  closeAll(stop: StreamStop): StreamedCall[] {
    const keys = [...this.#open.entries()].sort((a, b) => a[1].index - b[1].index).map(([key]) => key)
    return keys.flatMap((key) => {
      const call = stop === 'complete' ? this.close(key, true) : this.close(key, false, stop)
      return call ? [call] : []
    })
  }

  /** Every closed call of the turn, in turn order (after `closeAll`, every call). */
  all(): StreamedCall[] {
    return this.#calls.flatMap((call) => (call ? [call] : []))
  }
}

/** True when `text` is whole JSON: nothing the model adds can still belong to it. */
export function isWholeJson(text: string): boolean {
  if (text.trim() === '') return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
