import { blockAsText, blockBytes, formatBytes, renderBlocksAsText } from '../../contract/content-blocks.js'
import type { ContentBlock } from '../../contract/types.js'
import { savedResultName, saveWholeResult, type ResultsFolder } from '../../workspace/save-result.js'
import { cutAtLine, detachString, type ResultSaver } from './limit-content.js'

/**
 * Holds a result's binary content (images, audio, embedded blobs) to `maxBytes` decoded bytes in
 * all. Blocks are counted in order; one that would pass the limit is replaced by a text note saying
 * what it was and why it is missing (never dropped without a word). Returns `blocks` itself when
 * everything fits.
 *
 * @example
 * limitBinary([{ type: 'image', data: hugePng, mimeType: 'image/png' }], 5_242_880)
 * // [{ type: 'text', text: '[image image/png, 7.2 MB, left out: over the 5.0 MB limit for binary content of one result (limits.max_result_bytes)]' }]
 */
export function limitBinary(blocks: ContentBlock[], maxBytes: number): ContentBlock[] {
  let used = 0
  let out: ContentBlock[] | undefined
  blocks.forEach((block, i) => {
    const bytes = blockBytes(block)
    if (bytes === 0 || used + bytes <= maxBytes) {
      used += bytes
      out?.push(block)
      return
    }
    out ??= blocks.slice(0, i)
    const what = blockAsText(block).replace(/, not shown\]$/, '').replace(/^\[/, '')
    out.push({ type: 'text', text: `[${what}, left out: over the ${formatBytes(maxBytes)} limit for binary content of one result (limits.max_result_bytes)]` })
  })
  return out ?? blocks
}

export interface LimitedBlocks {
  blocks: ContentBlock[]
  content: string
  truncated?: true
  savedTo?: string
}

/**
 * Keeps the text of a block result within `limit` characters, as `limitContent` does for plain
 * text: when the text rendering is longer, the whole of it is saved in `folder`, text blocks (and
 * embedded text resources) are cut in order to what fits beside the other blocks' notes, later text
 * is left out, and a note block gives the full size and the file. Binary blocks are not touched
 * here (`limitBinary` bounds them). The whole text is saved through `saver` (a few saves at once, as
 * for plain text), and a cut block keeps a copy of its start, never a slice that would keep the
 * whole text alive for as long as the result lives.
 *
 * @example
 * await limitBlocks([{ type: 'text', text: huge }, { type: 'image', data, mimeType: 'image/png' }], 1000, folder, 'c1')
 * // { blocks: [{ type: 'text', text: '…' }, { type: 'image', … }, { type: 'text', text: '[truncated: …]' }], content: '…', truncated: true, savedTo }
 */
export async function limitBlocks(blocks: ContentBlock[], limit: number | false, folder: ResultsFolder, callId: string, showPath: (file: string) => string = (f) => f, saver?: ResultSaver): Promise<LimitedBlocks> {
  const whole = renderBlocksAsText(blocks)
  if (limit === false || whole.length <= limit) return { blocks, content: whole }
  const file = saver ? await saver.save(folder, savedResultName(callId), whole) : await saveWholeResult(folder, savedResultName(callId), whole)
  const note = `[truncated: showing PLACEHOLDER of ${whole.length} characters of text; the whole text is saved at ${showPath(file)}]`
  // What the kept non-text blocks cost in the text rendering, one line each.
  let room = limit - note.length - 12
  for (const block of blocks) if (textOf(block) === undefined) room -= blockAsText(block).length + 1
  const out: ContentBlock[] = []
  let shown = 0
  let cut = false
  for (const block of blocks) {
    const text = textOf(block)
    if (text === undefined) {
      out.push(block)
      continue
    }
    if (cut) continue // text after a cut block is left out (it is in the saved file)
    const header = blockAsText(block).length - text.length
    const space = room - header - 1
    const kept = text.length <= space ? text : detachString(cutAtLine(text, Math.max(0, space)))
    if (kept.length < text.length) cut = true
    room -= kept.length + header + 1
    shown += kept.length
    if (kept !== '') out.push(withText(block, kept))
  }
  out.push({ type: 'text', text: note.replace('PLACEHOLDER', String(shown)) })
  // With a limit shorter than the notes the rendering is cut too: the limit always holds.
  return { blocks: out, content: renderBlocksAsText(out).slice(0, limit), truncated: true, savedTo: file }
}

function textOf(block: ContentBlock): string | undefined {
  if (block.type === 'text') return block.text
  if (block.type === 'resource' && 'text' in block.resource) return block.resource.text
  return undefined
}

function withText(block: ContentBlock, text: string): ContentBlock {
  if (block.type === 'resource' && 'text' in block.resource) return { type: 'resource', resource: { ...block.resource, text } }
  return { type: 'text', text }
}
