import { isCallToolResult } from '../contract/content-blocks.js'

/**
 * The text toolhost hands a model for a remote MCP tool's result (text blocks joined; others described).
 *
 * @example
 * remoteResultText({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }) // 'a\nb'
 */
export function remoteResultText(result: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : []
  const parts = blocks.map((block) => {
    switch (block.type) {
      case 'text':
        return String(block.text ?? '')
      case 'image':
      case 'audio':
        return `[${String(block.type)}: ${String(block.mimeType ?? 'unknown type')}, ${String(block.data ?? '').length} base64 characters]`
      case 'resource': {
        const resource = (block.resource ?? {}) as Record<string, unknown>
        return typeof resource.text === 'string' ? resource.text : `[resource ${String(resource.uri ?? '')}]`
      }
      case 'resource_link':
        return `[resource link ${String(block.uri ?? '')}]`
      default:
        return JSON.stringify(block)
    }
  })
  if (parts.length > 0) return parts.join('\n')
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  if (result.toolResult !== undefined) return typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult)
  return ''
}

/**
 * What a remote MCP tool's handler returns to the host: the server's result as it is (content
 * blocks and `structuredContent`, so images and resources reach an MCP client of toolhost
 * unchanged) when every block is one toolhost knows; otherwise its text (`remoteResultText`).
 *
 * @example
 * remoteResultValue({ content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] })
 * // { content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }
 */
export function remoteResultValue(result: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): unknown {
  const value = {
    content: Array.isArray(result.content) ? result.content : [],
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
  }
  return isCallToolResult(value) ? value : remoteResultText(result)
}
