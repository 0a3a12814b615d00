// The first matches of an unsorted ripgrep run, kept in today's order (path by its components, then
// line) whatever order they come in; bounded; `dense` once a sorted run with an early stop is cheaper.
import { describe, expect, test } from 'vitest'
import { FirstMatches } from '../../src/search/first-matches.js'

describe('FirstMatches', () => {
  test('any arrival order gives the sorted walk\'s order: a folder\'s entries by name (a/b before a-c), then lines', () => {
    const arrivals: [string, number][] = [['a-c.ts', 1], ['a/b.ts', 7], ['a/b.ts', 2], ['a/b/c.ts', 1], ['B.ts', 4], ['a.ts', 3]]
    const expected = ['B.ts:4: x', 'a/b/c.ts:1: x', 'a/b.ts:2: x', 'a/b.ts:7: x', 'a-c.ts:1: x', 'a.ts:3: x']
    for (let shift = 0; shift < arrivals.length; shift++) {
      const first = new FirstMatches(10)
      for (const [file, line] of [...arrivals.slice(shift), ...arrivals.slice(0, shift)]) first.add(file, line, 'x')
      expect(first.lines()).toEqual(expected)
      expect(first.more).toBe(false)
    }
  })

  test('keeps the first max of many, says more exist, and holds at most twice max + 1 meanwhile', () => {
    const first = new FirstMatches(3)
    for (let i = 99; i >= 0; i--) expect(first.add(`f${String(i).padStart(2, '0')}.txt`, 1, 'x'.repeat(400))).toBe(true)
    const lines = first.lines()
    expect(lines.map((l) => l.slice(0, 10))).toEqual(['f00.txt:1:', 'f01.txt:1:', 'f02.txt:1:'])
    expect(lines[0]!.endsWith('…')).toBe(true) // cut at 300 characters, as Findings cuts
    expect(first.more).toBe(true)
    expect(first.dense).toBe(false)
  })

  test('says dense once more matches came than a sorted run would need', () => {
    const first = new FirstMatches(1, 5)
    const answers = Array.from({ length: 7 }, (_, i) => first.add(`f${i}`, 1, 'x'))
    expect(answers).toEqual([true, true, true, true, true, false, false])
    expect(first.dense).toBe(true)
  })
})
