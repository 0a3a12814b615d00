// Issue 29, differential: the same queries on a generated tree answered by the ripgrep engine (the
// @vscode/ripgrep binary, and rg on PATH where there is one) and by the JavaScript engine give the
// same lines (file:line: text), in the same order, with the same "more exist".
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { chooseSearchEngine } from '../../src/search/find-ripgrep.js'
import { searchTree } from '../../src/search/search-tree.js'
import type { SearchEngine, SearchOutcome } from '../../src/search/search-types.js'
import { Workspace } from '../../src/workspace/workspace.js'
import { buildSearchTree, DENY } from './search-tree-tree.js'

let base: string
let root: string
let ws: Workspace
let bundled: SearchEngine
const JS: SearchEngine = { kind: 'javascript', reason: 'chosen by the test' }
const PATH_RG = ['/usr/bin/rg', '/usr/local/bin/rg', '/opt/homebrew/bin/rg'].find((file) => {
  try {
    return realpathSync(file) !== ''
  } catch {
    return false
  }
})

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-search-diff-')))
  root = path.join(base, 'root')
  buildSearchTree(root, path.join(base, 'outside'))
  ws = new Workspace(root, { deny: DENY })
  bundled = await chooseSearchEngine()
})

afterAll(() => rmSync(base, { recursive: true, force: true }))

interface Query { pattern: string; path?: string; glob?: string; target?: 'content' | 'files'; ignore_case?: boolean; max?: number }

function run(query: Query, engine: SearchEngine): Promise<SearchOutcome> {
  const request = {
    start: ws.resolve(query.path ?? '.', 'read'),
    pattern: query.pattern,
    ignoreCase: query.ignore_case === true,
    target: query.target ?? 'content',
    glob: query.glob,
    maxResults: query.max ?? 10_000,
    signal: new AbortController().signal,
  }
  return searchTree(ws, request, { deny: DENY, engine })
}

const QUERIES: Query[] = [
  { pattern: 'TODO' },
  { pattern: 'todo', ignore_case: true },
  { pattern: 'ünïcödé', ignore_case: true },
  { pattern: '\\bload\\b' },
  { pattern: '^export\\s+const' },
  { pattern: 'load\\(\\) \\{\\}$' },
  { pattern: 'a\\.b' },
  { pattern: '\\Qa.b\\E' },
  { pattern: 'x{,3}' },
  { pattern: '\\w+_\\w+' },
  { pattern: '\\d|\\s\\S\\s' },
  { pattern: '[[:upper:]]{4}' },
  { pattern: '[^\\w\\s]+' },
  { pattern: 'a\\+b|\\(' },
  { pattern: '日本' },
  { pattern: '\\x{65E5}' },
  { pattern: 'TODO', glob: '*.ts' },
  { pattern: 'TODO', glob: '*.{md,txt}' },
  { pattern: 'alpha', glob: '[ab]*' },
  { pattern: 'alpha', path: 'src', glob: 'sub/**/*.ts' },
  { pattern: 'beta', path: 'src' },
  { pattern: 'beta', path: 'src/sub' },
  { pattern: 'beta', path: 'pkg/a' },
  { pattern: 'TODO', path: 'docs/deep' },
  { pattern: 'TODO', max: 3 },
  { pattern: 'alpha', max: 1 },
  { pattern: 'zzz-nothing' },
  { pattern: '\\.ts$', target: 'files' },
  { pattern: '^src/', target: 'files', max: 5 },
  { pattern: 'DOCS', target: 'files', ignore_case: true },
  { pattern: '.', target: 'files', path: 'src', glob: '*.ts' },
  { pattern: 'log$', target: 'files' },
  { pattern: 'skip|local', target: 'files', path: 'src/sub' },
  { pattern: '.', target: 'files', path: 'pkg/a' },
  { pattern: 'key', target: 'files' },
  { pattern: 'huge|blob', target: 'files' },
  { pattern: 'TODO', path: 'build' },
  { pattern: '.', target: 'files', path: 'src/gen' },
  { pattern: 'TODO', path: 'node_modules' },
]

