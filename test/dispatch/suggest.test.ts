import { expect, test } from 'vitest'
import { shownName, suggestNames } from '../../src/dispatch/suggest.js'
import { createHost, defineTool, registry } from '../../src/index.js'
import { silentLogger } from '../../src/logger.js'

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
