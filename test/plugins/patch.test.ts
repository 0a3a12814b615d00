// patch: exact-string edits (not found, ambiguous with line numbers, replace_all), unified diffs
// across files (create, delete, all-or-nothing with rollback), and a footprint from the diff itself.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { registry, type Host } from '../../src/index.js'
import { parseUnifiedDiff } from '../../src/workspace/unified-diff.js'
import { call, hostOn, makeSandbox, type Sandbox } from '../workspace/sandbox.js'

let sb: Sandbox
let host: Host
const file = (name: string): string => path.join(sb.root, name)
const read = (name: string): string => readFileSync(file(name), 'utf8')

beforeAll(async () => {
  sb = makeSandbox('toolhost-patch-')
  registry.clear()
  host = await hostOn(sb.root)
})

beforeEach(() => {
  rmSync(file('made'), { recursive: true, force: true })
  writeFileSync(file('a.ts'), 'const a = 1\nconst b = 2\nconst a2 = 1\nexport { a, b }\n')
  writeFileSync(file('b.ts'), 'one\ntwo\nthree\n')
  writeFileSync(file('dup.txt'), 'x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n')
  writeFileSync(file('crlf.txt'), 'first\r\nsecond\r\nthird\r\n')
})

afterAll(async () => {
  await host.close()
  registry.clear()
  sb.cleanup()
})

describe('string mode', () => {
  test('replaces the one occurrence and says where', async () => {
    const result = await call(host, 'patch', { path: 'a.ts', old_string: 'const b = 2', new_string: 'const b = 3' })
    expect(result.content).toBe('patched a.ts: replaced 1 occurrence (line 2)')
    expect(read('a.ts')).toBe('const a = 1\nconst b = 3\nconst a2 = 1\nexport { a, b }\n')
  })

  test('not found: E_NOT_FOUND, with a hint when only whitespace differs, file unchanged', async () => {
    const result = await call(host, 'patch', { path: 'a.ts', old_string: 'const  b =   2', new_string: 'x' })
    expect(result.error?.code).toBe('E_NOT_FOUND')
    expect(result.content).toMatch(/not found in a\.ts \(text matching it apart from whitespace starts on line 2\)/)
    expect(read('a.ts')).toContain('const b = 2')
  })

  test('ambiguous: says how many times and on which lines, file unchanged', async () => {
    const result = await call(host, 'patch', { path: 'dup.txt', old_string: 'x = 1', new_string: 'x = 9' })
    expect(result.error?.code).toBe('E_ARGS_INVALID')
    expect(result.content).toMatch(/occurs 3 times in dup\.txt \(starting on lines 1, 3, 5\)/)
    expect(result.content).toMatch(/replace_all/)
    expect(read('dup.txt')).toBe('x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n')
  })

  test('replace_all replaces every occurrence', async () => {
    const result = await call(host, 'patch', { path: 'dup.txt', old_string: 'x = 1', new_string: 'x = 9', replace_all: true })
    expect(result.content).toBe('patched dup.txt: replaced 3 occurrences (lines 1, 3, 5)')
    expect(read('dup.txt')).toBe('x = 9\ny = 2\nx = 9\nz = 3\nx = 9\n')
  })

  test('an LF old_string matches a CRLF file, which keeps its CRLF', async () => {
    await call(host, 'patch', { path: 'crlf.txt', old_string: 'first\nsecond', new_string: 'FIRST\nSECOND' })
    expect(read('crlf.txt')).toBe('FIRST\r\nSECOND\r\nthird\r\n')
  })

  test.each([
    ['old_string equal to new_string', { path: 'a.ts', old_string: 'a', new_string: 'a' }, 'E_ARGS_INVALID', /same/],
    ['a missing file', { path: 'none.ts', old_string: 'a', new_string: 'b' }, 'E_NOT_FOUND', /no file/],
    ['no new_string', { path: 'a.ts', old_string: 'a' }, 'E_ARGS_INVALID', /missing `new_string`/],
    ['nothing at all', {}, 'E_ARGS_INVALID', /either `diff`/],
    ['diff and path together', { diff: '--- a/b.ts\n+++ b/b.ts\n@@ -1 +1 @@\n-one\n+1\n', path: 'a.ts' }, 'E_ARGS_INVALID', /not both; remove `path`/],
  ])('%s', async (_name, args, code, message) => {
    const result = await call(host, 'patch', args)
    expect(result.error?.code).toBe(code)
    expect(result.content).toMatch(message)
    expect(read('a.ts')).toContain('const b = 2')
    expect(read('b.ts')).toBe('one\ntwo\nthree\n')
  })
})

