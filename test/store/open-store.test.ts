import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { loadConfig } from '../../src/config/load-config.js'
import { silentLogger } from '../../src/contract/logger.js'
import { createHost } from '../../src/host/create-host.js'
import { LocalStore } from '../../src/store/local-store.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { openStore } from '../../src/store/open-store.js'
import { storeSetting } from '../../src/store/store-setting.js'
// This file is about hosts coordinating through the local store: vitest.config.ts sets TOOLHOST_STORE=memory for the others.
delete process.env['TOOLHOST_STORE']

const dirs: string[] = []
const scratch = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-open-store-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('config store and TOOLHOST_STORE', () => {
  test.each([
    { setting: 'memory', kind: MemoryStore },
    { setting: 'local', kind: LocalStore },
  ])('$setting opens its store', ({ setting, kind }) => {
    expect(openStore({ setting, where: 'config.yaml: store', root: scratch(), log: silentLogger })).toBeInstanceOf(kind)
  })

  test('a bad value in config.yaml stops start-up naming the file and the key', () => {
    const dir = scratch()
    const file = path.join(dir, 'config.yaml')
    writeFileSync(file, 'store: disk\n')
    expect(() => loadConfig({ file, explicit: true })).toThrow(/config\.yaml: key `store`: must match pattern/)
  })

  test('TOOLHOST_STORE wins over config, and a bad value names the variable', async () => {
    expect(storeSetting('local', '/w/config.yaml', { TOOLHOST_STORE: 'memory' })).toEqual({ setting: 'memory', where: 'environment: TOOLHOST_STORE' })
    expect(storeSetting('memory', '/w/config.yaml', { TOOLHOST_STORE: '' })).toEqual({ setting: 'memory', where: '/w/config.yaml: store' })
    await expect(createHost({ root: scratch(), loadPlugins: false, log: silentLogger, env: { TOOLHOST_STORE: 'disk' }, config: { env_file: '' } })).rejects.toMatchObject({
      code: 'E_CONFIG_INVALID',
      message: 'environment: TOOLHOST_STORE must be memory, local or a redis:// URL, got "disk"',
    })
  })

  test('a mistyped Redis URL is refused without echoing its password', () => {
    expect(() => openStore({ setting: 'redis:/:hunter2@cache:6379', where: 'environment: TOOLHOST_STORE', root: scratch(), log: silentLogger })).toThrow(
      'environment: TOOLHOST_STORE must be memory, local or a redis:// URL, got "redis:/:***@cache:6379"',
    )
  })

  test('a malformed redis:// store stops start-up naming the key, never echoing the URL', async () => {
    await expect(createHost({ root: scratch(), loadPlugins: false, log: silentLogger, env: {}, config: { env_file: '', store: 'redis://:hunter2@cache?lease_ms=1' } })).rejects.toMatchObject({
      code: 'E_CONFIG_INVALID',
      message: expect.stringMatching(/^createHost\(\{ config \}\): store: lease_ms must be an integer from 1000 to 300000, got "1"$/),
    })
  })

  test('store: memory writes nothing under the root', async () => {
    const root = scratch()
    const host = await createHost({ root, loadPlugins: false, log: silentLogger, env: {}, config: { env_file: '', store: 'memory', dispatch: { duration_estimates: '' }, permissions: { audit_log: '' } } })
    expect(host.services.store.kind).toBe('memory')
    await host.close()
    expect(() => rmSync(path.join(root, '.toolhost'))).toThrow(/ENOENT/)
  })
})
