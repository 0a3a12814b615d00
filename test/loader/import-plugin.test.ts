import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { loadPlugins } from '../../src/loader/load-plugins.js'
import { registry } from '../../src/registry/registry.js'

// Plugins written outside this repository: no package.json near them, no node_modules, yet
// `import … from 'toolhost'` must resolve to this package and its one registry.
const SEEN = Symbol.for('toolhost.fixture.outside')
const seen = (): Record<string, { registry: unknown; commonjs: boolean }> =>
  ((globalThis as Record<symbol, unknown>)[SEEN] ??= {}) as Record<string, { registry: unknown; commonjs: boolean }>

const plugin = (name: string): string => `import { defineTool, registry } from 'toolhost'
const seen = ((globalThis as any)[Symbol.for('toolhost.fixture.outside')] ??= {})
seen[${JSON.stringify(name)}] = { registry, commonjs: typeof module !== 'undefined' && typeof require === 'function' }
registry.register(defineTool({ name: ${JSON.stringify(name)}, description: 'A plugin outside the repository.', parameters: { type: 'object' }, handler: () => ${JSON.stringify(name)} + ' ran' }))
`

/** The same plugin in JavaScript: ESM syntax, or CommonJS `require`. */
const jsPlugin = (name: string, style: 'import' | 'require'): string => `${style === 'import' ? "import { defineTool, registry } from 'toolhost'" : "const { defineTool, registry } = require('toolhost')"}
const seen = (globalThis[Symbol.for('toolhost.fixture.outside')] ??= {})
seen[${JSON.stringify(name)}] = { registry, commonjs: typeof module !== 'undefined' && typeof require === 'function' }
registry.register(defineTool({ name: ${JSON.stringify(name)}, description: 'A plugin outside the repository.', parameters: { type: 'object' }, handler: () => 'ran' }))
`

let dir: string

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-outside-'))
  writeFileSync(path.join(dir, 'cjs-plugin.ts'), plugin('outside_cjs'))
  writeFileSync(path.join(dir, 'esm-plugin.mts'), plugin('outside_mts'))
  writeFileSync(path.join(dir, 'import-plugin.js'), jsPlugin('outside_js_import', 'import'))
  writeFileSync(path.join(dir, 'require-plugin.js'), jsPlugin('outside_js_require', 'require'))
  writeFileSync(path.join(dir, 'module-plugin.mjs'), jsPlugin('outside_mjs', 'import'))
  writeFileSync(path.join(dir, 'syntax.ts'), "import { registry } from 'toolhost'\nconst x: number = (\nregistry.clear()\n")
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

beforeEach(() => registry.clear())

describe('a plugin outside the repository', () => {
  test.each([
    { file: 'cjs-plugin.ts', name: 'outside_cjs', commonjs: true },
    { file: 'esm-plugin.mts', name: 'outside_mts', commonjs: false },
    { file: 'import-plugin.js', name: 'outside_js_import', commonjs: true },
    { file: 'require-plugin.js', name: 'outside_js_require', commonjs: true },
    { file: 'module-plugin.mjs', name: 'outside_mjs', commonjs: false },
  ])('$file imports toolhost and registers $name into this process registry (CommonJS: $commonjs)', async ({ file, name, commonjs }) => {
    const report = await loadPlugins([dir], registry)
    expect(report.loaded).toContain(path.join(dir, file))
    expect(registry.get(name)?.description).toBe('A plugin outside the repository.')
    expect(seen()[name]?.registry).toBe(registry)
    expect(seen()[name]?.commonjs).toBe(commonjs)
  })

  test('a TypeScript syntax error is reported with the file and the line, and the other files load', async () => {
    const report = await loadPlugins([dir], registry)
    expect(report.failed).toHaveLength(1)
    expect(report.failed[0]!.file).toBe(path.join(dir, 'syntax.ts'))
    expect(report.failed[0]!.message).toMatch(new RegExp(`${path.join(dir, 'syntax.ts').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+`))
    expect(report.loaded).toHaveLength(5)
  })

  test('after the registry is cleared, every file registers again (a fresh import, CommonJS require too)', async () => {
    await loadPlugins([dir], registry)
    registry.clear()
    const again = await loadPlugins([dir], registry)
    expect(again.loaded.map((f) => path.basename(f))).toEqual(['cjs-plugin.ts', 'esm-plugin.mts', 'import-plugin.js', 'module-plugin.mjs', 'require-plugin.js'])
    expect(registry.list().map((t) => t.name)).toEqual(['outside_cjs', 'outside_js_import', 'outside_js_require', 'outside_mjs', 'outside_mts'])
  })
})
