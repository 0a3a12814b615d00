// The JavaScript engine's prefilter: the text every match contains, or none when it is not certain.
import { describe, expect, test } from 'vitest'
import { requiredLiteral } from '../../src/search/literal-prefilter.js'

describe('requiredLiteral', () => {
  test.each([
    ['TODO', 'TODO'],
    ['function\\s+load\\(', 'function'],
    ['load\\(\\)', 'load()'],
    ['colou?r', 'colo'],
    ['abc*d', 'ab'],
    ['abc+d', 'abc'],
    ['a{2}bcd', 'bcd'],
    ['x(?:y|z)longer', 'longer'],
    ['[abc]def', 'def'],
    ['\\x41BC', 'BC'],
    ['\\p{Greek}xy', 'xy'],
    ['^import .* from$', 'import '],
    ['日本語', '日本語'],
  ])('%s → %s', (pattern, literal) => {
    expect(requiredLiteral(pattern)).toBe(literal)
  })

  test.each(['TODO|FIXME', '(?i)todo', 'a(?i)bc', '\\Qabc\\E', '.*', '[a-z]+', '(abc)', 'a?'])('%s → none', (pattern) => {
    expect(requiredLiteral(pattern)).toBeUndefined()
  })
})
