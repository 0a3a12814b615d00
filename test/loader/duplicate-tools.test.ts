// Duplicate tool names (issue 24.6): the first file in the fixed load order keeps the name, whatever
// order the file system lists a folder in; the report says which file kept it, which lost and why.
import path from 'node:path'
import { beforeEach, describe, expect, test, vi } from 'vitest'
import { describeDuplicate, duplicateToolsOf } from '../../src/loader/duplicate-tools.js'
import { loadPlugins } from '../../src/loader/load-plugins.js'
import { BUILTIN_PLUGINS_DIR } from '../../src/loader/builtin-plugins.js'
import { registry } from '../../src/registry/registry.js'

// The file system's listing order, reversed: readdir order differs from machine to machine.
vi.mock('fast-glob', async (importOriginal) => {
  const real = (await importOriginal()) as { default: (...args: unknown[]) => Promise<string[]> }
  return { default: async (...args: unknown[]) => (await real.default(...args)).reverse() }
})

const BROKEN = path.resolve('test/fixtures/plugins/broken')

beforeEach(() => registry.clear())

describe('duplicate tool names', () => {
  test('the file that sorts first keeps the name even when the folder lists it last', async () => {
    const report = await loadPlugins([BROKEN], registry)
    expect(registry.entry('dup_tool')?.source).toBe(path.join(BROKEN, 'dup-a.ts'))
    expect(duplicateToolsOf(report)).toEqual([
      { name: 'dup_tool', kept: path.join(BROKEN, 'dup-a.ts'), lost: path.join(BROKEN, 'dup-b.ts'), why: 'dup-a.ts sorts before dup-b.ts, and the files of a folder load sorted by path' },
    ])
  })

  test('how a person reads it: kept, lost, why, what to do', () => {
    const builtin = path.join(BUILTIN_PLUGINS_DIR, 'files.ts')
    expect(describeDuplicate({ name: 'read_file', kept: builtin, lost: '/w/plugins/read.ts', why: 'built-in tools load before plugin folders' })).toBe(
      `read_file: kept from ${builtin}; /w/plugins/read.ts lost it and loaded none of its tools (built-in tools load before plugin folders); rename one of them`,
    )
    expect(describeDuplicate({ name: 'x', kept: '/w/p/x.ts', lost: '/w/p/x.ts', why: 'the file registers the name twice itself' })).toBe('x: /w/p/x.ts registers it twice, so none of its tools are registered; rename one of them')
  })
})
