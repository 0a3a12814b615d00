// search_files: content and name search, limits with a note, ignores (.gitignore, node_modules,
// .git, deny list, binary), glob and path narrowing, and bad regexes.
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { registry, type Host } from '../../src/index.js'
import { call, hostOn, makeSandbox, type Sandbox } from '../workspace/sandbox.js'

let sb: Sandbox
let host: Host

function put(relative: string, content: string | Buffer): void {
  const full = path.join(sb.root, relative)
  mkdirSync(path.dirname(full), { recursive: true })
  writeFileSync(full, content)
}

beforeAll(async () => {
  sb = makeSandbox('toolhost-search-')
  put('src/app.ts', 'import x from "y"\n// TODO: wire it\nexport const app = 1\n')
  put('src/util/strings.ts', 'export function pad() {}\n// todo lower case\n')
  put('docs/guide.md', '# Guide\nTODO write the guide\n')
  put('node_modules/dep/index.js', '// TODO in a dependency\n')
  put('.git/HEAD', 'TODO in git internals\n')
  put('.gitignore', 'build/\n*.log\n')
  put('build/out.js', '// TODO built\n')
  put('debug.log', 'TODO in a log\n')
  put('src/.gitignore', 'generated.ts\n')
  put('src/generated.ts', '// TODO generated\n')
  put('.env', 'TODO=secret\n')
  put('bin/tool.bin', Buffer.concat([Buffer.from('TODO'), Buffer.from([0, 1, 2])]))
  put('many.txt', Array.from({ length: 50 }, (_, i) => `hit ${i}`).join('\n') + '\n')
  registry.clear()
  host = await hostOn(sb.root, {}, { search_files: { max_results: 20 } })
})

afterAll(async () => {
  await host.close()
  registry.clear()
  sb.cleanup()
})

const lines = (text: string): string[] => text.split('\n')

describe('search_files', () => {
  test('finds content as file:line: text, skipping node_modules, .git, .gitignore matches, denied and binary files', async () => {
    const result = await call(host, 'search_files', { pattern: 'TODO' })
    expect(lines(result.content)).toEqual(['docs/guide.md:2: TODO write the guide', 'src/app.ts:2: // TODO: wire it'])
  })

  test('ignore_case', async () => {
    const result = await call(host, 'search_files', { pattern: 'todo', ignore_case: true, path: 'src' })
    expect(lines(result.content)).toEqual(['src/app.ts:2: // TODO: wire it', 'src/util/strings.ts:2: // todo lower case'])
  })

  test('target files matches paths', async () => {
    const result = await call(host, 'search_files', { pattern: '\\.ts$', target: 'files' })
    expect(lines(result.content)).toEqual(['src/app.ts', 'src/util/strings.ts'])
  })

  test('glob by name anywhere, and by path relative to `path`', async () => {
    expect(lines((await call(host, 'search_files', { pattern: '.', glob: '*.md' })).content)).toEqual(['docs/guide.md:1: # Guide', 'docs/guide.md:2: TODO write the guide'])
    expect(lines((await call(host, 'search_files', { pattern: 'pad', path: 'src', glob: 'util/**' })).content)).toEqual(['src/util/strings.ts:1: export function pad() {}'])
  })

  test('a single file as path', async () => {
    expect((await call(host, 'search_files', { pattern: 'app', path: 'src/app.ts' })).content).toBe('src/app.ts:3: export const app = 1')
  })

  test('results are bounded by max_results with a note saying more exist', async () => {
    const result = await call(host, 'search_files', { pattern: '^hit', max_results: 5 })
    const out = lines(result.content)
    expect(out.slice(0, 5)).toEqual(['many.txt:1: hit 0', 'many.txt:2: hit 1', 'many.txt:3: hit 2', 'many.txt:4: hit 3', 'many.txt:5: hit 4'])
    expect(out[5]).toMatch(/^\[showing the first 5 matches; more exist/)
    expect(out).toHaveLength(6)
  })

  test('max_results above search_files.max_results is capped by config', async () => {
    const out = lines((await call(host, 'search_files', { pattern: '^hit', max_results: 1000 })).content)
    expect(out).toHaveLength(21)
    expect(out[20]).toMatch(/first 20 matches.*at most 20/)
  })

  test('no match says so and how many files were searched', async () => {
    expect((await call(host, 'search_files', { pattern: 'zzz-nothing' })).content).toMatch(/^no lines match \/zzz-nothing\/ in the workspace \(\d+ files searched\)$/)
  })

  test.each([
    ['(', 'missing closing ): `(`'],
    ['[a-', 'missing closing ]: `[a-`'],
    ['*x', 'missing argument to repetition operator: `*`'],
    ['(?<n>a)\\k<m>', 'invalid escape sequence: `\\k`'],
    ['(?<=a)b', 'invalid named capture: `(?<=a)b`'],
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
  ])('a bad regex %s is E_ARGS_INVALID quoting the reason and the syntax accepted', async (pattern, reason) => {
    const result = await call(host, 'search_files', { pattern })
    expect(result.error?.code).toBe('E_ARGS_INVALID')
    expect(result.content).toContain(`pattern is not a regular expression this tool accepts (${reason}). It uses RE2 syntax`)
  })

  test('a pattern re2js takes but ripgrep refuses is E_ARGS_INVALID naming ripgrep\'s fault (issue 29)', async () => {
    const result = await call(host, 'search_files', { pattern: 'a\\nb' })
    expect(result.error?.code).toBe('E_ARGS_INVALID')
    expect(result.content).toContain('pattern is not a regular expression ripgrep accepts: the literal "\\n" is not allowed in a regex')
  })

  test('the description says which syntax a pattern uses', async () => {
    const [definition] = await host.definitions({ names: ['search_files'] })
    expect(definition!.function.description).toContain('RE2 syntax (as in Go and ripgrep): no lookahead, lookbehind or backreferences')
  })

  test('a missing path is E_NOT_FOUND', async () => {
    expect((await call(host, 'search_files', { pattern: 'x', path: 'nowhere' })).error?.code).toBe('E_NOT_FOUND')
  })

  test('declares: read-only, parallel-safe, path-scoped read on path (default the root)', () => {
    const tool = registry.get('search_files')!
    expect(tool.readOnly({ pattern: 'x' })).toBe(true)
    expect(tool.parallelSafe).toBe(true)
    expect(tool.pathScoped).toBe(true)
    expect(tool.scope!({ pattern: 'x' })).toEqual([{ path: '.', access: 'read' }])
    expect(tool.scope!({ pattern: 'x', path: 'src' })).toEqual([{ path: 'src', access: 'read' }])
  })

  test('a search of src waits for a write inside src, not for one elsewhere', async () => {
    const plan = await host.explain([
      { id: 'w_src', name: 'write_file', arguments: { path: 'src/new.ts', content: 'x' } },
      { id: 'w_docs', name: 'write_file', arguments: { path: 'docs/new.md', content: 'x' } },
      { id: 's', name: 'search_files', arguments: { pattern: 'x', path: 'src' } },
    ])
    expect(plan.calls[2]!.waitsFor.map((w) => w.id)).toEqual(['w_src'])
  })
})
