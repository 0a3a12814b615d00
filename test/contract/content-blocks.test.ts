import { describe, expect, test } from 'vitest'
import { base64Bytes, formatBytes, isCallToolResult, isContentBlock, renderBlocksAsText, resultBlocks } from '../../src/contract/content-blocks.js'

const png = Buffer.alloc(12_400, 7).toString('base64')
const text = { type: 'text', text: 'hi' }
const image = { type: 'image', data: png, mimeType: 'image/png' }

describe('isContentBlock: each kind with its required fields', () => {
  test.each([
    { name: 'text', block: text, valid: true },
    { name: 'text without text', block: { type: 'text' }, valid: false },
    { name: 'image', block: image, valid: true },
    { name: 'image with MCP annotations and _meta', block: { ...image, annotations: { audience: ['user'] }, _meta: {} }, valid: true },
    { name: 'image without mimeType', block: { type: 'image', data: png }, valid: false },
    { name: 'image whose data is not base64', block: { type: 'image', data: 'not base64!', mimeType: 'image/png' }, valid: false },
    { name: 'audio', block: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }, valid: true },
    { name: 'resource_link', block: { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', description: 'A file' }, valid: true },
    { name: 'resource_link without uri', block: { type: 'resource_link', name: 'a.txt' }, valid: false },
    { name: 'resource_link with a numeric title', block: { type: 'resource_link', uri: 'file:///a', name: 'a', title: 3 }, valid: false },
    { name: 'embedded text resource', block: { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'abc' } }, valid: true },
    { name: 'embedded blob resource', block: { type: 'resource', resource: { uri: 'file:///a.pdf', blob: 'JVBERi0=' } }, valid: true },
    { name: 'embedded resource with both text and blob', block: { type: 'resource', resource: { uri: 'x:a', text: 'a', blob: 'AAAA' } }, valid: false },
    { name: 'embedded resource with neither', block: { type: 'resource', resource: { uri: 'x:a' } }, valid: false },
    { name: 'an unknown type', block: { type: 'video', data: 'AAAA', mimeType: 'video/mp4' }, valid: false },
    { name: 'not an object', block: 'hi', valid: false },
  ])('$name: $valid', ({ block, valid }) => {
    expect(isContentBlock(block)).toBe(valid)
  })
})

describe('isCallToolResult: recognised strictly, so ordinary JSON is never mistaken for it', () => {
  test.each([
    { name: 'content of valid blocks', value: { content: [text, image] }, is: true },
    { name: 'with structuredContent and isError', value: { content: [text], structuredContent: { n: 1 }, isError: false }, is: true },
    { name: 'with _meta', value: { content: [text], _meta: { trace: 1 } }, is: true },
    { name: 'empty content beside structuredContent', value: { content: [], structuredContent: { n: 1 } }, is: true },
    { name: 'empty content alone is data', value: { content: [] }, is: false },
    { name: 'another key beside content is data', value: { content: [text], total: 1 }, is: false },
    { name: 'one invalid element makes it data', value: { content: [text, { type: 'text', body: 'x' }] }, is: false },
    { name: 'content of strings is data', value: { content: ['a', 'b'] }, is: false },
    { name: 'isError not a boolean is data', value: { content: [text], isError: 'yes' }, is: false },
    { name: 'structuredContent not an object is data', value: { content: [text], structuredContent: [1] }, is: false },
    { name: 'an array is data', value: [text], is: false },
    { name: 'a class instance is data', value: Object.assign(Object.create({ inherited: true }) as object, { content: [text] }), is: false },
  ])('$name', ({ value, is }) => {
    expect(isCallToolResult(value)).toBe(is)
  })
})

describe('renderBlocksAsText: what a text-only reader gets, saying what was left out', () => {
  test('text as it is; binary as a note with kind, type and size; links and embedded text resources readable', () => {
    expect(renderBlocksAsText([
      { type: 'text', text: 'A chart:' },
      { type: 'image', data: png, mimeType: 'image/png' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///r.txt', name: 'r.txt', mimeType: 'text/plain', description: 'the report' },
      { type: 'resource', resource: { uri: 'file:///n.md', mimeType: 'text/markdown', text: '# Notes' } },
      { type: 'resource', resource: { uri: 'file:///d.pdf', mimeType: 'application/pdf', blob: 'JVBERi0xLjQ=' } },
    ])).toBe([
      'A chart:',
      '[image image/png, 12 KB, not shown]',
      '[audio audio/wav, 3 B, not shown]',
      '[resource link "r.txt" file:///r.txt (text/plain; the report)]',
      '[resource file:///n.md (text/markdown)]\n# Notes',
      '[resource file:///d.pdf application/pdf, 8 B, not shown]',
    ].join('\n'))
  })

  test('a result without blocks is one text block', () => {
    expect(resultBlocks({ content: 'x' })).toEqual([{ type: 'text', text: 'x' }])
    expect(resultBlocks({ content: 'x', blocks: [text as { type: 'text'; text: string }] })).toEqual([text])
  })
})

describe('sizes', () => {
  test.each([[Buffer.alloc(0), 0], [Buffer.alloc(1), 1], [Buffer.alloc(2), 2], [Buffer.alloc(3), 3], [Buffer.alloc(1000), 1000]])('base64 of %#: decoded size without decoding', (bytes, size) => {
    expect(base64Bytes(bytes.toString('base64'))).toBe(size)
  })

  test.each([[512, '512 B'], [12_400, '12 KB'], [7_500_000, '7.2 MB']])('formatBytes(%d) = %s', (n, s) => {
    expect(formatBytes(n)).toBe(s)
  })
})