const TWO_FILES = `diff --git a/a.ts b/a.ts
--- a/a.ts
+++ b/a.ts
@@ -1,2 +1,2 @@
-const a = 1
+const a = 10
 const b = 2
--- a/b.ts
+++ b/b.ts
@@ -2,2 +2,3 @@
 two
-three
+THREE
+four
--- /dev/null
+++ b/made/new.txt
@@ -0,0 +1,2 @@
+brand
+new
`

describe('diff mode', () => {
  test('applies every file of the diff, creating one', async () => {
    const result = await call(host, 'patch', { diff: TWO_FILES })
    expect(result.ok, result.content).toBe(true)
    expect(result.content).toBe('patched 3 files: a.ts (1 hunk), b.ts (1 hunk), made/new.txt (created)')
    expect(read('a.ts')).toBe('const a = 10\nconst b = 2\nconst a2 = 1\nexport { a, b }\n')
    expect(read('b.ts')).toBe('one\ntwo\nTHREE\nfour\n')
    expect(read('made/new.txt')).toBe('brand\nnew\n')
  })

  test('a hunk that does not match changes no file, and says which line differs', async () => {
    const bad = TWO_FILES.replace(' two\n-three', ' two\n-tree')
    const result = await call(host, 'patch', { diff: bad })
    expect(result.error?.code).toBe('E_NOT_FOUND')
    expect(result.content).toMatch(/does not match b\.ts; line 3 is "three" but the hunk expects "tree"/)
    expect(result.content).toMatch(/No file was changed/)
    expect(read('a.ts')).toContain('const a = 1\n')
    expect(existsSync(file('made/new.txt'))).toBe(false)
  })

  test('a write failing midway rolls back the files already written', async () => {
    writeFileSync(file('blocker'), 'a file where the diff needs a folder\n')
    const diff = `--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-const a = 1\n+const a = 99\n--- /dev/null\n+++ b/blocker/new.txt\n@@ -0,0 +1 @@\n+x\n`
    const result = await call(host, 'patch', { diff })
    expect(result.ok).toBe(false)
    expect(result.content).toMatch(/could not write blocker\/new\.txt/)
    expect(result.content).toMatch(/the 1 file already written were restored, so no file changed/)
    expect(read('a.ts')).toBe('const a = 1\nconst b = 2\nconst a2 = 1\nexport { a, b }\n')
  })

  test('deletes a file whose hunk removes all of it, and hunks shift with earlier ones', async () => {
    writeFileSync(file('gone.txt'), 'bye\n')
    writeFileSync(file('long.txt'), 'a\nb\nc\nd\ne\nf\ng\n')
    const diff = `--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n--- a/long.txt\n+++ b/long.txt\n@@ -1,2 +1,3 @@\n a\n+a2\n b\n@@ -6,2 +7,2 @@\n f\n-g\n+G\n`
    const result = await call(host, 'patch', { diff })
    expect(result.ok, result.content).toBe(true)
    expect(existsSync(file('gone.txt'))).toBe(false)
    expect(read('long.txt')).toBe('a\na2\nb\nc\nd\ne\nf\nG\n')
  })

  test('a file that lost its final newline keeps it lost unless the diff says otherwise', async () => {
    writeFileSync(file('noeol.txt'), 'x\ny')
    const diff = `--- a/noeol.txt\n+++ b/noeol.txt\n@@ -1,2 +1,2 @@\n-x\n+X\n y\n\\ No newline at end of file\n`
    expect((await call(host, 'patch', { diff })).ok).toBe(true)
    expect(read('noeol.txt')).toBe('X\ny')
  })

  test.each([
    ['no headers', 'just text\n', /no file headers/],
    ['bad hunk counts', '--- a/b.ts\n+++ b/b.ts\n@@ -1,5 +1,5 @@\n-one\n+1\n', /promises 5 old and 5 new lines/],
    ['creating a file that exists', '--- /dev/null\n+++ b/b.ts\n@@ -0,0 +1 @@\n+x\n', /already exists/],
  ])('%s is refused without changes', async (_name, diff, message) => {
    const result = await call(host, 'patch', { diff })
    expect(result.ok).toBe(false)
    expect(result.content).toMatch(message)
    expect(read('b.ts')).toBe('one\ntwo\nthree\n')
  })
})

