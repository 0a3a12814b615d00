/**
 * Content blocks (the MCP content model): recognising them in a handler's value, their text
 * rendering for readers that take text only, and the byte size of their binary payloads.
 */
import type { ContentBlock, ToolResult } from './types.js'

/** What a handler returned in the MCP `CallToolResult` form, once recognised. */
export interface CallToolResultShape {
  content: ContentBlock[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

// The keys a `CallToolResult` may carry. Any other key means the value is ordinary JSON data.
const RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta'])

/**
 * True when `value` is an MCP `CallToolResult`-shaped object, recognised strictly so ordinary JSON
 * data is never mistaken for one: a plain object whose only keys are `content`, `structuredContent`,
 * `isError` and `_meta`; `content` an array whose every element is a valid content block (an empty
 * array only beside a `structuredContent` object); `structuredContent` a plain object; `isError` a
 * boolean. A tool that must return such a value as data returns its JSON text instead.
 *
 * @example
 * isCallToolResult({ content: [{ type: 'text', text: 'hi' }] })        // true
 * isCallToolResult({ content: [{ type: 'text', text: 'hi' }], n: 1 })  // false: `n` is data
 */
export function isCallToolResult(value: unknown): value is CallToolResultShape {
  if (!isPlainObject(value) || !Array.isArray(value.content)) return false
  for (const key of Object.keys(value)) if (!RESULT_KEYS.has(key)) return false
  if (value.structuredContent !== undefined && !isPlainObject(value.structuredContent)) return false
  if (value.isError !== undefined && typeof value.isError !== 'boolean') return false
  if (value.content.length === 0) return value.structuredContent !== undefined
  return value.content.every(isContentBlock)
}

/**
 * True for a valid content block: `text`, `image`/`audio` (base64 `data` and a `mimeType`),
 * `resource_link` (`uri`, `name`) or `resource` (an embedded resource with `text` or base64 `blob`).
 * Blocks may also carry MCP's `annotations` and `_meta`.
 *
 * @example
 * isContentBlock({ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }) // true
 */
export function isContentBlock(value: unknown): value is ContentBlock {
  if (!isPlainObject(value)) return false
  switch (value.type) {
    case 'text':
      return typeof value.text === 'string'
    case 'image':
    case 'audio':
      return isBase64(value.data) && isNonEmptyString(value.mimeType)
    case 'resource_link':
      return isNonEmptyString(value.uri) && typeof value.name === 'string' && optionalStrings(value, ['title', 'description', 'mimeType'])
    case 'resource': {
      const r = value.resource
      if (!isPlainObject(r) || !isNonEmptyString(r.uri) || !optionalStrings(r, ['mimeType'])) return false
      return (typeof r.text === 'string') !== isBase64(r.blob)
    }
    default:
      return false
  }
}

/**
 * The text rendering of blocks for a reader that takes text only: text as it is, an embedded text
 * resource with its URI, and for everything else a note of what was left out (kind, type, size).
 *
 * @example
 * renderBlocksAsText([{ type: 'text', text: 'A chart:' }, { type: 'image', data, mimeType: 'image/png' }])
 * // 'A chart:\n[image image/png, 12 KB, not shown]'
 */
export function renderBlocksAsText(blocks: readonly ContentBlock[]): string {
  return blocks.map(blockAsText).join('\n')
}

/** One block as text (see `renderBlocksAsText`). */
export function blockAsText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}, not shown]`
    case 'resource_link': {
      const about = [block.title && block.title !== block.name ? block.title : undefined, block.mimeType, block.description].filter(Boolean).join('; ')
      return `[resource link "${block.name}" ${block.uri}${about ? ` (${about})` : ''}]`
    }
    case 'resource': {
      const r = block.resource
      if ('text' in r) return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}]\n${r.text}`
      return `[resource ${r.uri}${r.mimeType ? ` ${r.mimeType}` : ''}, ${formatBytes(base64Bytes(r.blob))}, not shown]`
    }
  }
}

/** The decoded size in bytes of a block's binary payload (0 for text and links). */
export function blockBytes(block: ContentBlock): number {
  if (block.type === 'image' || block.type === 'audio') return base64Bytes(block.data)
  if (block.type === 'resource' && 'blob' in block.resource) return base64Bytes(block.resource.blob)
  return 0
}

/** Decoded size of base64 text, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.floor((data.length * 3) / 4) - padding
}

/**
 * "512 B", "12 KB", "3.4 MB": sizes as a person reads them (1 KB = 1024 bytes).
 *
 * @example
 * formatBytes(12_400) // '12 KB'
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/**
 * The blocks a result carries: its own `blocks`, or its text content as one text block.
 *
 * @example
 * resultBlocks({ id: 'a', name: 'echo', ok: true, content: 'hi' }) // [{ type: 'text', text: 'hi' }]
 */
export function resultBlocks(result: Pick<ToolResult, 'content' | 'blocks'>): ContentBlock[] {
  return result.blocks ?? [{ type: 'text', text: result.content }]
}

// Standard base64 (RFC 4648 §4), padded or not; no whitespace.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

function isBase64(value: unknown): value is string {
  return typeof value === 'string' && value.length % 4 !== 1 && BASE64.test(value)
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== ''
}

function optionalStrings(value: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.every((k) => value[k] === undefined || typeof value[k] === 'string')
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}
