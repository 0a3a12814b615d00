import { expect, test } from 'vitest'
import { suggestNames } from '../../src/dispatch/suggest.js'

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
