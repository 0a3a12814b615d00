/**
 * Rich results through the host: the three return forms (string, MCP CallToolResult, JSON), isError,
 * outputSchema, and the limits (text spilled to disk, binary held to limits.max_result_bytes).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { toMcpCallResult, toMcpDefinition } from '../../../src/adapters/mcp-definitions.js'
import { createHost, defineTool, ToolRegistry, type Host, type ToolSpec } from '../../../src/index.js'
import { silentLogger } from '../../../src/contract/logger.js'

const png = Buffer.alloc(3000, 1).toString('base64')
const image = { type: 'image' as const, data: png, mimeType: 'image/png' }
let root: string
let registry: ToolRegistry
let host: Host | undefined

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-rich-')))
  registry = new ToolRegistry()
})
afterEach(async () => {
  await host?.close()
  host = undefined
  rmSync(root, { recursive: true, force: true })
})

function tool(name: string, handler: ToolSpec['handler'], extra: Partial<ToolSpec> = {}): void {
  registry.register(defineTool({ name, description: 'test tool', parameters: { type: 'object' }, parallelSafe: true, handler, ...extra }))
}

async function run(name: string, limits: Record<string, unknown> = {}): Promise<import('../../../src/index.js').ToolResult> {
  host ??= await createHost({ root, registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, limits } })
  const [result] = await host.run([{ id: `c_${name}`, name }])
  return result!
}

describe('handler return forms', () => {
  test('a string is the text, without blocks', async () => {
    tool('plain', () => 'hello')
    expect(await run('plain')).toEqual({ id: 'c_plain', name: 'plain', ok: true, content: 'hello' })
  })

  test('a CallToolResult with one text block is that text, without blocks', async () => {
    tool('one_text', () => ({ content: [{ type: 'text', text: 'hello' }] }))
    expect(await run('one_text')).toEqual({ id: 'c_one_text', name: 'one_text', ok: true, content: 'hello' })
  })

  test('an image keeps its block; the content is the text rendering saying what was left out', async () => {
    tool('chart', () => ({ content: [{ type: 'text', text: 'Sales:' }, image] }))
    expect(await run('chart')).toEqual({
      id: 'c_chart', name: 'chart', ok: true,
      content: 'Sales:\n[image image/png, 3 KB, not shown]',
      blocks: [{ type: 'text', text: 'Sales:' }, image],
    })
  })

  test('several text blocks are kept as blocks', async () => {
    tool('two', () => ({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }))
    expect(await run('two')).toMatchObject({ ok: true, content: 'a\nb', blocks: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] })
  })

  test('JSON that only looks like a CallToolResult (another key) is sent as JSON text', async () => {
    tool('data', () => ({ content: [{ type: 'text', text: 'a' }], total: 1 }))
    expect(await run('data')).toEqual({ id: 'c_data', name: 'data', ok: true, content: '{"content":[{"type":"text","text":"a"}],"total":1}' })
  })

  test('structuredContent without an outputSchema is passed on unchecked', async () => {
    tool('structured', () => ({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }))
    expect(await run('structured')).toEqual({ id: 'c_structured', name: 'structured', ok: true, content: '{"n":1}', structuredContent: { n: 1 } })
  })

  test('empty content beside structuredContent renders the structured content as JSON text', async () => {
    tool('bare', () => ({ content: [], structuredContent: { n: 2 } }))
    expect(await run('bare')).toMatchObject({ ok: true, content: '{"n":2}', structuredContent: { n: 2 } })
  })

  test('isError: true is E_TOOL_FAILED carrying the blocks’ text', async () => {
    tool('failing', () => ({ content: [{ type: 'text', text: 'the API said 503' }], isError: true }))
    expect(await run('failing')).toEqual({ id: 'c_failing', name: 'failing', ok: false, content: 'the API said 503', error: { code: 'E_TOOL_FAILED', message: 'the API said 503' } })
  })
})

describe('outputSchema', () => {
  const outputSchema = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'], additionalProperties: false }

  test('a matching object is the structured content and its JSON the text', async () => {
    tool('temp', () => ({ celsius: 21.5 }), { outputSchema })
    expect(await run('temp')).toEqual({ id: 'c_temp', name: 'temp', ok: true, content: '{"celsius":21.5}', structuredContent: { celsius: 21.5 } })
  })

  test('a CallToolResult’s structuredContent is checked too', async () => {
    tool('temp2', () => ({ content: [{ type: 'text', text: 'warm' }], structuredContent: { celsius: 'warm' } }), { outputSchema })
    expect(await run('temp2')).toMatchObject({ ok: false, error: { code: 'E_TOOL_FAILED', message: 'temp2 returned structured content that does not match its outputSchema: `celsius` must be number, got string' } })
  })

  test('a mismatch names the field', async () => {
    tool('temp3', () => ({ kelvin: 300 }), { outputSchema })
    expect((await run('temp3')).error).toEqual({
      code: 'E_TOOL_FAILED',
      message: 'temp3 returned structured content that does not match its outputSchema: `celsius` is required but missing; `kelvin` is not an accepted field; remove it',
    })
  })

  test('text alone does not satisfy a declared outputSchema', async () => {
    tool('temp4', () => '21.5', { outputSchema })
    expect((await run('temp4')).error?.message).toMatch(/declares an outputSchema but returned no structured content/)
  })

  test('an error result is not checked against it', async () => {
    tool('temp5', () => ({ content: [{ type: 'text', text: 'sensor offline' }], isError: true }), { outputSchema })
    expect((await run('temp5')).error).toEqual({ code: 'E_TOOL_FAILED', message: 'sensor offline' })
  })

  test('an invalid outputSchema fails at registration, naming the tool', () => {
    expect(() => tool('bad_out', () => ({}), { outputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }))
      .toThrow(expect.objectContaining({ code: 'E_SCHEMA_INVALID', message: expect.stringMatching(/tool "bad_out" has an invalid outputSchema/) }))
    expect(registry.has('bad_out')).toBe(false)
  })

  test('outputSchema must describe an object', () => {
    expect(() => tool('bad_out2', () => ({}), { outputSchema: { type: 'array' } })).toThrow(/`outputSchema` must be a JSON Schema with type "object"/)
  })

  test('MCP definitions carry it; MCP results carry blocks and structuredContent', async () => {
    tool('temp6', () => ({ content: [{ type: 'text', text: 'warm' }, image], structuredContent: { celsius: 30 } }), { outputSchema })
    expect(toMcpDefinition(registry.get('temp6')!).outputSchema).toEqual(outputSchema)
    expect(toMcpCallResult(await run('temp6'))).toEqual({ content: [{ type: 'text', text: 'warm' }, image], structuredContent: { celsius: 30 }, isError: false })
  })
})

describe('limits on rich results', () => {
  test('binary over limits.max_result_bytes is replaced by a note saying so, never dropped silently', async () => {
    const small = Buffer.alloc(100, 2).toString('base64')
    tool('photos', () => ({ content: [image, { type: 'image', data: small, mimeType: 'image/jpeg' }, { ...image }] }))
    const result = await run('photos', { max_result_bytes: 3100 })
    expect(result.blocks).toEqual([
      image,
      { type: 'image', data: small, mimeType: 'image/jpeg' },
      { type: 'text', text: '[image image/png, 3 KB, left out: over the 3 KB limit for binary content of one result (limits.max_result_bytes)]' },
    ])
    expect(result.content).toContain('left out: over the 3 KB limit')
  })

  test('over-long text blocks are cut to the limit, the whole text saved to disk; images stay', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n')
    tool('report', () => ({ content: [{ type: 'text', text: long }, image, { type: 'text', text: 'the end' }] }))
    const result = await run('report', { max_result_chars: 500 })
    expect(result).toMatchObject({ ok: true, truncated: true, savedTo: expect.any(String) })
    expect(result.content.length).toBeLessThanOrEqual(500)
    expect(readFileSync(result.savedTo!, 'utf8')).toBe(`${long}\n[image image/png, 3 KB, not shown]\nthe end`)
    const [first, second, note] = result.blocks!
    const kept = first?.type === 'text' ? first.text : ''
    expect(kept.length).toBeGreaterThan(100)
    expect(long.startsWith(kept) && long[kept.length] === '\n').toBe(true)
    expect(second).toEqual(image)
    expect(note).toEqual({ type: 'text', text: expect.stringMatching(/^\[truncated: showing \d+ of \d+ characters of text; the whole text is saved at /) })
    expect(result.blocks).toHaveLength(3) // "the end" came after the cut: it is in the saved file
  })
})

describe('huge rich results × the memory budget (issues 13 and 14)', () => {
  // Over the host's 2 M-character budget for huge results waiting to be shaped.
  const huge = (): string => `${'h'.repeat(99)}\n`.repeat(30_000)

  // A batch of [the huge result, a probe] on one worker: the probe runs once the huge call's worker
  // is free, and reports how many whole results are saved by then.
  async function savedWhenNextStarts(value: () => unknown): Promise<{ seen: number; result: import('../../../src/index.js').ToolResult }> {
    let seen = -1
    tool('huge', value as ToolSpec['handler'])
    tool('probe', () => {
      const dir = path.join(root, '.toolhost', 'results')
      seen = existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.txt')).length : 0
      return 'probed'
    })
    host = await createHost({ root, registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, dispatch: { max_workers: 1 }, limits: { max_result_chars: 1000 } } })
    const [result] = await host.run([{ id: 'h1', name: 'huge' }, { id: 'p1', name: 'probe' }])
    return { seen, result: result! }
  }

  test.each([
    ['a huge text result', () => huge()],
    ['a huge block result (text beside an image)', () => ({ content: [{ type: 'text', text: huge() }, image] })],
    ['a huge embedded text resource', () => ({ content: [{ type: 'resource', resource: { uri: 'file:///big.txt', mimeType: 'text/plain', text: huge() } }, image] })],
  ])('%s holds the next handler off until it is saved (the budget counts it)', async (_what, value) => {
    const { seen, result } = await savedWhenNextStarts(value)
    expect(result).toMatchObject({ ok: true, truncated: true, savedTo: expect.stringContaining(path.join('.toolhost', 'results')) })
    expect(result.content.length).toBeLessThanOrEqual(1000)
    expect(seen).toBe(1)
  })

  test('cut text blocks do not keep their huge texts alive: what a result keeps is a copy, never a slice', async () => {
    // A sliced string keeps its whole parent alive in V8: ten results each holding a 1,000-character
    // slice would pin 30 MB of handler output for as long as a conversation holds the results.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    tool('huge_blocks', () => ({ content: [{ type: 'text', text: huge() }, image] }))
    host = await createHost({ root, registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, limits: { max_result_chars: 1000 } } })
    await host.run([{ id: 'warm', name: 'huge_blocks' }])
    gc()
    const before = process.memoryUsage().heapUsed
    const results = await host.run(Array.from({ length: 10 }, (_, i) => ({ id: `b${i}`, name: 'huge_blocks' })))
    gc()
    const grown = process.memoryUsage().heapUsed - before
    expect(results.every((r) => r.truncated === true && r.content.length <= 1000)).toBe(true)
    expect(grown).toBeLessThan(10 * 2 ** 20)
  })
})
