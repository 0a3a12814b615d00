// A model's pattern cannot freeze the host (issue 12, item 1): search_files runs its pattern and glob
// in linear time (RE2) and lets other calls run during a long search. Before, `(.*.*)*q` never
// returned and nothing else could run. A backtracking engine would hang these tests (they time out).
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { registry, type Host } from '../../src/index.js'
import { call, hostOn, makeSandbox, type Sandbox } from '../workspace/sandbox.js'

let sb: Sandbox
let host: Host

beforeAll(async () => {
  sb = makeSandbox('toolhost-search-linear-')
  // 2 MB of lines that almost match the nasty patterns.
  writeFileSync(path.join(sb.root, 'big.txt'), `${'a'.repeat(4000)}\n`.repeat(500))
  writeFileSync(path.join(sb.root, 'small.md'), 'TODO: write the docs\n')
  writeFileSync(path.join(sb.root, 'src.ts'), 'export const x = 1\r\nexport function load() {}\r\n')
  writeFileSync(path.join(sb.root, `${'a'.repeat(200)}.txt`), 'named\n')
  registry.clear()
  host = await hostOn(sb.root)
})

afterAll(async () => {
  await host.close()
  registry.clear()
  sb.cleanup()
})

test.each(['(.*.*)*q', '(a+)+$', '(a|aa)+b', '(?:a*){20}b', '^(a|a?)+$'])('the pattern %s answers (no catastrophic backtracking)', async (pattern) => {
  const result = await call(host, 'search_files', { pattern })
  expect(result.ok, result.content).toBe(true)
})

test('other calls are answered while a long search runs', async () => {
  const search = call(host, 'search_files', { pattern: '(?:a|b){300}c' }, 'search')
  let searchDone = false
  void search.then(() => (searchDone = true))
  const echo = await call(host, 'echo', { text: 'meanwhile' }, 'echo')
  expect(echo.content).toBe('meanwhile')
  expect(searchDone).toBe(false)
  expect((await search).ok).toBe(true)
})

test('a pattern too complex to match cheaply is E_ARGS_INVALID saying so', async () => {
  const result = await call(host, 'search_files', { pattern: '[a-z]{1000}c' })
  expect(result.error?.code).toBe('E_ARGS_INVALID')
  expect(result.content).toMatch(/the pattern is too complex \(\d+ steps, at most 600\)/)
})

test('a nasty glob matches in linear time: *a*a*a*a*a*a*a*a*b against a 200-character name', async () => {
  const result = await call(host, 'search_files', { pattern: 'named', glob: '*a*a*a*a*a*a*a*a*b' })
  expect(result.content).toMatch(/^no lines match/)
  const found = await call(host, 'search_files', { pattern: 'named', glob: '*a*a*.{txt,md}' })
  expect(found.content).toBe(`${'a'.repeat(200)}.txt:1: named`)
})

test('line anchors work per line, also in files with CRLF line ends', async () => {
  const result = await call(host, 'search_files', { pattern: '^export function \\w+\\(\\) \\{\\}$' })
  expect(result.content).toBe('src.ts:2: export function load() {}')
  const whole = await call(host, 'search_files', { pattern: '\\Aexport const' })
  expect(whole.content).toBe('src.ts:1: export const x = 1')
})

test('ignore_case and alternation', async () => {
  const result = await call(host, 'search_files', { pattern: 'todo|fixme', ignore_case: true })
  expect(result.content).toBe('small.md:1: TODO: write the docs')
})
