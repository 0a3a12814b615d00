import { ToolhostError } from '../errors.js'
import type { ToolCall } from '../types.js'

/**
 * Reads the calls of a batch document: a JSON array of OpenAI `tool_calls`
 * (`{id, type: 'function', function: {name, arguments}}`) or Anthropic `tool_use` blocks
 * (`{type: 'tool_use', id, name, input}`), or an object holding such an array under `tool_calls`
 * or `content` (an assistant message). Other content blocks (text, thinking) are skipped.
 * A malformed document throws `E_USAGE`; a malformed call still becomes a call, so it gets a result.
 */
export function parseBatch(document: unknown, source = 'the batch'): ToolCall[] {
  const list = Array.isArray(document)
    ? document
    : isObject(document) && Array.isArray(document.tool_calls)
      ? document.tool_calls
      : isObject(document) && Array.isArray(document.content)
        ? document.content
        : undefined
  if (!list) {
    throw new ToolhostError('E_USAGE', `${source}: expected a JSON array of tool calls (OpenAI tool_calls or Anthropic tool_use blocks), or an object with "tool_calls" or "content"`)
  }
  const calls: ToolCall[] = []
  list.forEach((entry: unknown, index: number) => {
    if (!isObject(entry)) {
      calls.push({ id: `call_${index}`, name: '', arguments: JSON.stringify(entry) })
      return
    }
    if (entry.type === 'tool_use') {
      calls.push({ id: stringOr(entry.id, `call_${index}`), name: stringOr(entry.name, ''), arguments: (entry.input ?? {}) as ToolCall['arguments'] })
      return
    }
    if (isObject(entry.function)) {
      const fn = entry.function
      calls.push({ id: stringOr(entry.id, `call_${index}`), name: stringOr(fn.name, ''), arguments: (fn.arguments ?? '') as ToolCall['arguments'] })
      return
    }
    if (entry.type === 'function_call') {
      calls.push({ id: stringOr(entry.call_id ?? entry.id, `call_${index}`), name: stringOr(entry.name, ''), arguments: (entry.arguments ?? '') as ToolCall['arguments'] })
      return
    }
    if (typeof entry.type === 'string' && entry.type !== 'function') return // text, thinking, … blocks
    if (typeof entry.name === 'string') {
      calls.push({ id: stringOr(entry.id, `call_${index}`), name: entry.name, arguments: (entry.arguments ?? entry.input ?? '') as ToolCall['arguments'] })
    }
  })
  return calls
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback
}