describe('search_files: ripgrep and the JavaScript engine agree (issue 29)', () => {
  test('the engine here is the @vscode/ripgrep binary', () => {
    expect(bundled.kind).toBe('ripgrep')
    expect(bundled.kind === 'ripgrep' && bundled.source).toBe('@vscode/ripgrep')
  })

  test.each(QUERIES)('%j: same lines from @vscode/ripgrep and JavaScript', async (query) => {
    const [rg, js] = [await run(query, bundled), await run(query, JS)]
    expect(rg.engine).toBe('ripgrep')
    expect(js.engine).toBe('javascript')
    expect(rg.lines).toEqual(js.lines)
    expect(rg.more).toBe(js.more)
  })

  test.skipIf(PATH_RG === undefined).each(QUERIES)('%j: same lines from rg on PATH and JavaScript', async (query) => { // reason: no rg on PATH here
    const binary = PATH_RG!
    const engine: SearchEngine = { kind: 'ripgrep', binary, source: 'PATH', version: 'any' }
    const [rg, js] = [await run(query, engine), await run(query, JS)]
    expect(rg.lines).toEqual(js.lines)
    expect(rg.more).toBe(js.more)
  })

  test('what both leave out: ignored, denied, binary, oversized, linked out, temp files, node_modules, .git', async () => {
    const lines = (await run({ pattern: 'TODO' }, bundled)).lines
    const found = lines.join('\n')
    expect(lines.filter((line) => line.startsWith('rootonly.txt:'))).toEqual([])
    for (const absent of ['TODO secret', 'TODO=secret', 'outside secret', 'in a dependency', 'in git', 'temp file', 'in a binary', 'oversized', 'build/', 'x.log:', 'in-link', 'linkdir']) expect(found).not.toContain(absent)
    for (const present of ['docs/rootonly.txt:1: TODO not ignored below the root', '.env.example:1: TODO=example', 'crlf.ts:3: TODO: crlf', 'bom.txt:1: \ufeffTODO after a BOM', 'long.txt:3: short TODO']) expect(found).toContain(present)
  })

  test('.gitignore files above the start count, anchored to their own folder', async () => {
    expect((await run({ pattern: 'skip', target: 'files', path: 'src/sub' }, bundled)).lines).toEqual(['src/sub/deep/skip.ts'])
    expect((await run({ pattern: '\\.(md|log)$', target: 'files', path: 'pkg/a' }, bundled)).lines).toEqual(['pkg/a/keep.log'])
    expect((await run({ pattern: 'key', target: 'files' }, bundled)).lines).toEqual(['docs/secrets/key.txt'])
  })

  test('the order is the walk: names sorted in each folder, depth first', async () => {
    const files = (await run({ pattern: '^src/[^/]+$', target: 'files' }, bundled)).lines
    expect(files).toEqual(['src/.gitignore', 'src/.hidden.ts', 'src/A.ts', 'src/a-b.ts', 'src/a.ts', 'src/a_b.ts', 'src/b.md', 'src/keep.log', 'src/notes.txt', 'src/skip.ts', 'src/z.js', 'src/ä.ts'])
  })

  test('lines are cut at 300 characters with "…", multibyte text included', async () => {
    const lines = (await run({ pattern: 'TODO', path: '.', glob: 'long.txt' }, bundled)).lines
    expect(lines).toEqual([`long.txt:1: TODO ${'é'.repeat(295)}…`, `long.txt:2: TODO ${'w'.repeat(295)}…`, 'long.txt:3: short TODO'])
  })

  test('max_results: the first N in walk order, and "more" only when one more exists', async () => {
    const all = (await run({ pattern: 'TODO' }, bundled)).lines
    const three = await run({ pattern: 'TODO', max: 3 }, bundled)
    expect(three.lines).toEqual(all.slice(0, 3))
    expect(three.more).toBe(true)
    const exact = await run({ pattern: 'TODO', max: all.length }, bundled)
    expect(exact.more).toBe(false)
  })
})
