// Arguments in every shape are held to the size and depth limits by one bounded walk (issue 12,
// items 2 and 16): a value nested 100,000 deep, a cycle, a 20 MB object or a BigInt is refused,
// saying where, without recursion and without serialising it.
import { describe, expect, test } from 'vitest'
import { checkArgumentLimits } from '../../../src/dispatch/admit/argument-limits.js'
import { parseArguments } from '../../../src/dispatch/admit/prepare.js'

const limits = { maxChars: 1000, maxDepth: 4 }

function nested(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let value: unknown = leaf
  for (let i = 1; i < depth; i++) value = { a: value }
  return { a: value }
}

describe('checkArgumentLimits', () => {
  test.each([
    { why: 'flat', value: { a: 1, b: 'x', c: null, d: true }, problem: undefined },
    { why: 'at the depth limit', value: nested(4), problem: undefined },
    { why: 'one level over the depth limit', value: nested(5), problem: 'the arguments are nested more than 4 levels deep (at a.a.a.a), over the limit; send flatter data' },
    { why: 'arrays count as levels', value: { a: [[[[1]]]] }, problem: 'the arguments are nested more than 4 levels deep (at a[0][0][0]), over the limit; send flatter data' },
    { why: 'a BigInt', value: { n: { big: 10n } }, problem: '`n.big` is a bigint, which JSON cannot carry; send plain JSON values' },
    { why: 'NaN', value: { n: Number.NaN }, problem: '`n` is NaN, which JSON cannot carry; send plain JSON values' },
    { why: 'Infinity', value: { list: [1, Number.POSITIVE_INFINITY] }, problem: '`list[1]` is Infinity, which JSON cannot carry; send plain JSON values' },
    { why: 'a function', value: { f: () => 1 }, problem: '`f` is a function, which JSON cannot carry; send plain JSON values' },
    { why: 'a symbol', value: { s: Symbol('x') }, problem: '`s` is a symbol, which JSON cannot carry; send plain JSON values' },
    { why: 'a BigInt at the top level', value: { big: 10n }, problem: '`big` is a bigint, which JSON cannot carry; send plain JSON values' },
    { why: 'NaN before a nested value (the flat check gives way to the walk)', value: { n: Number.NaN, o: { a: 1 } }, problem: '`n` is NaN, which JSON cannot carry; send plain JSON values' },
    { why: 'a nested value after leaves', value: { a: 1, o: nested(4) }, problem: 'the arguments are nested more than 4 levels deep (at o.a.a.a), over the limit; send flatter data' },
    { why: 'over the size limit by its keys alone', value: { ['k'.repeat(1000)]: 1 }, problem: 'the arguments are over 1000 characters as JSON, the limit; send less data per call (split it, or write it to a file first)' },
    { why: 'over the size limit', value: { text: 'x'.repeat(1000) }, problem: 'the arguments are over 1000 characters as JSON, the limit; send less data per call (split it, or write it to a file first)' },
  ])('$why', ({ value, problem }) => {
    expect(checkArgumentLimits(value, limits, true)).toBe(problem)
  })

  test('a value nested 100,000 deep is refused without recursion (no stack overflow)', () => {
    expect(checkArgumentLimits(nested(100_000), { maxChars: 10_000_000, maxDepth: 64 }, true)).toMatch(/^the arguments are nested more than 64 levels deep \(at a\.a\.a/)
  })

  test('a cycle is refused at the depth limit, not walked forever', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    expect(checkArgumentLimits(cyclic, { maxChars: 1_000_000, maxDepth: 64 }, true)).toMatch(/nested more than 64 levels deep \(at self\.self/)
  })

  test('a wide shared structure stops at the size limit (the walk is bounded by the limits)', () => {
    let layer: unknown[] = ['leaf']
    for (let i = 0; i < 40; i++) layer = [layer, layer] // 2^40 paths, 41 objects
    expect(checkArgumentLimits({ layer }, { maxChars: 100_000, maxDepth: 64 }, true)).toMatch(/over 100000 characters as JSON/)
  })

  test('the size of raw text is not counted again when it was measured already', () => {
    expect(checkArgumentLimits({ text: 'x'.repeat(5000) }, limits, false)).toBeUndefined()
  })

  test('a "__proto__" key is an ordinary key: counted and walked', () => {
    const args = JSON.parse('{"__proto__": {"a": {"b": {"c": {"d": 1}}}}}') as object
    expect(checkArgumentLimits(args, limits, true)).toMatch(/at __proto__\.a\.b\.c/)
  })
})

describe('parseArguments: every shape is held to the same limits', () => {
  const big = { text: 'x'.repeat(2000) }
  test.each([
    { shape: 'JSON text', raw: JSON.stringify(big) },
    { shape: 'an object (host.run, Anthropic input, MCP arguments)', raw: big },
  ])('over max_argument_chars as $shape → E_ARGS_INVALID', ({ raw }) => {
    const parsed = parseArguments(raw, limits)
    expect(parsed.ok).toBe(false)
    expect(!parsed.ok && parsed.error.code).toBe('E_ARGS_INVALID')
  })

  test.each([
    { shape: 'JSON text', raw: JSON.stringify(nested(10)) },
    { shape: 'an object', raw: nested(10) },
  ])('over max_argument_depth as $shape → E_ARGS_INVALID', ({ raw }) => {
    const parsed = parseArguments(raw, limits)
    expect(!parsed.ok && parsed.error.message).toMatch(/nested more than 4 levels deep/)
  })
})
