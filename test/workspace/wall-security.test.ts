// The workspace wall against a hostile model: every attack of issue 4, for every file tool, refused
// with E_PATH_OUTSIDE_ROOT or E_ARGS_INVALID, the secret never returned, nothing outside changed.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { registry, type Host, type ToolResult } from '../../src/index.js'
import { call, hostOn, makeSandbox, SECRET, snapshot, type Sandbox } from './sandbox.js'

let sb: Sandbox
let host: Host
let before: Map<string, string>

beforeAll(async () => {
  sb = makeSandbox()
  const { root, sibling, base } = sb
  mkdirSync(path.join(root, 'dir'))
  writeFileSync(path.join(root, 'inside.txt'), 'inside\n')
  mkdirSync(path.join(base, 'outside'))
  symlinkSync(path.join(sibling, 'secret.txt'), path.join(root, 'link-file-out'))
  symlinkSync(sibling, path.join(root, 'link-dir-out'))
  symlinkSync('../root-sibling/secret.txt', path.join(root, 'link-rel-out'))
  symlinkSync(path.join(base, 'outside', 'new.txt'), path.join(root, 'dangling-out'))
  symlinkSync(path.join(base, 'outside', 'newdir'), path.join(root, 'dangling-dir-out'))
  symlinkSync('chain2', path.join(root, 'chain1'))
  symlinkSync('link-dir-out', path.join(root, 'chain2'))
  symlinkSync('dir/../../root-sibling', path.join(root, 'dir-climb'))
  registry.clear()
  host = await hostOn(root)
  before = snapshot(base, root)
})

afterAll(async () => {
  await host.close()
  registry.clear()
  sb.cleanup()
})

afterEach(() => {
  // Nothing outside the root was created, changed or removed by any attack.
  expect(snapshot(sb.base, sb.root)).toEqual(before)
})

const sibling = (): string => sb.sibling
const ATTACKS: [string, () => string][] = [
  ['absolute path to the secret', () => path.join(sibling(), 'secret.txt')],
  ['absolute path to /etc/passwd', () => '/etc/passwd'],
  ['the file system root', () => '/'],
  ['.. to the sibling', () => '../root-sibling/secret.txt'],
  ['.. alone', () => '..'],
  ['.. in the middle', () => 'dir/../../root-sibling/secret.txt'],
  ['.. after ./', () => './../root-sibling/secret.txt'],
  ['.. at the end of a folder', () => 'dir/../..'],
  ['a deep climb', () => 'dir/../dir/../../../../../../etc/passwd'],
  ['~', () => '~'],
  ['~/ file', () => '~/.bashrc'],
  ['sibling sharing the root prefix (absolute)', () => `${sb.root}-sibling/secret.txt`],
  ['symlink to an outside file (absolute target)', () => 'link-file-out'],
  ['symlink to an outside file (relative target)', () => 'link-rel-out'],
  ['through a symlinked outside folder', () => 'link-dir-out/secret.txt'],
  ['chained symlinks leading out', () => 'chain1/secret.txt'],
  ['symlink whose target climbs out', () => 'dir-climb/secret.txt'],
  ['dangling symlink to an outside file', () => 'dangling-out'],
  ['new file beneath a dangling outside folder link', () => 'dangling-dir-out/new.txt'],
  ['new folders beneath a dangling outside folder link', () => 'dangling-dir-out/a/b/c.txt'],
  ['new folders beneath a symlinked outside folder', () => 'link-dir-out/newdir/deeper/new.txt'],
]

function expectRefused(result: ToolResult): void {
  expect(result.ok, result.content).toBe(false)
  expect(['E_PATH_OUTSIDE_ROOT', 'E_ARGS_INVALID']).toContain(result.error?.code)
  expect(result.content).not.toContain(SECRET)
}

