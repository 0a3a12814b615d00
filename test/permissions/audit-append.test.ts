import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { open } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { appendAll, SYNC_APPEND_BYTES } from '../../src/permissions/audit-append.js'

describe('appendAll', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  test('a small piece (written at once) and a large one (through the thread pool) both reach the file whole, in order', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-append-'))
    dirs.push(dir)
    const file = path.join(dir, 'log')
    const handle = await open(file, 'a')
    try {
      const small = Buffer.from('a small line\n, and some slack after the length')
      await appendAll(handle, small, 13)
      const large = Buffer.alloc(SYNC_APPEND_BYTES * 3 + 7, 'x')
      await appendAll(handle, large, large.length)
      await appendAll(handle, Buffer.from('ü\n'), Buffer.byteLength('ü\n'))
    } finally {
      await handle.close()
    }
    const text = readFileSync(file, 'utf8')
    expect(text.startsWith('a small line\nx')).toBe(true)
    expect(text.length).toBe(13 + SYNC_APPEND_BYTES * 3 + 7 + 2)
    expect(text.endsWith('xü\n')).toBe(true)
  })

  test('a handle that cannot be written is a throw, for small and large pieces alike', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-append-'))
    dirs.push(dir)
    const file = path.join(dir, 'log')
    const handle = await open(file, 'w')
    await handle.close()
    const readOnly = await open(file, 'r')
    try {
      await expect(appendAll(readOnly, Buffer.from('x\n'), 2)).rejects.toThrow()
      await expect(appendAll(readOnly, Buffer.alloc(SYNC_APPEND_BYTES + 1), SYNC_APPEND_BYTES + 1)).rejects.toThrow()
    } finally {
      await readOnly.close()
    }
  })
})
