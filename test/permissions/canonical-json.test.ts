// Canonical JSON and the copies the audit log makes: flat arguments take a shorter path than nested
// ones (no walk), and both must give the same text; a snapshot is serialised as it is unless a
// string in it must be cut.
import { describe, expect, test } from 'vitest'
import { abbreviate, canonicalJson, hasStringOver, sortKeys } from '../../src/permissions/canonical-json.js'

describe('sortKeys and canonicalJson', () => {
  test.each([
    ['flat', '{"b":1,"a":"x","c":null}', '{"a":"x","b":1,"c":null}'],
    ['flat, one key', '{"n":3}', '{"n":3}'],
    ['empty', '{}', '{}'],
    ['nested', '{"b":{"d":2,"c":[{"f":1,"e":0}]},"a":1}', '{"a":1,"b":{"c":[{"e":0,"f":1}],"d":2}}'],
    ['flat "__proto__" key', '{"b":1,"__proto__":2}', '{"__proto__":2,"b":1}'],
    ['nested "__proto__" key', '{"__proto__":{"x":1},"a":1}', '{"__proto__":{"x":1},"a":1}'],
  ])('%s', (_, text, expected) => {
    const value = JSON.parse(text) as Record<string, unknown>
    const sorted = sortKeys(value) as Record<string, unknown>
    expect(canonicalJson(value)).toBe(expected)
    expect(JSON.stringify(sorted)).toBe(expected)
    expect(sorted).not.toBe(value)
    expect(Object.getPrototypeOf(sorted)).toBe(Object.prototype)
  })

  test('a flat copy is a copy: changing the source later does not change it', () => {
    const source: Record<string, unknown> = { a: 1 }
    const copy = sortKeys(source) as Record<string, unknown>
    source.a = 2
    expect(copy.a).toBe(1)
  })

  test('a BigInt throws, flat or nested, as serialising would', () => {
    expect(() => sortKeys({ a: 1n })).toThrow('BigInt')
    expect(() => sortKeys({ a: { b: 1n } })).toThrow('BigInt')
  })
})

describe('hasStringOver and abbreviate', () => {
  test.each([
    [{ a: 'xxxx' }, false],
    [{ a: 'xxxxx' }, true],
    [{ a: 1, b: { c: ['y', 'xxxxx'] } }, true],
    [{ a: 1, b: { c: ['y', 'xxxx'] } }, false],
    ['xxxxx', true],
    [5, false],
  ])('%j over 4 characters: %s', (value, over) => {
    expect(hasStringOver(value, 4)).toBe(over)
    // Exactly when abbreviate would change the text.
    expect(JSON.stringify(abbreviate(value, 4)) !== JSON.stringify(sortKeys(value))).toBe(over)
  })

  test('a key longer than the limit is not a string to cut', () => {
    expect(hasStringOver({ ['k'.repeat(10)]: 1 }, 4)).toBe(false)
  })
})