describe('footprint', () => {
  test('scope comes from the files the diff names, never from a decoy path', () => {
    const tool = registry.get('patch')!
    expect(tool.scope!({ diff: TWO_FILES, path: 'decoy.txt' })).toEqual([
      { path: 'a.ts', access: 'write' },
      { path: 'b.ts', access: 'write' },
      { path: 'made/new.txt', access: 'write' },
    ])
    expect(tool.scope!({ path: 'a.ts', old_string: 'x', new_string: 'y' })).toEqual([{ path: 'a.ts', access: 'write' }])
    expect(parseUnifiedDiff(TWO_FILES).map((f) => f.newPath)).toEqual(['a.ts', 'b.ts', 'made/new.txt'])
  })

  test('a multi-file patch conflicts with a write to a file it edits, not with one it does not touch', async () => {
    const plan = await host.explain([
      { id: 'p', name: 'patch', arguments: { diff: TWO_FILES, path: 'decoy.txt' } },
      { id: 'w_b', name: 'write_file', arguments: { path: 'b.ts', content: 'x' } },
      { id: 'w_decoy', name: 'write_file', arguments: { path: 'decoy.txt', content: 'x' } },
      { id: 'r_new', name: 'read_file', arguments: { path: 'made/new.txt' } },
    ])
    const byId = Object.fromEntries(plan.calls.map((c) => [c.id, c]))
    expect(byId.w_b!.waitsFor.map((w) => w.id)).toEqual(['p'])
    expect(byId.w_b!.waitsFor[0]!.reason).toMatch(/b\.ts/)
    expect(byId.w_decoy!.waitsFor).toEqual([])
    expect(byId.r_new!.waitsFor.map((w) => w.id)).toEqual(['p'])
  })

  test('run with trace: the write to b.ts starts only after the patch ends', async () => {
    const results = await host.run([
      { id: 'p', name: 'patch', arguments: { diff: TWO_FILES } },
      { id: 'w', name: 'write_file', arguments: { path: 'b.ts', content: 'written after\n' } },
    ], { trace: true })
    expect(results.map((r) => r.ok)).toEqual([true, true])
    expect(results[1]!.waitedFor).toEqual(['p'])
    expect(results[1]!.startedAt!).toBeGreaterThanOrEqual(results[0]!.endedAt!)
    expect(read('b.ts')).toBe('written after\n')
  })

  test('an unparseable diff makes the call run alone', async () => {
    const plan = await host.explain([
      { id: 'p', name: 'patch', arguments: { diff: 'garbage' } },
      { id: 'r', name: 'read_file', arguments: { path: 'a.ts' } },
    ])
    expect(plan.calls[0]!.footprint?.kind).toBe('barrier')
    expect(plan.calls[1]!.waitsFor.map((w) => w.id)).toEqual(['p'])
  })
})
