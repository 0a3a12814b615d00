import { describeThrown } from '../../contract/errors.js'
import { renderBlocksAsText } from '../../contract/content-blocks.js'
import type { ValidateFunction } from '../../registry/schema.js'
import type { ContentBlock, ToolCall, ToolResult } from '../../contract/types.js'
import { limitBinary, limitBlocks } from './limit-blocks.js'
import type { ResultsFolder } from '../../workspace/save-result.js'
import { limitContent, type ResultSaver } from './limit-content.js'
import { capText, shapeValue } from './shape-result.js'

/** What shaping one call's value needs from the host. */
export interface ShapeContext {
  /** The tool's text limit (its `maxResultChars`, else `limits.max_result_chars`); false opts out. */
  limit: number | false
  /** `limits.max_result_bytes`: binary content of one result, decoded bytes in all. */
  maxBytes: number
  /** Where over-long text is saved (made only when needed). */
  resultsFolder: () => ResultsFolder
  /** How a saved file's path reads in the note (relative to the workspace root). */
  shownPath?: (file: string) => string
  /** Saves whole texts a few at a time, counting huge ones against the host's memory budget. */
  saver?: ResultSaver
  /** The tool's compiled `outputSchema`, if it declares one. */
  validateOutput: ValidateFunction | undefined
}

/**
 * A handler's value as the call's result: shaped (`shapeValue`), binary held to `maxBytes`, text held
 * to `limit` with the whole text saved to disk. Synchronous unless something must be saved.
 *
 * @example
 * await shapeOutcome(call, 'chart', { content: [{ type: 'image', data, mimeType: 'image/png' }] }, context, {})
 * // { id, name, ok: true, content: '[image image/png, 12 KB, not shown]', blocks: [{ type: 'image', … }] }
 */
export function shapeOutcome(call: ToolCall, toolName: string, value: unknown, context: ShapeContext, extra: object): ToolResult | Promise<ToolResult> {
  const { limit } = context
  const shaped = shapeValue(toolName, value, context.validateOutput)
  if (!shaped.ok) {
    const error = { ...shaped.error, message: capText(shaped.error.message, limit) }
    const blocks = shaped.blocks ? { blocks: limitBinary(shaped.blocks, context.maxBytes) } : {}
    return { id: call.id, name: call.name, ok: false, content: error.message, error, ...blocks, ...extra }
  }
  const more = shaped.structuredContent === undefined ? extra : { structuredContent: shaped.structuredContent, ...extra }
  if (shaped.blocks) return spillBlocks(call, limitBinary(shaped.blocks, context.maxBytes), context, more)
  if (limit === false || shaped.content.length <= limit) return { id: call.id, name: call.name, ok: true, content: shaped.content, ...more }
  return spillText(call, shaped.content, limit, context, more)
}

/**
 * Over-long text: cut to `limit`, the whole text saved under the results folder.
 *
 * @example
 * await spillText(call, hugeText, 100_000, context, {}) // { …, truncated: true, savedTo }
 */
export async function spillText(call: ToolCall, text: string, limit: number, context: Pick<ShapeContext, 'resultsFolder' | 'shownPath' | 'saver'>, extra: object): Promise<ToolResult> {
  const limited = await limitContent(text, limit, context.resultsFolder(), call.id, context.saver, context.shownPath)
  return { id: call.id, name: call.name, ok: true, ...limited, ...extra }
}

async function spillBlocks(call: ToolCall, blocks: ContentBlock[], context: ShapeContext, extra: object): Promise<ToolResult> {
  try {
    const limited = await limitBlocks(blocks, context.limit, context.resultsFolder(), call.id, context.shownPath, context.saver)
    return { id: call.id, name: call.name, ok: true, ...limited, ...extra }
  } catch (error) {
    const room = context.limit === false ? false : Math.max(0, context.limit - 200)
    const text = `${capText(renderBlocksAsText(blocks.filter(isText)), room)}\n[truncated; the whole text could not be saved (${describeThrown(error)})]`
    const kept = [...blocks.filter((b) => !isText(b)), { type: 'text' as const, text }]
    return { id: call.id, name: call.name, ok: true, content: renderBlocksAsText(kept), blocks: kept, truncated: true, ...extra }
  }
}

function isText(block: ContentBlock): boolean {
  return block.type === 'text' || (block.type === 'resource' && 'text' in block.resource)
}
