// Patterns that meet model input run in linear time (issue 12, item 1, "fix the class"): the RE2
// engine, globs translated without lookaround, and every place a model's text met a backtracking
// RegExp — schema `pattern`s, permission text rules, the terminal's dangerous patterns. Each input
// below takes minutes to hours in a backtracking engine (these tests would time out).
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { compileDangerousPatterns, isDangerousCommand } from '../../src/processes/dangerous-commands.js'
import { DEFAULT_DANGEROUS_PATTERNS } from '../../src/config/defaults.js'
import { defineTool, registry } from '../../src/index.js'
import { compileLinearGlob, compileLinearRegex } from '../../src/patterns/linear-regex.js'
import { makeRoot, permissionHost } from '../fixtures/permissions/tools.js'

describe('compileLinearRegex', () => {
  test.each([
    ['(?<=a)b', 'invalid named capture: `(?<=a)b`'],
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
    ['a{2000}', 'invalid repeat count: `{2000}`'],
    ['(a', 'missing closing ): `(a`'],
  ])('%s is a SyntaxError saying why', (pattern, message) => {
    expect(() => compileLinearRegex(pattern)).toThrow(new SyntaxError(message))
  })

  test('maxComplexity bounds the cost per character', () => {
    expect(() => compileLinearRegex('[a-z]{900}', { maxComplexity: 600 })).toThrow(/too complex \(\d+ steps, at most 600\)/)
    expect(compileLinearRegex('[a-z]{100}', { maxComplexity: 600 }).test('x'.repeat(100))).toBe(true)
  })

  test('ignoreCase and multiline', () => {
    expect(compileLinearRegex('^todo$', { ignoreCase: true, multiline: true }).test('a\nTODO\nb')).toBe(true)
    expect(compileLinearRegex('^todo$', { ignoreCase: true }).test('a\nTODO\nb')).toBe(false)
  })
})

describe('compileLinearGlob', () => {
  test.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['src/**/*.md', 'src/a.md', true],
    ['src/**/*.md', 'src/x/y/a.md', true],
    ['src/**/*.md', 'srcx/a.md', false],
    ['**/a', 'a', true],
    ['**/a', 'x/y/a', true],
    ['a/**', 'a', true],
    ['a/**', 'a/b/c', true],
    ['a/**', 'ab', false],
    ['?.js', 'a.js', true],
    ['?.js', '/.js', false],
    ['[abc]*.{js,ts}', 'b1.ts', true],
    ['[!a]*', 'a', false],
    ['[!a]*', 'b', true],
    ['[]]x', ']x', true],
    ['x{a,{b,c}}y', 'xcy', true],
    ['{a', '{a', true],
    ['\\*x', '*x', true],
    ['\\*x', 'ax', false],
    ['.*', '.env', true],
    ['a.b', 'axb', false],
  ])('%s matches %s: %s', (glob, candidate, expected) => {
    expect(compileLinearGlob(glob).testWhole(candidate)).toBe(expected)
  })
})

describe('where model text meets a pattern', () => {
  let root: string
  let cleanup: () => void
  beforeEach(() => {
    ;({ root, cleanup } = makeRoot())
  })
  afterEach(() => {
    registry.clear()
    cleanup()
  })

  test('a schema pattern from a plugin or MCP server such as ^(a+)+$ validates in linear time', async () => {
    registry.register(defineTool({
      name: 'strict',
      description: 'Its schema has a backtracking pattern.',
      parameters: { type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } }, required: ['word'] },
      parallelSafe: true,
      handler: () => 'ran',
    }))
    const host = await permissionHost(root, { mode: 'bypass' })
    const [bad, good] = await host.run([
      { id: 'bad', name: 'strict', arguments: { word: `${'a'.repeat(5000)}!` } },
      { id: 'good', name: 'strict', arguments: { word: 'aaaa' } },
    ])
    await host.close()
    expect(bad!.error?.code).toBe('E_ARGS_INVALID')
    expect(bad!.content).toContain('`word` must match pattern "^(a+)+$"')
    expect(good!.ok).toBe(true)
  })

  test('a permission text rule with several * is matched in linear time against a long value', async () => {
    registry.register(defineTool({ name: 'say', description: 'Says a thing.', parameters: { type: 'object', properties: { text: { type: 'string' } } }, parallelSafe: true, handler: () => 'said' }))
    const host = await permissionHost(root, { mode: 'bypass', deny: ['say(a*a*a*a*a*b)'] })
    const [long, denied] = await host.run([
      { id: 'long', name: 'say', arguments: { text: 'a'.repeat(200_000) } },
      { id: 'denied', name: 'say', arguments: { text: 'aaaaab' } },
    ])
    await host.close()
    expect(long!.ok).toBe(true)
    expect(denied!.error?.code).toBe('E_DENIED')
  })

  test('the terminal\'s dangerous patterns (defaults and custom) run in linear time on a long command', () => {
    const defaults = compileDangerousPatterns(DEFAULT_DANGEROUS_PATTERNS, 'defaults')
    expect(defaults.some((pattern) => pattern.test(`ls -${'l'.repeat(500_000)} ${'r'.repeat(500_000)}`))).toBe(false)
    expect(isDangerousCommand('rm -rf build', defaults)).toBe(true)
    const custom = compileDangerousPatterns(['^(x+)+y$'], 'config.yaml')
    expect(custom.some((pattern) => pattern.test(`${'x'.repeat(100_000)}!`))).toBe(false)
    // A command too long for the shell analysis cannot be judged, so it counts as destructive.
    expect(isDangerousCommand(`${'x'.repeat(100_000)}!`, custom)).toBe(true)
  })

  test('a dangerous pattern RE2 cannot express stops start-up naming the key and the syntax', () => {
    expect(() => compileDangerousPatterns(['ok', '(?=lookahead)'], 'config.yaml')).toThrow(/config\.yaml: key `terminal\.dangerous_patterns\[1\]`: not a valid regular expression in RE2 syntax/)
  })
})
