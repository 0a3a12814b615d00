// resolveInRoot, the wall without the deny list, table-driven; and the diff parser's edge cases.
import { mkdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isToolhostError } from '../../src/index.js'
import { resolveInRoot } from '../../src/workspace/resolve-in-root.js'
import { applyHunks, parseUnifiedDiff } from '../../src/workspace/unified-diff.js'
import { makeSandbox, type Sandbox } from './sandbox.js'

let sb: Sandbox

beforeAll(() => {
  sb = makeSandbox('toolhost-resolve-')
  mkdirSync(path.join(sb.root, 'src'))
  symlinkSync('src', path.join(sb.root, 'alias'))
  symlinkSync(sb.sibling, path.join(sb.root, 'out'))
})

afterAll(() => sb.cleanup())

function codeOf(input: unknown): string {
  try {
    resolveInRoot(input, sb.root)
    return 'ok'
  } catch (error) {
    return isToolhostError(error) ? error.code : 'thrown'
  }
}

describe('resolveInRoot', () => {
  test.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/../src/a.ts', 'src/a.ts'],
    ['alias/a.ts', 'src/a.ts'],
    ['..hidden', '..hidden'],
    ['a..b/c', 'a..b/c'],
    ['.', '.'],
  ])('%s -> %s', (input, relative) => {
    const resolved = resolveInRoot(input, sb.root)
    expect(resolved.relative).toBe(relative)
    expect(resolved.path).toBe(relative === '.' ? sb.root : path.join(sb.root, relative))
    expect(resolved.input).toBe(input)
  })

  test.each([
    ['..', 'E_PATH_OUTSIDE_ROOT'],
    ['../root-sibling', 'E_PATH_OUTSIDE_ROOT'],
    ['out/secret.txt', 'E_PATH_OUTSIDE_ROOT'],
    ['~', 'E_PATH_OUTSIDE_ROOT'],
    ['/', 'E_PATH_OUTSIDE_ROOT'],
    ['a\u0000b', 'E_ARGS_INVALID'],
    ['', 'E_ARGS_INVALID'],
    [7, 'E_ARGS_INVALID'],
    [undefined, 'E_ARGS_INVALID'],
  ])('%j is %s', (input, code) => {
    expect(codeOf(input)).toBe(code)
  })

  test('the sibling prefix is outside: /x/root-sibling is not within /x/root', () => {
    expect(codeOf(`${sb.root}-sibling/secret.txt`)).toBe('E_PATH_OUTSIDE_ROOT')
  })
})

describe('unified diffs', () => {
  test('git headers lose a/ and b/; plain headers keep their path and drop the timestamp', () => {
    expect(parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n')[0]).toMatchObject({ oldPath: 'x', newPath: 'x' })
    expect(parseUnifiedDiff('--- x.txt\t2024-01-01 10:00\n+++ x.txt\t2024-01-02 10:00\n@@ -1 +1 @@\n-a\n+b\n')[0]).toMatchObject({ oldPath: 'x.txt', newPath: 'x.txt' })
  })

  test('a hunk whose stated line is off still applies where it matches', () => {
    const [file] = parseUnifiedDiff('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n c\n-d\n+D\n')
    expect(applyHunks('a\nb\nc\nd\ne\n', file!, 'f')).toBe('a\nb\nc\nD\ne\n')
  })

  test('an empty context line (trailing space stripped by an editor) still counts as context', () => {
    const [file] = parseUnifiedDiff('--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n')
    expect(applyHunks('a\n\nc\n', file!, 'f')).toBe('a\n\nC\n')
  })

  test('a CRLF file keeps CRLF', () => {
    const [file] = parseUnifiedDiff('--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n')
    expect(applyHunks('a\r\nz\r\n', file!, 'f')).toBe('b\r\nz\r\n')
  })
})
