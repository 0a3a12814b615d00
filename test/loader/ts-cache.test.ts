import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { defaultTsCacheDir, TsCache, type CompiledFile } from '../../src/loader/ts-cache.js'

const COMPILED: CompiledFile = { format: 'commonjs', imports: [{ path: 'toolhost', kind: 'import-statement' }], code: 'module.exports = 42\n' }

let work: string
let dir: string
let cache: TsCache
const entryOf = (key: string): string => path.join(dir, `${key}.js-entry`)

beforeEach(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'toolhost-ts-cache-'))
  dir = path.join(work, 'ts')
  cache = new TsCache(dir)
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

describe('TsCache', () => {
  test('a miss, then the entry written is read back; another key is a miss', () => {
    const key = cache.keyOf('const a: number = 1', ['v1'])
    expect(cache.read(key)).toBeUndefined()
    cache.write(key, COMPILED)
    expect(cache.read(key)).toEqual(COMPILED)
    expect(new TsCache(dir).read(key)).toEqual(COMPILED)
    expect(cache.read(cache.keyOf('const a: number = 2', ['v1']))).toBeUndefined()
  })

  test('the key covers every part and the source', () => {
    const keys = new Set([cache.keyOf('x', ['a', 'b']), cache.keyOf('x', ['a', 'c']), cache.keyOf('y', ['a', 'b']), cache.keyOf('x', ['ab']), cache.keyOf('x', ['a', 'b'])])
    expect(keys.size).toBe(4)
  })

  test('the folder, the secret and the entries are private to the user', () => {
    const key = cache.keyOf('s', [])
    cache.write(key, COMPILED)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(path.join(dir, 'secret')).mode & 0o777).toBe(0o600)
    expect(statSync(entryOf(key)).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  describe('an entry that does not verify is a miss', () => {
    let key: string
    beforeEach(() => {
      key = cache.keyOf('plugin source', ['v1'])
      cache.write(key, COMPILED)
    })

    test('its code changed (the signature no longer matches)', () => {
      writeFileSync(entryOf(key), readFileSync(entryOf(key), 'utf8').replace('module.exports = 42', 'require("child_process").execSync("touch pwned")'))
      expect(new TsCache(dir).read(key)).toBeUndefined()
    })

    test('its metadata changed', () => {
      writeFileSync(entryOf(key), readFileSync(entryOf(key), 'utf8').replace('"format":"commonjs"', '"format":"module"'))
      expect(new TsCache(dir).read(key)).toBeUndefined()
    })

    test('it was re-signed with a key other than this cache secret', () => {
      const other = new TsCache(path.join(work, 'other'))
      other.write(key, { ...COMPILED, code: 'globalThis.planted = true\n' })
      writeFileSync(entryOf(key), readFileSync(path.join(work, 'other', `${key}.js-entry`)))
      expect(new TsCache(dir).read(key)).toBeUndefined()
    })

    test('it is another key entry copied under this name', () => {
      const otherKey = cache.keyOf('another source', ['v1'])
      cache.write(otherKey, { ...COMPILED, code: 'module.exports = "other"\n' })
      writeFileSync(entryOf(key), readFileSync(entryOf(otherKey)))
      expect(new TsCache(dir).read(key)).toBeUndefined()
    })

    test('it is cut short, empty or not text of ours', () => {
      const text = readFileSync(entryOf(key), 'utf8')
      for (const corrupt of [text.slice(0, text.length - 5), '', 'garbage\n', text.slice(0, 40)]) {
        writeFileSync(entryOf(key), corrupt)
        expect(new TsCache(dir).read(key)).toBeUndefined()
      }
    })

    test('it is a link (even to a valid entry) or writable by others', () => {
      const real = path.join(work, 'real-entry')
      writeFileSync(real, readFileSync(entryOf(key)), { mode: 0o600 })
      rmSync(entryOf(key))
      symlinkSync(real, entryOf(key))
      expect(new TsCache(dir).read(key)).toBeUndefined()
      rmSync(entryOf(key))
      writeFileSync(entryOf(key), readFileSync(real), { mode: 0o600 })
      expect(new TsCache(dir).read(key)).toEqual(COMPILED)
      chmodSync(entryOf(key), 0o666)
      expect(new TsCache(dir).read(key)).toBeUndefined()
    })

    test('a rewrite after a bad entry is read again', () => {
      writeFileSync(entryOf(key), 'garbage\n')
      const fresh = new TsCache(dir)
      expect(fresh.read(key)).toBeUndefined()
      fresh.write(key, COMPILED)
      expect(new TsCache(dir).read(key)).toEqual(COMPILED)
    })
  })

  test('a folder writable by others is not used: nothing read, nothing written', () => {
    mkdirSync(dir, { mode: 0o700 })
    const key = cache.keyOf('s', [])
    cache.write(key, COMPILED)
    chmodSync(dir, 0o777)
    expect(new TsCache(dir).read(key)).toBeUndefined()
    const otherKey = cache.keyOf('t', [])
    new TsCache(dir).write(otherKey, COMPILED)
    expect(readdirSync(dir).some((name) => name.startsWith(otherKey))).toBe(false)
  })

  test('off: no folder, nothing read or written', () => {
    const off = new TsCache(undefined)
    off.write('k', COMPILED)
    expect(off.read('k')).toBeUndefined()
  })
})

describe('defaultTsCacheDir', () => {
  test('TOOLHOST_TS_CACHE names the folder or turns it off; else the user cache folder', () => {
    expect(defaultTsCacheDir({ TOOLHOST_TS_CACHE: 'off' })).toBeUndefined()
    expect(defaultTsCacheDir({ TOOLHOST_TS_CACHE: '/x/y' })).toBe('/x/y')
    expect(defaultTsCacheDir({ XDG_CACHE_HOME: '/c' })).toBe(path.join('/c', 'toolhost', 'ts'))
    expect(defaultTsCacheDir({})).toBe(path.join(os.homedir(), '.cache', 'toolhost', 'ts'))
  })
})

describe('TsCache.keepOutOf (issue 32.2: with the root at HOME, the cache was inside the workspace and two patch calls re-signed an entry)', () => {
  test('a cache folder inside the workspace root moves to the temporary folder; one outside stays', () => {
    const home = path.join(os.homedir(), '.cache', 'toolhost', 'ts')
    const inside = new TsCache(home)
    inside.keepOutOf(os.homedir())
    expect(inside.dir).toBe(path.join(os.tmpdir(), `toolhost-${process.getuid!()}`, 'ts'))
    const outside = new TsCache(home)
    outside.keepOutOf(path.join(os.tmpdir(), 'some-project'))
    expect(outside.dir).toBe(home)
  })

  test('with the temporary folder inside the root too (a root at /), the cache is off', () => {
    const cache = new TsCache(path.join(os.homedir(), '.cache', 'toolhost', 'ts'))
    cache.keepOutOf('/')
    expect(cache.dir).toBeUndefined()
    expect(cache.read('0'.repeat(40))).toBeUndefined()
  })
})
