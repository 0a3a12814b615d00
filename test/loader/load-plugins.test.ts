import path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { discoverPlugins, loadPluginFile, loadPlugins } from '../../src/loader/load-plugins.js'
import { registry } from '../../src/registry/registry.js'
import { importOrder, resetImportOrder } from '../fixtures/counters.js'

const FIXTURES = path.resolve('test/fixtures/plugins')
const at = (...parts: string[]): string => path.join(FIXTURES, ...parts)

beforeEach(() => {
  registry.clear()
  resetImportOrder()
})

describe('discoverPlugins', () => {
  test('finds .ts, .mts, .js and .mjs files, nested, sorted by path, folders in the order given; skips .d.ts, test files and dot-files', async () => {
    const files = await discoverPlugins([at('order'), at('order-extra')])
    expect(files).toEqual([
      at('order', 'a.mjs'),
      at('order', 'b.ts'),
      at('order', 'nested', 'c.ts'),
      at('order', 'nested', 'deep', 'd.js'),
      at('order', 'z.mts'),
      at('order-extra', 'e.ts'),
    ])
  })

  test('the order does not depend on the order of the folders within one call except folder by folder', async () => {
    const files = await discoverPlugins([at('order-extra'), at('order')])
    expect(files[0]).toBe(at('order-extra', 'e.ts'))
    expect(files.slice(1)).toEqual((await discoverPlugins([at('order')])))
  })

  test('a folder named twice, or a missing folder, adds nothing', async () => {
    const once = await discoverPlugins([at('order')])
    expect(await discoverPlugins([at('order'), at('order'), at('does-not-exist')])).toEqual(once)
  })
})

describe('loadPlugins', () => {
  test('self-registration: importing a plugin file registers its tools, recorded with the file', async () => {
    const report = await loadPlugins([at('ok')], registry)
    expect(report.failed).toEqual([])
    expect(report.loaded).toEqual([at('ok', 'greet.ts')])
    expect(report.toolsByFile.get(at('ok', 'greet.ts'))).toEqual(['greet'])
    expect(registry.get('greet')?.description).toBe('Greets someone by name.')
    expect(registry.entry('greet')?.source).toBe(at('ok', 'greet.ts'))
  })

  test('imports files one at a time in discovery order', async () => {
    const report = await loadPlugins([at('order'), at('order-extra')], registry)
    expect(report.failed).toEqual([])
    expect(importOrder()).toEqual(['a', 'b', 'nested/c', 'nested/deep/d', 'z', 'extra/e'])
    expect(report.loaded).toEqual(await discoverPlugins([at('order'), at('order-extra')]))
    expect(registry.list().map((t) => t.name)).toEqual(['order_a', 'order_b', 'order_c', 'order_d', 'order_e', 'order_z'])
  })

  test('a plugin folder that does not exist is no error; the report lists it', async () => {
    const report = await loadPlugins([at('ok'), at('no-such-folder')], registry)
    expect(report.failed).toEqual([])
    expect(report.missingDirs).toEqual([at('no-such-folder')])
  })

  test('a file whose tools were cleared is imported again, fresh', async () => {
    await loadPlugins([at('order')], registry)
    registry.clear()
    const again = await loadPlugins([at('order')], registry)
    expect(again.failed).toEqual([])
    expect(registry.has('order_b')).toBe(true)
    expect(importOrder().filter((n) => n === 'b')).toHaveLength(2)
  })

  test('a file whose tools are still registered is not imported twice', async () => {
    await loadPlugins([at('ok')], registry)
    const second = await loadPluginFile(at('ok', 'greet.ts'), registry)
    expect(second).toEqual({ ok: true, tools: ['greet'] })
  })

  describe('broken plugins are reported with their file and error; every other plugin loads', () => {
    let report: Awaited<ReturnType<typeof loadPlugins>>
    beforeEach(async () => {
      report = await loadPlugins([at('broken')], registry)
    })

    test('the good files load, before and after the broken ones', () => {
      expect(report.loaded).toEqual([at('broken', 'a-good.ts'), at('broken', 'dup-a.ts'), at('broken', 'z-good.ts')])
      expect(registry.list().map((t) => t.name)).toEqual(['broken_first', 'broken_last', 'dup_tool'])
    })

    test.each([
      { file: 'bad-name.ts', message: /has space/ },
      { file: 'bad-schema.ts', message: /tool "bad_schema" .*bad-schema\.ts.* invalid parameters schema: 3 problems: .*maxLenght/ },
      { file: 'dup-b.ts', message: /tool "dup_tool" is registered twice: by .*broken\/dup-a\.ts and by .*broken\/dup-b\.ts/ },
      { file: 'half.ts', message: /half\.ts gave up after registering one tool/ },
      { file: 'syntax-error.mjs', message: /SyntaxError/ },
    ])('$file fails with E_PLUGIN_LOAD: $message', ({ file, message }) => {
      const failure = report.failed.find((f) => f.file === at('broken', file))
      expect(failure, `${file} should be reported`).toBeDefined()
      expect(failure!.code).toBe('E_PLUGIN_LOAD')
      expect(failure!.message).toMatch(message)
    })

    test('exactly the broken files are reported, in discovery order', () => {
      expect(report.failed.map((f) => path.basename(f.file))).toEqual(['bad-name.ts', 'bad-schema.ts', 'dup-b.ts', 'half.ts', 'syntax-error.mjs'])
    })

    test('the syntax error names the file and where', () => {
      const failure = report.failed.find((f) => f.file.endsWith('syntax-error.mjs'))!
      expect(failure.message).toMatch(/^SyntaxError: Unexpected token '=' at .*broken\/syntax-error\.mjs:5$/)
    })

    test('all or nothing: the tools a file registered before it failed are removed', () => {
      expect(registry.has('half_registered')).toBe(false)
      expect(registry.has('dup_b_own')).toBe(false)
      expect(registry.get('dup_tool')?.description).toBe('The first dup_tool.')
    })
  })
})
