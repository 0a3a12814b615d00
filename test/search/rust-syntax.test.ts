// The schema's RE2 syntax spelt for ripgrep's Rust engine with the same meaning (issue 29).
import { describe, expect, test } from 'vitest'
import { toRustRegex } from '../../src/search/rust-syntax.js'

describe('toRustRegex', () => {
  test.each([
    ['TODO|FIXME', 'TODO|FIXME'],
    ['\\w+', '[0-9A-Za-z_]+'],
    ['\\W\\d\\D\\s\\S', '[^0-9A-Za-z_][0-9][^0-9][\\t\\n\\f\\r ][^\\t\\n\\f\\r ]'],
    ['[\\w-]', '[0-9A-Za-z_-]'],
    ['[^\\W]', '[^[^0-9A-Za-z_]]'],
    ['\\bload\\B', '(?-u:\\b)load(?-u:\\B)'],
    ['\\Qa.b*\\E+', 'a\\.b\\*+'],
    ['\\Qa.b', 'a\\.b'],
    ['\\012\\0', '\\x{a}\\x{0}'],
    ['x{,3}', 'x\\{,3\\}'],
    ['a{2}b{1,}c{1,3}', 'a{2}b{1,}c{1,3}'],
    ['{', '\\{'],
    ['a}', 'a\\}'],
    ['\\<a\\>', '<a>'],
    ['[a&&b~~c]', '[a\\&\\&b\\~\\~c]'],
    ['[[]', '[\\[]'],
    ['[]a]', '[\\]a]'],
    ['[[:alpha:]_]', '[[:alpha:]_]'],
    ['\\pL\\p{Greek}\\x{263a}\\x41', '\\pL\\p{Greek}\\x{263a}\\x41'],
    ['(?i)(?P<n>a)(?:b)', '(?i)(?P<n>a)(?:b)'],
    ['\\_\\#\\.', '_\\#\\.'],
    ['\\A^x$\\z', '\\A^x$\\z'],
  ])('%s → %s', (re2, rust) => {
    expect(toRustRegex(re2)).toBe(rust)
  })
})
