import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { tryLockFolder, unlockFolder } from '../../src/store/folder-lock.js'

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

test('one taker at a time; released, it can be taken again', () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-folder-lock-'))
  const lock = path.join(dir, 'state.lock')
  expect(tryLockFolder(lock, 2000)).toBe(true)
  expect(tryLockFolder(lock, 2000)).toBe(false)
  unlockFolder(lock)
  expect(tryLockFolder(lock, 2000)).toBe(true)
})

test('a lock left by a host that died holding it is broken once stale, never before', () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-folder-lock-'))
  const lock = path.join(dir, 'state.lock')
  mkdirSync(lock)
  expect(tryLockFolder(lock, 2000)).toBe(false)
  expect(existsSync(lock)).toBe(true) // fresh: left alone
  const old = (Date.now() - 5000) / 1000
  utimesSync(lock, old, old)
  expect(tryLockFolder(lock, 2000)).toBe(false) // this attempt breaks it...
  expect(tryLockFolder(lock, 2000)).toBe(true) // ...the next takes it
})

test('a missing parent folder is the caller’s to make (ENOENT)', () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-folder-lock-'))
  expect(() => tryLockFolder(path.join(dir, 'no', 'state.lock'), 2000)).toThrow(/ENOENT/)
})
