import { describeThrown, isToolhostError, ToolhostError } from '../contract/errors.js'
import type { ToolCall } from '../contract/types.js'

/**
 * Reads the calls of a batch document: a JSON array of OpenAI `tool_calls`
 * (`{id, type: 'function', function: {name, arguments}}`) or Anthropic `tool_use` blocks
 * (`{type: 'tool_use', id, name, input}`), or an object holding such an array under `tool_calls`
 * or `content` (an assistant message). Other content blocks (text, thinking) are skipped.
 * A malformed document throws `E_USAGE`; a malformed call still becomes a call, so it gets a result.
 */
export function parseBatch(document: unknown, source = 'the batch'): ToolCall[] {
  const list = callList(document)
  if (!list) {
    throw new ToolhostError('E_USAGE', `${source}: expected a JSON array of tool calls (OpenAI tool_calls, Responses function_call items or Anthropic tool_use blocks), or an object with "tool_calls", "content", "output" or "choices"`)
  }
  const calls: ToolCall[] = []
  list.forEach((entry: unknown, index: number) => {
    try {
      readEntry(entry, index, calls)
    } catch (thrown) {
      calls.push(unreadableCall(index, thrown)) // a getter or Proxy in this entry threw: its slot says so
    }
  })
  return calls
}

// One entry of the list as a call (none for a text or thinking block). Each field is read once.
function readEntry(entry: unknown, index: number, calls: ToolCall[]): void {
  if (!isObject(entry)) {
    calls.push({ id: `call_${index}`, name: '', arguments: JSON.stringify(entry) })
    return
  }
  const type = entry.type
  if (type === 'tool_use') {
    calls.push({ id: stringOr(entry.id, `call_${index}`), name: stringOr(entry.name, ''), arguments: (entry.input ?? {}) as ToolCall['arguments'] })
    return
  }
  const fn = entry.function
  if (isObject(fn)) {
    calls.push({ id: stringOr(entry.id, `call_${index}`), name: stringOr(fn.name, ''), arguments: (fn.arguments ?? '') as ToolCall['arguments'] })
    return
  }
  if (type === 'function_call') {
    calls.push({ id: stringOr(entry.call_id ?? entry.id, `call_${index}`), name: stringOr(entry.name, ''), arguments: (entry.arguments ?? '') as ToolCall['arguments'] })
    return
  }
  if (typeof type === 'string' && type !== 'function') return // text, thinking, … blocks
  // Anything else was meant as a call (a bare { name, arguments }, or one with its name missing):
  // it gets a result too (E_TOOL_UNKNOWN without a name) rather than vanishing from the batch.
  calls.push({ id: stringOr(entry.id, `call_${index}`), name: stringOr(entry.name, ''), arguments: (entry.arguments ?? entry.input ?? '') as ToolCall['arguments'] })
}

/**
 * The arguments of a call whose entry could not be read (a getter or a Proxy handed to `host.run`
 * threw): admission refuses the call with `reason`, in its own slot.
 */
export class UnreadableArguments {
  constructor(readonly reason: string) {}
}

function unreadableCall(index: number, thrown: unknown): ToolCall {
  const reason = `the call could not be read (${describeThrown(thrown)}); send plain JSON data`
  return { id: `call_${index}`, name: '', arguments: new UnreadableArguments(reason) as unknown as ToolCall['arguments'] }
}

/**
 * The calls of whatever a caller hands `host.run`: a `ToolCall[]` is copied call by call; a model
 * message or response in any supported format (Chat Completions assistant message or completion,
 * Responses `output` items or response, Anthropic assistant message or response) is read by
 * `parseBatch`.
 *
 * @example
 * toCalls({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'echo', input: { text: 'hi' } }] })
 * // [{ id: 't1', name: 'echo', arguments: { text: 'hi' } }]
 */
export function toCalls(input: unknown): ToolCall[] {
  // The caller's objects are read once, here, into fresh calls: a getter or Proxy cannot show
  // admission one call and the handler another, and one that throws costs its own call alone.
  try {
    if (Array.isArray(input) && everyPlainCall(input)) {
      // Index loops, not every/Array.from: those go through the iterator protocol, an object per call.
      const calls: ToolCall[] = new Array(input.length)
      for (let i = 0; i < input.length; i++) calls[i] = readPlainCall(input[i], i)
      return calls
    }
    return parseBatch(input, 'host.run')
  } catch (thrown) {
    if (isToolhostError(thrown)) throw thrown
    throw new ToolhostError('E_USAGE', `host.run: the batch could not be read (${describeThrown(thrown)}); pass a ToolCall[] or a model message of plain data`)
  }
}

// As `every` reads it: a hole of a sparse array is skipped here, and read (as undefined) into an
// unreadable call in its own slot.
function everyPlainCall(entries: readonly unknown[]): boolean {
  for (let i = 0; i < entries.length; i++) if (i in entries && !isPlainCall(entries[i])) return false
  return true
}

function isPlainCall(entry: unknown): boolean {
  try {
    return isObject(entry) && entry.type === undefined && entry.function === undefined && typeof entry.id === 'string' && 'name' in entry
  } catch {
    return false // parseBatch reads it again, entry by entry, and refuses what it cannot read
  }
}

function readPlainCall(entry: unknown, index: number): ToolCall {
  try {
    const call = entry as Record<string, unknown>
    const name: unknown = call.name
    return { id: stringOr(call.id, `call_${index}`), name: typeof name === 'string' ? name : describeThrown(name), arguments: call.arguments as ToolCall['arguments'] }
  } catch (thrown) {
    return unreadableCall(index, thrown)
  }
}

function callList(document: unknown): unknown[] | undefined {
  if (Array.isArray(document)) return document
  if (!isObject(document)) return undefined
  if (Array.isArray(document.tool_calls)) return document.tool_calls
  if (Array.isArray(document.content)) return document.content
  if (Array.isArray(document.output)) return document.output // Responses API response
  if (Array.isArray(document.choices)) {
    // A Chat Completions response: the first choice's message (a missing tool_calls means none).
    const first: unknown = document.choices[0]
    const message = isObject(first) && isObject(first.message) ? first.message : undefined
    return message ? (Array.isArray(message.tool_calls) ? message.tool_calls : []) : undefined
  }
  if (typeof document.role === 'string' && (document.content === null || typeof document.content === 'string')) return [] // a message without calls
  return undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback
}