describe('attacks on every file tool', () => {
  test.each(ATTACKS)('read_file: %s', async (_name, target) => {
    expectRefused(await call(host, 'read_file', { path: target() }))
  })
  test.each(ATTACKS)('write_file: %s', async (_name, target) => {
    expectRefused(await call(host, 'write_file', { path: target(), content: 'pwned\n' }))
  })
  test.each(ATTACKS)('patch (string mode): %s', async (_name, target) => {
    expectRefused(await call(host, 'patch', { path: target(), old_string: SECRET, new_string: 'pwned' }))
  })
  test.each(ATTACKS)('patch (diff mode, editing): %s', async (_name, target) => {
    const diff = `--- a/${target()}\n+++ b/${target()}\n@@ -1 +1 @@\n-${SECRET}\n+pwned\n`
    expectRefused(await call(host, 'patch', { diff }))
  })
  test.each(ATTACKS)('patch (diff mode, creating): %s', async (_name, target) => {
    expectRefused(await call(host, 'patch', { diff: `--- /dev/null\n+++ b/${target()}\n@@ -0,0 +1 @@\n+pwned\n` }))
  })
  test.each(ATTACKS)('search_files: %s', async (_name, target) => {
    expectRefused(await call(host, 'search_files', { pattern: 'SECRET', path: target() }))
  })
})

describe('malformed paths', () => {
  test.each([
    ['a NUL byte', 'inside.txt\u0000../../root-sibling/secret.txt'],
    ['a NUL byte alone', '\u0000'],
    ['only spaces', '   '],
  ])('%s is E_ARGS_INVALID for every tool', async (_name, bad) => {
    for (const [tool, args] of [
      ['read_file', { path: bad }],
      ['write_file', { path: bad, content: 'x' }],
      ['patch', { path: bad, old_string: 'a', new_string: 'b' }],
      ['search_files', { pattern: 'a', path: bad }],
    ] as const) {
      const result = await call(host, tool, args)
      expect(result.error?.code, `${tool}: ${result.content}`).toBe('E_ARGS_INVALID')
    }
  })
  test.each([[42], [null], [['inside.txt']], [{ path: 'inside.txt' }], [true]])('a non-string path (%j) is E_ARGS_INVALID', async (bad) => {
    for (const tool of ['read_file', 'write_file', 'search_files']) {
      const result = await call(host, tool, { path: bad, content: 'x', pattern: 'a' })
      expect(result.error?.code, result.content).toBe('E_ARGS_INVALID')
    }
  })
})

describe('searching the root never follows a link out', () => {
  test('the secret behind symlinks is not found by content or by name', async () => {
    const content = await call(host, 'search_files', { pattern: 'SECRET-7f' })
    expect(content.ok).toBe(true)
    expect(content.content).toMatch(/^no lines match/)
    expect(content.content).not.toContain(SECRET)
    const names = await call(host, 'search_files', { pattern: 'secret', target: 'files' })
    expect(names.content).not.toContain('secret.txt')
  })
})

describe('relative paths when the process cwd is not the root', () => {
  test('they resolve against the root, never the cwd', async () => {
    const cwd = process.cwd()
    process.chdir(sb.sibling)
    try {
      const read = await call(host, 'read_file', { path: 'secret.txt' })
      expect(read.error?.code).toBe('E_NOT_FOUND')
      expect(read.content).not.toContain(SECRET)
      const write = await call(host, 'write_file', { path: 'secret.txt', content: 'inside the root\n' })
      expect(write.ok, write.content).toBe(true)
    } finally {
      process.chdir(cwd)
    }
    expect(readFileSync(path.join(sb.root, 'secret.txt'), 'utf8')).toBe('inside the root\n')
    expect(readFileSync(sb.secretFile, 'utf8')).toBe(`${SECRET}\n`)
  })
})

describe('the home folder', () => {
  test('~ is outside a root under the temp folder', () => {
    // The attack table relies on this; say so if a machine keeps HOME under the temp folder.
    expect(path.relative(sb.root, os.homedir()).startsWith('..')).toBe(true)
  })
})
