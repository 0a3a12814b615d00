import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { canonicalPath, comparablePath, expandHome, isCaseInsensitiveFs, isWithin, pathsOverlap, relativeToRoot } from '../../src/workspace/paths.js'

// A real workspace with links the test makes:
//   root/real/file.txt, root/real/sub/, root/A (only on case-sensitive systems: root/a too)
//   root/link -> real (relative), root/abs-link -> <root>/real (absolute), root/chain -> link,
//   root/dangling -> nowhere/yet, root/climb -> missing/../link, root/loop1 <-> root/loop2
//   outside/ with root/escape -> ../outside
let base: string
let root: string

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-paths-')))
  root = path.join(base, 'root')
  mkdirSync(path.join(root, 'real', 'sub'), { recursive: true })
  mkdirSync(path.join(base, 'outside'))
  writeFileSync(path.join(root, 'real', 'file.txt'), 'x')
  symlinkSync('real', path.join(root, 'link'))
  symlinkSync(path.join(root, 'real'), path.join(root, 'abs-link'))
  symlinkSync('link', path.join(root, 'chain'))
  symlinkSync('nowhere/yet', path.join(root, 'dangling'))
  symlinkSync('missing/../link', path.join(root, 'climb'))
  symlinkSync('loop2', path.join(root, 'loop1'))
  symlinkSync('loop1', path.join(root, 'loop2'))
  symlinkSync('../outside', path.join(root, 'escape'))
  symlinkSync(root, path.join(base, 'root-link'))
})

afterAll(() => rmSync(base, { recursive: true, force: true }))

describe('canonicalPath', () => {
  test.each([
    ['a relative path resolves against the root, not the process cwd', 'a/b.txt', 'a/b.txt'],
    ['x/../a is a', 'x/../a', 'a'],
    ['./a/./b is a/b', './a/./b', 'a/b'],
    ['a trailing slash is dropped', 'real/sub/', 'real/sub'],
    ['a missing file under an existing folder', 'real/new.txt', 'real/new.txt'],
    ['a relative symlink is its target', 'link/file.txt', 'real/file.txt'],
    ['an absolute symlink is its target', 'abs-link/sub', 'real/sub'],
    ['a chain of symlinks is the last target', 'chain/file.txt', 'real/file.txt'],
    ['a dangling symlink is the path it points to', 'dangling/f', 'nowhere/yet/f'],
    ['a link target that climbs out of a missing folder', 'climb/sub', 'real/sub'],
    ['the root itself', '.', '.'],
  ])('%s', (_why, input, expected) => {
    expect(relativeToRoot(canonicalPath(input, root), root)).toBe(expected)
  })

  test('a symlink to a folder outside the root resolves outside it (the wall sees through links)', () => {
    const resolved = canonicalPath('escape/secret', root)
    expect(resolved).toBe(path.join(base, 'outside', 'secret'))
    expect(isWithin(resolved, root)).toBe(false)
  })

  test('.. cannot climb out unseen', () => {
    expect(isWithin(canonicalPath('real/../../outside', root), root)).toBe(false)
  })

  test('an absolute path reached through a symlinked parent of the root is inside the root', () => {
    const viaLink = path.join(base, 'root-link', 'real', 'file.txt')
    expect(canonicalPath(viaLink, root)).toBe(path.join(root, 'real', 'file.txt'))
    expect(isWithin(canonicalPath(viaLink, root), root)).toBe(true)
  })

  test('~ and ~/x name the home folder', () => {
    expect(canonicalPath('~', root)).toBe(canonicalPath(os.homedir(), root))
    expect(canonicalPath('~/notes.txt', root)).toBe(canonicalPath(path.join(os.homedir(), 'notes.txt'), root))
    expect(expandHome('~other')).toBe('~other')
  })

  test('a symlink loop is refused', () => {
    expect(() => canonicalPath('loop1/x', root)).toThrow(expect.objectContaining({ code: 'E_ARGS_INVALID', message: expect.stringMatching(/too many symbolic links/) }))
  })

  test.each([
    ['a NUL byte', 'a\0b', /NUL byte/],
    ['an empty string', '', /must not be empty/],
    ['only spaces', '   ', /must not be empty/],
    ['null', null, /must be a string, got null/],
    ['a number', 42, /must be a string, got number/],
    ['an object', { path: 'a' }, /must be a string, got object/],
  ])('rejects %s with E_ARGS_INVALID', (_what, input, message) => {
    expect(() => canonicalPath(input, root)).toThrow(expect.objectContaining({ code: 'E_ARGS_INVALID', message: expect.stringMatching(message) }))
  })
})

describe('pathsOverlap (by whole components)', () => {
  test.each([
    ['a', 'a/b', true],
    ['a/b', 'a', true],
    ['a', 'a', true],
    ['a/b', 'a/bc', false],
    ['a/bc', 'a/b', false],
    ['a/b', 'a/c', false],
    ['ab', 'a', false],
    ['a/b/c', 'a', true],
  ])('%s and %s: %s', (a, b, expected) => {
    expect(pathsOverlap(canonicalPath(a, root), canonicalPath(b, root))).toBe(expected)
  })

  test.each([
    ['a symlink and its target', 'link', 'real'],
    ['a file through a link and its folder', 'link/file.txt', 'real'],
    ['two links to one folder', 'chain/sub', 'abs-link'],
    ['x/../a and a', 'x/../real', 'real'],
  ])('%s overlap', (_why, a, b) => {
    expect(pathsOverlap(canonicalPath(a, root), canonicalPath(b, root))).toBe(true)
  })
})

describe('case sensitivity', () => {
  test('the probe matches what the file system does with a swapped-case name', () => {
    const dir = path.join(base, 'CaseProbe')
    mkdirSync(dir)
    writeFileSync(path.join(dir, 'File.txt'), 'x')
    let sameFile: boolean
    try {
      sameFile = realpathSync(path.join(dir, 'FILE.TXT')) !== ''
    } catch {
      sameFile = false
    }
    expect(isCaseInsensitiveFs(dir)).toBe(sameFile)
    if (process.platform === 'linux') expect(sameFile).toBe(false) // ext4/tmpfs: case matters
  })

  test('on this file system, names differing only in case overlap exactly when it ignores case', () => {
    const insensitive = isCaseInsensitiveFs(root)
    const upper = comparablePath(canonicalPath('REAL/File.txt', root), insensitive)
    const lower = comparablePath(canonicalPath('real/file.txt', root), insensitive)
    expect(pathsOverlap(upper, lower)).toBe(insensitive)
  })

  test.each([
    ['/W/Src/A.ts', true, '/w/src/a.ts'],
    ['/W/Src/A.ts', false, '/W/Src/A.ts'],
  ])('comparablePath(%s, caseInsensitive=%s) is %s', (input, insensitive, expected) => {
    expect(comparablePath(input, insensitive)).toBe(expected)
  })

  test('folded paths compare by components too', () => {
    expect(pathsOverlap(comparablePath('/W/Src', true), comparablePath('/w/src/A.ts', true))).toBe(true)
    expect(pathsOverlap(comparablePath('/W/Src', true), comparablePath('/w/srcX', true))).toBe(false)
  })
})
