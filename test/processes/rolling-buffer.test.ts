import { describe, expect, test } from 'vitest'
import { countNewlines, RollingBuffer } from '../../src/processes/rolling-buffer.js'

function fill(capacity: number, chunks: string[]): RollingBuffer {
  const buffer = new RollingBuffer(capacity)
  for (const chunk of chunks) buffer.append(chunk)
  return buffer
}

describe('RollingBuffer', () => {
  test.each([
    { name: 'nothing appended', capacity: 10, chunks: [], total: 0, dropped: 0, lines: 0, first: 1, tail: '' },
    { name: 'fits', capacity: 10, chunks: ['a\nb\n'], total: 4, dropped: 0, lines: 2, first: 1, tail: 'a\nb\n' },
    { name: 'last line without newline counts', capacity: 10, chunks: ['a\nb'], total: 3, dropped: 0, lines: 2, first: 1, tail: 'a\nb' },
    { name: 'rolls whole chunks out', capacity: 6, chunks: ['one\n', 'two\n', 'six\n'], total: 12, dropped: 6, lines: 3, first: 3, tail: 'o\nsix\n' },
    { name: 'cut exactly at a line start', capacity: 8, chunks: ['one\n', 'two\n', 'six\n'], total: 12, dropped: 4, lines: 3, first: 2, tail: 'two\nsix\n' },
    { name: 'one chunk longer than the capacity', capacity: 5, chunks: ['x\n', 'abc\ndef\nghi\n'], total: 14, dropped: 9, lines: 4, first: 4, tail: '\nghi\n' },
    { name: 'one endless line', capacity: 4, chunks: ['aaaaaa', 'bbbbbb'], total: 12, dropped: 8, lines: 1, first: 2, tail: 'bbbb' },
    { name: 'chunk exactly the capacity after a newline', capacity: 4, chunks: ['ab\n', 'cde\n'], total: 7, dropped: 3, lines: 2, first: 2, tail: 'cde\n' },
  ])('$name', ({ capacity, chunks, total, dropped, lines, first, tail }) => {
    const buffer = fill(capacity, chunks)
    expect(buffer.totalChars).toBe(total)
    expect(buffer.droppedChars).toBe(dropped)
    expect(buffer.lineCount).toBe(lines)
    expect(buffer.firstLineInMemory).toBe(first)
    expect(buffer.tail(100)).toBe(tail)
    expect(buffer.totalChars - buffer.droppedChars).toBeLessThanOrEqual(capacity)
  })

  test('line numbers stay stable as the buffer rolls', () => {
    const buffer = new RollingBuffer(50)
    const all: string[] = []
    for (let i = 1; i <= 100; i++) {
      all.push(`line ${i}`)
      buffer.append(`line ${i}\n`)
      const first = buffer.firstLineInMemory
      for (const { n, text } of buffer.lines(1, i)) expect(text).toBe(all[n - 1])
      expect(buffer.lines(1, i)[0]?.n).toBe(first)
    }
    expect(buffer.lines(98, 100)).toEqual([
      { n: 98, text: 'line 98' },
      { n: 99, text: 'line 99' },
      { n: 100, text: 'line 100' },
    ])
    expect(buffer.lines(1, 3)).toEqual([])
  })

  test('text split across chunks at any point gives the same lines', () => {
    const text = 'alpha\nbeta\ngamma\ndelta\nepsilon\n'
    for (let cut = 0; cut <= text.length; cut++) {
      const buffer = fill(1000, [text.slice(0, cut), text.slice(cut)])
      expect(buffer.lines(1, 10).map((l) => l.text)).toEqual(['alpha', 'beta', 'gamma', 'delta', 'epsilon'])
    }
  })

  test('tail returns the last characters across chunk boundaries', () => {
    const buffer = fill(100, ['abc', 'def', 'ghi'])
    expect(buffer.tail(4)).toBe('fghi')
    expect(buffer.tail(0)).toBe('')
  })

  test('refuses a capacity that is not a positive integer', () => {
    expect(() => new RollingBuffer(0)).toThrow(/capacity must be an integer ≥ 1, got 0 \(number\)/)
  })

  test.each([
    { text: '', start: 0, end: 0, count: 0 },
    { text: 'a\nb\nc', start: 0, end: 5, count: 2 },
    { text: 'a\nb\nc', start: 2, end: 5, count: 1 },
    { text: '\n\n\n', start: 0, end: 2, count: 2 },
  ])('countNewlines($text, $start, $end) = $count', ({ text, start, end, count }) => {
    expect(countNewlines(text, start, end)).toBe(count)
  })
})
