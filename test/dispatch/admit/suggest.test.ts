import { expect, test } from 'vitest'
import fc from 'fast-check'
import { propertyRuns } from '../../property-runs.js'
import { shownName, suggestNames } from '../../../src/dispatch/admit/suggest.js'
import { createHost, defineTool, registry } from '../../../src/index.js'
import { silentLogger } from '../../../src/contract/logger.js'

const NAMES = ['echo', 'current_time', 'wait', 'read_file', 'write_file', 'search_files', 'terminal', 'greet', 'ls']

test.each([
  { wanted: 'ecko', expected: ['echo'] },
  { wanted: 'ECHO', expected: ['echo'] },
  { wanted: 'read_fiel', expected: ['read_file'] },
  { wanted: 'wirte_file', expected: ['write_file'] },
  { wanted: 'readfile', expected: ['read_file'] },
  { wanted: 'file', expected: ['read_file', 'search_files', 'write_file'] },
  { wanted: 'time', expected: ['current_time'] },
  { wanted: 'gret', expected: ['greet'] },
  { wanted: 'grep', expected: [] },
  { wanted: 'cd', expected: [] },
  { wanted: 'l', expected: ['ls'] },
  { wanted: '', expected: [] },
  { wanted: 'something_else_entirely', expected: [] },
])('suggestNames($wanted) is $expected', ({ wanted, expected }) => {
  expect(suggestNames(wanted, NAMES)).toEqual(expected)
})

test('at most three, closest first, ties by name', () => {
  expect(suggestNames('tool', ['tool1', 'tool2', 'tool3', 'tool4', 'toal'])).toEqual(['toal', 'tool1', 'tool2'])
})

test('a name far longer than any tool name gets no suggestions (no edit distance over it)', () => {
  expect(suggestNames(`echo${'o'.repeat(200)}`, NAMES)).toEqual([])
  expect(suggestNames('x'.repeat(5_000_000), NAMES)).toEqual([])
})

test('shownName keeps a short name whole and a long one to its start and length', () => {
  expect(shownName('echo')).toBe('echo')
  expect(shownName('y'.repeat(5000))).toBe(`${'y'.repeat(64)}… (5000 characters)`)
})

test('a 5-million-character unknown tool name is answered at once and never echoed whole (issue 12, item 17)', async () => {
  registry.register(defineTool({ name: 'echo_sg', description: 'Echo.', parameters: { type: 'object' }, parallelSafe: true, handler: () => 'ok' }))
  const host = await createHost({ loadPlugins: false, log: silentLogger, config: { env_file: '', permissions: { mode: 'bypass' } } })
  const huge = 'z'.repeat(5_000_000)
  const [result, other] = await host.run([{ id: 'big', name: huge, arguments: {} }, { id: 'ok', name: 'echo_sg', arguments: {} }])
  await host.close()
  registry.clear()
  expect(result!.error?.code).toBe('E_TOOL_UNKNOWN')
  expect(result!.content).toBe(`there is no tool named "${'z'.repeat(64)}… (5000000 characters)". Call one of the tools you were given.`)
  expect(result!.name.length).toBeLessThan(100)
  expect(other!.ok).toBe(true)
})

// Issue 12 (new variant): with 10,000 registered tools every unknown name cost ~150 ms of full edit
// distances; the distance now stops once it passes the bound. It must still suggest exactly what a
// full distance would.
test('the bounded edit distance suggests exactly what the full distance does', () => {
  const full = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
      }
    }
    return d[a.length]![b.length]!
  }
  const reference = (wanted: string, names: readonly string[]): string[] => {
    const target = wanted.toLowerCase()
    const bound = Math.max(1, Math.floor(target.length / 3))
    return names
      .map((name) => {
        const lower = name.toLowerCase()
        const contains = Math.min(lower.length, target.length) >= 3 && (lower.includes(target) || target.includes(lower))
        const distance = full(target, lower)
        return { name, score: contains ? Math.min(distance, 1) : distance, distance: Math.min(distance, bound + 1) }
      })
      .filter((s) => s.score <= bound)
      .sort((a, b) => a.score - b.score || a.distance - b.distance || a.name.localeCompare(b.name))
      .slice(0, 3)
      .map((s) => s.name)
  }
  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '_'), minLength: 1, maxLength: 14 })
  fc.assert(fc.property(word, fc.uniqueArray(word, { maxLength: 12 }), (wanted, names) => {
    expect(suggestNames(wanted, names)).toEqual(reference(wanted, names))
  }), propertyRuns(2000))
})
