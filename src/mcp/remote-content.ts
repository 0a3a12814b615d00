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
