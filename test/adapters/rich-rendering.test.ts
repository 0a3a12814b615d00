// Each format's best rendering of a result with content blocks: Anthropic image and document
// blocks, Responses input_image/input_file parts, Chat's text that says what was left out, MCP's
// blocks and structuredContent as they are.
import { describe, expect, test } from 'vitest'
import { renderResults } from '../../src/adapters/render.js'
import { renderBlocksAsText } from '../../src/contract/content-blocks.js'
import type { ContentBlock, ToolResult } from '../../src/contract/types.js'

const png = Buffer.from('89504e47', 'hex').toString('base64')
const pdf = Buffer.from('%PDF-1.4').toString('base64')
const blocks: ContentBlock[] = [
  { type: 'text', text: 'Report:' },
  { type: 'image', data: png, mimeType: 'image/png' },
  { type: 'image', data: png, mimeType: 'image/bmp' },
  { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
  { type: 'resource', resource: { uri: 'file:///w/report.pdf', mimeType: 'application/pdf', blob: pdf } },
  { type: 'resource', resource: { uri: 'file:///w/notes.md', mimeType: 'text/markdown', text: '# Notes' } },
  { type: 'resource_link', uri: 'file:///w/data.csv', name: 'data.csv' },
]
const rich: ToolResult = { id: 'c1', name: 'report', ok: true, content: renderBlocksAsText(blocks), blocks, structuredContent: { pages: 3 } }
const failed: ToolResult = { id: 'c2', name: 'report', ok: false, content: 'x', error: { code: 'E_TOOL_FAILED', message: 'sensor offline' } }
const note = (i: number): string => renderBlocksAsText([blocks[i]!])

describe('rich results in each format', () => {
  test('Anthropic: text, image and document blocks in the tool_result; what it cannot take as a note', () => {
    expect(renderResults('anthropic', [rich, failed])).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [
            { type: 'text', text: 'Report:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            { type: 'text', text: note(2) },
            { type: 'text', text: note(3) },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf }, title: 'report.pdf' },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '# Notes' }, title: 'notes.md' },
            { type: 'text', text: '[resource link "data.csv" file:///w/data.csv]' },
          ],
        },
        { type: 'tool_result', tool_use_id: 'c2', content: 'E_TOOL_FAILED: sensor offline', is_error: true },
      ],
    })
    expect(note(2)).toBe('[image image/bmp, 4 B, not shown]')
  })

  test('Responses: input_text, input_image and input_file parts (data URLs); a note for the rest', () => {
    expect(renderResults('openai-responses', [rich, failed])).toEqual([
      {
        type: 'function_call_output',
        call_id: 'c1',
        output: [
          { type: 'input_text', text: 'Report:' },
          { type: 'input_image', image_url: `data:image/png;base64,${png}` },
          { type: 'input_image', image_url: `data:image/bmp;base64,${png}` },
          { type: 'input_text', text: '[audio audio/wav, 3 B, not shown]' },
          { type: 'input_file', file_data: `data:application/pdf;base64,${pdf}`, filename: 'report.pdf' },
          { type: 'input_text', text: '[resource file:///w/notes.md (text/markdown)]\n# Notes' },
          { type: 'input_text', text: '[resource link "data.csv" file:///w/data.csv]' },
        ],
      },
      { type: 'function_call_output', call_id: 'c2', output: 'error E_TOOL_FAILED: sensor offline' },
    ])
  })

  test('Chat Completions takes text only: the text rendering, saying what was left out', () => {
    const [message] = renderResults('openai-chat', [rich])
    expect(message).toEqual({ role: 'tool', tool_call_id: 'c1', content: rich.content })
    expect(message!.content).toContain('[image image/png, 4 B, not shown]')
    expect(message!.content).toContain('[resource file:///w/report.pdf application/pdf, 8 B, not shown]')
  })

  test('MCP: the blocks and structuredContent as they are', () => {
    expect(renderResults('mcp', [rich])).toEqual([{ content: blocks, structuredContent: { pages: 3 }, isError: false }])
  })

  test('a result without blocks stays plain text in every format', () => {
    const plain: ToolResult = { id: 'p', name: 'echo', ok: true, content: 'hi' }
    expect(renderResults('anthropic', [plain]).content[0]!.content).toBe('hi')
    expect(renderResults('openai-responses', [plain])[0]!.output).toBe('hi')
  })
})
