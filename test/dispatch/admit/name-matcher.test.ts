// dispatch.parallel_safe / never_parallel / path_scoped accept globs of tool names.
import { describe, expect, test } from 'vitest'
import { behaviourSets } from '../../../src/dispatch/admit/admit.js'
import { nameMatcher } from '../../../src/dispatch/admit/name-matcher.js'
import { parseConfigText } from '../../../src/config/load-config.js'

describe('nameMatcher', () => {
  test.each([
    { entries: ['write_file'], name: 'write_file', has: true },
    { entries: ['write_file'], name: 'write_files', has: false },
    { entries: ['mcp_files_*'], name: 'mcp_files_read_text_file', has: true },
    { entries: ['mcp_files_*'], name: 'mcp_filesystem_read', has: false },
    { entries: ['mcp_*_read_*'], name: 'mcp_git_read_log', has: true },
    { entries: ['{read,list}_*'], name: 'list_dir', has: true },
    { entries: ['mcp_?x_add'], name: 'mcp_fx_add', has: true },
    { entries: [], name: 'anything', has: false },
  ])('$entries has $name: $has', ({ entries, name, has }) => {
    const set = nameMatcher(entries)
    expect(set.has(name)).toBe(has)
    expect(set.has(name)).toBe(has) // remembered answer, same result
  })

  test('config accepts globs in the dispatch sets and they decide footprints', () => {
    const config = parseConfigText('dispatch:\n  never_parallel: ["mcp_files_*"]\n  parallel_safe: ["lookup_*"]\n', 'c.yaml')
    const sets = behaviourSets(config)
    expect(sets.neverParallel.has('mcp_files_write')).toBe(true)
    expect(sets.parallelSafe.has('lookup_weather')).toBe(true)
    expect(sets.pathScoped.has('lookup_weather')).toBe(false)
  })

  test('a name with characters neither tools nor globs use is refused at load, naming the key', () => {
    expect(() => parseConfigText('dispatch:\n  path_scoped: ["read file"]\n', 'c.yaml')).toThrow(/c\.yaml.*dispatch\.path_scoped/)
  })
})
