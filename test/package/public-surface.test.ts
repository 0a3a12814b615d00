// A public surface a user can hold in their head (issue 20, item 4): `toolhost` exports at most 32
// values, each one named in README.md or docs/, and `Host` only as a type (hosts come from
// createHost). Each entry of package.json's exports means its source inside the repository, the
// same in tsconfig.json's paths, for plugins (src/loader/import-plugin.ts), in vitest and in
// bin/run-ts.mjs (those two derive theirs from the exports).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import * as toolhost from '../../src/index.js'
import { ENTRIES } from '../../src/loader/import-plugin.js'
import * as processesEntry from 'toolhost/processes'
import * as workspaceEntry from 'toolhost/workspace'
import { ProcessRegistry } from '../../src/processes/process-registry.js'
import { workspaceFor } from '../../src/workspace/workspace.js'

const REPO = path.resolve(import.meta.dirname, '../..')
const read = (file: string): string => readFileSync(path.join(REPO, file), 'utf8')
const DOCS = ['README.md', ...readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].map(read).join('\n')
const manifest = JSON.parse(read('package.json')) as { exports: Record<string, string | { types: string; import: string; default: string }> }
/** Each entry's bare specifier and its source file, relative to the repository (`src/….ts`). */
const SOURCES = Object.entries(manifest.exports).flatMap(([key, target]) =>
  typeof target === 'string' ? [] : [{ name: `toolhost${key.slice(1)}`, source: target.import.replace(/^\.\/dist\/(.*)\.js$/, '$1.ts') }],
)

describe('the main entry', () => {
  const values = Object.keys(toolhost)

  test('exports at most 32 values, and Host only as a type', () => {
    expect(values.length).toBeGreaterThan(0)
    expect(values.length).toBeLessThanOrEqual(32)
    expect(values).not.toContain('Host')
    expect(typeof toolhost.createHost).toBe('function')
  })

  test('every value it exports is one README.md or docs/ use', () => {
    expect(values.filter((name) => !new RegExp(`\\b${name}\\b`).test(DOCS))).toEqual([])
  })
})

describe('the subpath entries for tools', () => {
  test.each([
    { entry: 'toolhost/workspace', values: Object.keys(workspaceEntry) },
    { entry: 'toolhost/processes', values: Object.keys(processesEntry) },
  ])('every value of $entry is one docs/ use', ({ values }) => {
    expect(values.length).toBeGreaterThan(0)
    expect(values.filter((name) => !new RegExp(`\\b${name}\\b`).test(DOCS))).toEqual([])
  })
})

describe('each entry of package.json exports means its source inside the repository', () => {
  test('the list: toolhost and its subpaths, each with types, import and default in dist/', () => {
    expect(SOURCES.map((s) => s.name)).toEqual(['toolhost', 'toolhost/workspace', 'toolhost/processes', 'toolhost/mcp', 'toolhost/console', 'toolhost/otel', 'toolhost/ai-sdk', 'toolhost/openai-agents'])
    for (const [key, target] of Object.entries(manifest.exports)) {
      if (key === './package.json') continue
      expect(target, key).toEqual({ types: expect.stringMatching(/^\.\/dist\/src\/.+\.d\.ts$/), import: expect.stringMatching(/^\.\/dist\/src\/.+\.js$/), default: (target as { import: string }).import })
      expect((target as { types: string }).types.replace(/\.d\.ts$/, '.js')).toBe((target as { import: string }).import)
    }
  })

  test('tsconfig.json paths', () => {
    // JSON with // comments on lines of their own.
    const tsconfig = JSON.parse(read('tsconfig.json').replace(/^\s*\/\/.*$/gm, '')) as { compilerOptions: { paths: Record<string, string[]> } }
    expect(tsconfig.compilerOptions.paths).toEqual(Object.fromEntries(SOURCES.map((s) => [s.name, [`./${s.source}`]])))
  })

  test("a plugin's imports (src/loader/import-plugin.ts)", () => {
    expect(ENTRIES).toEqual(Object.fromEntries(SOURCES.map((s) => [s.name, path.join(REPO, s.source)])))
  })

  test('vitest: toolhost/workspace and toolhost/processes are the very modules of src/', () => {
    expect(workspaceEntry.workspaceFor).toBe(workspaceFor)
    expect(processesEntry.ProcessRegistry).toBe(ProcessRegistry)
  })

  test('bin/run-ts.mjs: a script importing every entry gets the sources', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-run-ts-'))
    try {
      const names = SOURCES.map((s) => s.name)
      writeFileSync(
        path.join(dir, 'probe.mts'),
        `const names: string[] = ${JSON.stringify(names)}\nfor (const name of names) console.log(name, import.meta.resolve(name))\n`,
      )
      const result = spawnSync(process.execPath, [path.join(REPO, 'bin/run-ts.mjs'), path.join(dir, 'probe.mts')], { encoding: 'utf8' })
      expect(result.stderr).toBe('')
      expect(result.stdout.trim().split('\n')).toEqual(SOURCES.map((s) => `${s.name} file://${path.join(REPO, s.source)}`))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
