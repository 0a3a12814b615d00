/**
 * The shell analysis runs on commands the model wrote: brace expansion is found by a linear scan,
 * so a long word cannot make it backtrack (a regex such as /\{.*(,|\.\.).*\}/ took 2.4 s on a
 * 4,000-character word and minutes on 16 KB).
 */
import { describe, expect, test } from 'vitest'
import { analyseCommand } from '../../src/shell/analyse-command.js'

describe('brace expansion as a command word', () => {
  test.each([
    ['{rm,-rf,build}', true],
    ['{a..z}', true],
    ['echo{}', false],
    ['}{,', false],
  ])('%s: unresolved=%s', (command, unresolved) => {
    expect(analyseCommand(command).unresolved !== undefined).toBe(unresolved)
  })

  test('a long word of braces and commas in the wrong order is analysed at once (a backtracking regex took minutes)', () => {
    const word = `}${'{'.repeat(6000)}${','.repeat(6000)}`
    const analysis = analyseCommand(`echo ${word}`)
    expect(analysis.unresolved ?? '').not.toMatch(/brace/)
    expect(analysis.commands).toHaveLength(1)
  })
})
