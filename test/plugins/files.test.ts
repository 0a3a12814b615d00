// read_file and write_file: paging, the read-size limit in both overflow modes, binary files,
// folder creation, atomic replacement and their declarations.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { registry, type Host } from '../../src/index.js'
import { call, hostOn, makeSandbox, type Sandbox } from '../workspace/sandbox.js'

let sb: Sandbox
let host: Host
// Images known by their first bytes, whatever their names say (issue 29).
const IMAGES: Record<string, Buffer> = {
  'picture.dat': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
  'photo.bin': Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]),
  'anim.txt': Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'),
  'modern': Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 ')]),
}
const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n'

beforeAll(async () => {
  sb = makeSandbox('toolhost-files-')
  writeFileSync(path.join(sb.root, 'big.txt'), numbered(5000))
  writeFileSync(path.join(sb.root, 'small.txt'), 'alpha\r\nbeta\r\ngamma')
  writeFileSync(path.join(sb.root, 'empty.txt'), '')
  writeFileSync(path.join(sb.root, 'fake.png'), Buffer.from([0x89, 0x50, 0x4e, 0x46, 0, 1, 2, 3]))
  for (const [name, bytes] of Object.entries(IMAGES)) writeFileSync(path.join(sb.root, name), bytes)
  writeFileSync(path.join(sb.root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  writeFileSync(path.join(sb.root, 'bom.txt'), '\ufeffwith bom\n')
  mkdirSync(path.join(sb.root, 'folder'))
  registry.clear()
  host = await hostOn(sb.root)
})

afterAll(async () => {
  await host.close()
  registry.clear()
  sb.cleanup()
})

describe('read_file', () => {
  test('numbers lines and pages by offset and limit with a continuation note', async () => {
    const result = await call(host, 'read_file', { path: 'big.txt', offset: 10, limit: 3 })
    expect(result.content).toBe('10\tline 10\n11\tline 11\n12\tline 12\n[showing lines 10-12 of 5000; continue with offset 13]')
  })

  test('reads the default 2000 lines, then says where to continue', async () => {
    const result = await call(host, 'read_file', { path: 'big.txt' })
    const lines = result.content.split('\n')
    expect(lines).toHaveLength(2001)
    expect(lines[1999]).toBe('2000\tline 2000')
    expect(lines[2000]).toBe('[showing lines 1-2000 of 5000; continue with offset 2001]')
  })

  test('the last page has no note', async () => {
    const result = await call(host, 'read_file', { path: 'big.txt', offset: 4999 })
    expect(result.content).toBe('4999\tline 4999\n5000\tline 5000')
  })

  test('strips CR from CRLF lines and reads a last line without a newline', async () => {
    expect((await call(host, 'read_file', { path: 'small.txt' })).content).toBe('1\talpha\n2\tbeta\n3\tgamma')
  })

  test('drops a UTF-8 byte order mark', async () => {
    expect((await call(host, 'read_file', { path: 'bom.txt' })).content).toBe('1\twith bom')
  })

  test.each([
    ['an empty file', { path: 'empty.txt' }, true, /empty/],
    ['an offset past the end', { path: 'small.txt', offset: 9 }, 'E_ARGS_INVALID', /past the end.*3 lines/],
    ['a binary file (named .png, not an image by its bytes)', { path: 'fake.png' }, 'E_ARGS_INVALID', /binary/],
    ['a file that is not UTF-8', { path: 'latin1.txt' }, 'E_ARGS_INVALID', /binary/],
    ['a folder', { path: 'folder' }, 'E_ARGS_INVALID', /folder/],
    ['a missing file', { path: 'nope.txt' }, 'E_NOT_FOUND', /no file/],
    ['offset 0', { path: 'small.txt', offset: 0 }, 'E_ARGS_INVALID', /offset/],
    ['an unknown argument', { path: 'small.txt', lines: 3 }, 'E_ARGS_INVALID', /lines/],
  ])('%s', async (_name, args, expected, message) => {
    const result = await call(host, 'read_file', args)
    if (expected === true) expect(result.ok).toBe(true)
    else expect(result.error?.code).toBe(expected)
    expect(result.content).toMatch(message)
  })

  test.each([
    ['picture.dat', 'image/png'],
    ['photo.bin', 'image/jpeg'],
    ['anim.txt', 'image/gif'],
    ['modern', 'image/webp'],
  ])('%s is an image (%s): an image block for MCP and the model APIs, the note for a text-only reader', async (name, mimeType) => {
    const result = await call(host, 'read_file', { path: name })
    const data = IMAGES[name]!.toString('base64')
    expect(result.ok).toBe(true)
    expect(result.blocks).toEqual([{ type: 'image', data, mimeType }])
    expect(result.content).toBe(`[image ${mimeType}, ${IMAGES[name]!.length} B, not shown]`)
    expect(host.toMessages([result], 'mcp')).toEqual([{ content: [{ type: 'image', data, mimeType }], isError: false }])
    expect(host.toMessages([result], 'anthropic').content[0]).toMatchObject({ content: [{ type: 'image', source: { type: 'base64', media_type: mimeType, data } }] })
    expect(host.toMessages([result], 'openai-chat')).toEqual([{ role: 'tool', tool_call_id: 'c1', content: `[image ${mimeType}, ${IMAGES[name]!.length} B, not shown]` }])
  })

  test('an image over limits.max_result_bytes is E_LIMIT saying its size and the limit', async () => {
    const small = await hostOn(sb.root, {}, { limits: { max_result_bytes: 10 } })
    try {
      const result = await call(small, 'read_file', { path: 'picture.dat' })
      expect(result.error?.code).toBe('E_LIMIT')
      expect(result.content).toContain('"picture.dat" is an image (image/png) of 12 bytes, over the 10 bytes one result may carry (limits.max_result_bytes)')
    } finally {
      await small.close()
    }
  })

  test('over limits.max_read_chars: returns what fits, cut at a line, with total lines and the next offset', async () => {
    const small = await hostOn(sb.root, {}, { limits: { max_read_chars: 1000 } })
    try {
      const result = await call(small, 'read_file', { path: 'big.txt', offset: 100 })
      expect(result.ok).toBe(true)
      expect(result.content.length).toBeLessThanOrEqual(1000)
      const lines = result.content.split('\n').map((l) => l.trimStart())
      const note = lines.pop()!
      const last = Number(lines.at(-1)!.split('\t')[0])
      expect(lines[0]).toBe('100\tline 100')
      expect(lines.at(-1)).toBe(`${last}\tline ${last}`)
      expect(note).toBe(`[truncated at limits.max_read_chars (1000 characters): showing lines 100-${last} of 5000; continue with offset ${last + 1}]`)
      const next = await call(small, 'read_file', { path: 'big.txt', offset: last + 1, limit: 1 })
      expect(next.content).toContain(`${last + 1}\tline ${last + 1}`)
      expect(result.truncated).toBeUndefined()
      expect(result.savedTo).toBeUndefined()
    } finally {
      await small.close()
    }
  })

  test('with read_file.on_overflow: error, returns no content and says how to page', async () => {
    const strict = await hostOn(sb.root, {}, { limits: { max_read_chars: 1000 }, read_file: { on_overflow: 'error' } })
    try {
      const result = await call(strict, 'read_file', { path: 'big.txt' })
      expect(result.ok).toBe(false)
      expect(result.error?.code).toBe('E_LIMIT')
      expect(result.content).toMatch(/max_read_chars \(1000 characters\); the file has 5000 lines/)
      expect(result.content).toMatch(/offset 1 with limit \d+ fits/)
      expect(result.content).not.toContain('line 1\n')
      const fits = Number(/limit (\d+) fits/.exec(result.content)![1])
      expect((await call(strict, 'read_file', { path: 'big.txt', limit: fits })).ok).toBe(true)
    } finally {
      await strict.close()
    }
  })

  test('is never spilled to disk even when larger than limits.max_result_chars', async () => {
    const spill = await hostOn(sb.root, {}, { limits: { max_result_chars: 500, max_read_chars: 5000 } })
    try {
      const result = await call(spill, 'read_file', { path: 'big.txt' })
      expect(result.content.length).toBeGreaterThan(500)
      expect(result.savedTo).toBeUndefined()
      expect(existsSync(path.join(sb.root, '.toolhost', 'results'))).toBe(false)
    } finally {
      await spill.close()
    }
  })
})

describe('write_file', () => {
  test('creates missing folders and says it created the file', async () => {
    const result = await call(host, 'write_file', { path: 'new/deep/er/file.md', content: '# hi\nthere\n' })
    expect(result.content).toBe('created new/deep/er/file.md (11 bytes, 2 lines)')
    expect(readFileSync(path.join(sb.root, 'new/deep/er/file.md'), 'utf8')).toBe('# hi\nthere\n')
  })

  test('a one-byte, one-line file is counted in the singular (1 byte, 1 line)', async () => {
    const result = await call(host, 'write_file', { path: 'one.txt', content: 'x' })
    expect(result.content).toBe('created one.txt (1 byte, 1 line)')
  })

  test('overwrites atomically, keeps the file mode and leaves no temporary file', async () => {
    const file = path.join(sb.root, 'script.sh')
    writeFileSync(file, 'old\n')
    chmodSync(file, 0o750)
    const result = await call(host, 'write_file', { path: 'script.sh', content: 'new\n' })
    expect(result.content).toMatch(/^overwrote script.sh/)
    expect(readFileSync(file, 'utf8')).toBe('new\n')
    expect(statSync(file).mode & 0o777).toBe(0o750)
    expect(readdirSync(sb.root).filter((n) => n.includes('toolhost-'))).toEqual([])
  })

  test('refuses to replace a folder, and a path beneath a file', async () => {
    expect((await call(host, 'write_file', { path: 'folder', content: 'x' })).error?.code).toBe('E_ARGS_INVALID')
    const beneath = await call(host, 'write_file', { path: 'small.txt/child.txt', content: 'x' })
    expect(beneath.error?.code).toBe('E_ARGS_INVALID')
    expect(beneath.content).toMatch(/is a file, not a folder/)
  })

  test('declares: path-scoped write, destructive only when it overwrites a file', () => {
    const tool = registry.get('write_file')!
    expect(tool.pathScoped).toBe(true)
    expect(tool.readOnly({ path: 'a', content: '' })).toBe(false)
    expect(tool.scope!({ path: 'a.txt', content: '' })).toEqual([{ path: 'a.txt', access: 'write' }])
    expect(tool.destructive({ path: 'small.txt', content: '' }, { root: sb.root })).toBe(true)
    expect(tool.destructive({ path: 'not-there.txt', content: '' }, { root: sb.root })).toBe(false)
    // Without a root to resolve against it cannot know: it says yes.
    expect(tool.destructive({ path: 'not-there.txt', content: '' })).toBe(true)
  })
})

describe('declarations', () => {
  test('read_file: read-only, parallel-safe, path-scoped read, pages itself', () => {
    const tool = registry.get('read_file')!
    expect(tool.readOnly({ path: 'x' })).toBe(true)
    expect(tool.parallelSafe).toBe(true)
    expect(tool.pathScoped).toBe(true)
    expect(tool.maxResultChars).toBe(false)
    expect(tool.scope!({ path: 'x' })).toEqual([{ path: 'x', access: 'read' }])
  })

  test.each(['read_file', 'write_file', 'patch', 'search_files', 'clarify', 'web_search'])('%s describes every field for the model', (name) => {
    const tool = registry.get(name)!
    expect(tool.description.length).toBeGreaterThan(40)
    const properties = (tool.parameters as { properties: Record<string, { description?: string }> }).properties
    for (const [field, schema] of Object.entries(properties)) expect(schema.description, `${name}.${field}`).toMatch(/\w{3}/)
  })

  test('two reads run together and a write to the same file waits for them', async () => {
    const plan = await host.explain([
      { id: 'r1', name: 'read_file', arguments: { path: 'small.txt' } },
      { id: 'r2', name: 'read_file', arguments: { path: 'big.txt' } },
      { id: 'w1', name: 'write_file', arguments: { path: 'small.txt', content: 'x' } },
      { id: 'w2', name: 'write_file', arguments: { path: 'other.txt', content: 'x' } },
    ])
    const waits = Object.fromEntries(plan.calls.map((c) => [c.id, c.waitsFor.map((w) => w.id)]))
    expect(waits).toEqual({ r1: [], r2: [], w1: ['r1'], w2: [] })
  })
})
