import { readdirSync, readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'

// The compile-once path: each test gets fresh module instances (a new process, as far as the
// loader's memory goes) over one cache folder, named by TOOLHOST_TS_CACHE.
type Source = typeof import('../../src/loader/ts-source.js')

let work: string
let cacheDir: string
let project: string
const file = (name: string): string => path.join(project, name)

async function freshSource(): Promise<Source> {
  vi.resetModules()
  return import('../../src/loader/ts-source.js')
}

/** The processes whose parent is this one and whose name is esbuild (Linux /proc). */
function esbuildChildren(): number[] {
  const found: number[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat)!
      if (comm === 'esbuild' && Number(rest!.split(' ')[1]) === process.pid) found.push(Number(pid))
    } catch {
      // Gone meanwhile.
    }
  }
  return found
}

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'toolhost-ts-source-'))
  cacheDir = path.join(work, 'cache')
  vi.stubEnv('TOOLHOST_TS_CACHE', cacheDir)
})
afterAll(() => {
  vi.unstubAllEnvs()
  rmSync(work, { recursive: true, force: true })
})

beforeEach(() => {
  rmSync(cacheDir, { recursive: true, force: true })
  project = mkdtempSync(path.join(work, 'project-'))
  writeFileSync(file('package.json'), JSON.stringify({ name: 'p', type: 'module' }))
  writeFileSync(file('a.ts'), "import { b } from './b.js'\nconst a: number = 1\nexport const sum = a + b\n")
  writeFileSync(file('b.ts'), 'export const b: number = 2\n')
  writeFileSync(file('c.cts'), 'const c: number = 3\nmodule.exports = { c, url: import.meta.url }\n')
})

describe('compiled once', () => {
  test('the first start compiles every file (nothing left running), the next compiles none', async () => {
    const first = await freshSource()
    expect(first.prepareTypescript([file('a.ts'), file('b.ts'), file('c.cts')])).toBe(3)
    expect(esbuildChildren()).toEqual([])
    const second = await freshSource()
    expect(second.prepareTypescript([file('a.ts'), file('b.ts'), file('c.cts')])).toBe(0)
    const a = second.compiledTypescript(file('a.ts'))
    expect(a.format).toBe('module')
    expect(a.imports).toEqual([{ path: './b.js', kind: 'import-statement' }])
    expect(a.code).toContain('const a = 1')
    expect(second.compiledTypescript(file('c.cts'), 'commonjs').code).toContain('__toolhostImportMetaUrl')
  })

  test('the code carries an inline source map naming the .ts file beside it', async () => {
    const source = await freshSource()
    const code = source.compiledTypescript(file('a.ts')).code
    const map = JSON.parse(Buffer.from(/sourceMappingURL=data:application\/json;base64,(.+)$/m.exec(code)![1]!, 'base64').toString()) as { sources: string[]; sourcesContent: string[] }
    expect(map.sources).toEqual(['a.ts'])
    expect(map.sourcesContent[0]).toContain('const a: number = 1')
  })

  test('an edit compiles that file again, and only it', async () => {
    expect((await freshSource()).prepareTypescript([file('a.ts'), file('b.ts')])).toBe(2)
    writeFileSync(file('b.ts'), 'export const b: number = 20\n')
    const source = await freshSource()
    expect(source.prepareTypescript([file('a.ts'), file('b.ts')])).toBe(1)
    expect(source.compiledTypescript(file('b.ts')).code).toContain('20')
  })

  test('an edit of the tsconfig.json that applies compiles again', async () => {
    expect((await freshSource()).prepareTypescript([file('a.ts')])).toBe(1)
    writeFileSync(file('tsconfig.json'), '{ "compilerOptions": { "useDefineForClassFields": false } }')
    expect((await freshSource()).prepareTypescript([file('a.ts')])).toBe(1)
    expect((await freshSource()).prepareTypescript([file('a.ts')])).toBe(0)
  })

  test('the same file loaded as the other format is another entry', async () => {
    const source = await freshSource()
    expect(source.compiledTypescript(file('b.ts'), 'module').code).toContain('export {')
    expect(source.compiledTypescript(file('b.ts'), 'commonjs').code).toContain('module.exports')
  })

  test('a tampered entry is not run: it is compiled again from the source and rewritten', async () => {
    expect((await freshSource()).prepareTypescript([file('b.ts')])).toBe(1)
    const [entry] = readdirSync(cacheDir).filter((name) => name.endsWith('.js-entry'))
    const text = readFileSync(path.join(cacheDir, entry!), 'utf8')
    writeFileSync(path.join(cacheDir, entry!), text.replace('const b = 2', 'const b = (globalThis.pwned = 2)'))
    const source = await freshSource()
    expect(source.prepareTypescript([file('b.ts')])).toBe(1)
    expect(source.compiledTypescript(file('b.ts')).code).not.toContain('pwned')
    expect(readFileSync(path.join(cacheDir, entry!), 'utf8')).toBe(text)
    expect((await freshSource()).prepareTypescript([file('b.ts')])).toBe(0)
  })

  test('with the cache off every start compiles, and nothing is written', async () => {
    vi.stubEnv('TOOLHOST_TS_CACHE', 'off')
    try {
      expect((await freshSource()).prepareTypescript([file('b.ts')])).toBe(1)
      expect((await freshSource()).prepareTypescript([file('b.ts')])).toBe(1)
    } finally {
      vi.stubEnv('TOOLHOST_TS_CACHE', cacheDir)
    }
    expect(readdirSync(work).filter((name) => name === 'cache')).toEqual([])
  })
})

describe('compile errors', () => {
  test("a file that fails throws esbuild's words with FILE:LINE:COLUMN; the files beside it compile and are cached", async () => {
    mkdirSync(file('more'))
    writeFileSync(file('more/broken.ts'), 'export const x: number = (\n')
    const source = await freshSource()
    expect(source.prepareTypescript([file('a.ts'), file('more/broken.ts'), file('b.ts')])).toBe(3)
    expect(() => source.compiledTypescript(file('more/broken.ts'))).toThrow(new RegExp(`^Transform failed with 1 error:\\n${file('more/broken.ts').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2:0: ERROR: Unexpected end of file`))
    expect((await freshSource()).prepareTypescript([file('a.ts'), file('b.ts')])).toBe(0)
    expect(esbuildChildren()).toEqual([])
  })

  test('a top-level await in a file loaded as CommonJS says so, as tsx did', async () => {
    writeFileSync(file('waits.cts'), 'const x = 1\nawait Promise.resolve(x)\n')
    const source = await freshSource()
    expect(() => source.compiledTypescript(file('waits.cts'), 'commonjs')).toThrow(`${file('waits.cts')}:2:0: ERROR: Top-level await is currently not supported with the "cjs" output format`)
  })
})
