import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { loadEnvFile } from '../../src/config/env-file.js'
import { isToolhostError } from '../../src/contract/errors.js'
import { createHost } from '../../src/host/create-host.js'
import { silentLogger } from '../../src/contract/logger.js'
import { registry } from '../../src/registry/registry.js'
import { countOf, resetCounters } from '../fixtures/counters.js'

// Env gating end to end: the fixture plugins in test/fixtures/plugins/gated, a workspace root with a
// .env file, and a host environment object (so process.env is left alone).
const GATED = 'test/fixtures/plugins/gated'
let dir: string

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-env-'))
  writeFileSync(path.join(dir, '.env'), 'TOOLHOST_FIXTURE_TOKEN=from-dotenv\nTOOLHOST_FIXTURE_A=1\n# a comment\nEMPTY=\n')
  mkdirSync(path.join(dir, 'conf'))
  writeFileSync(path.join(dir, 'conf', 'other.env'), 'TOOLHOST_FIXTURE_B=2\n')
  mkdirSync(path.join(dir, 'a-folder.env'))
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

beforeEach(() => {
  registry.clear()
  resetCounters()
})

describe('loadEnvFile', () => {
  test('sets only variables not already set (the real environment wins) and returns their names', () => {
    const env: NodeJS.ProcessEnv = { TOOLHOST_FIXTURE_A: 'real', EMPTY: '' }
    expect(loadEnvFile(path.join(dir, '.env'), env)).toEqual(['TOOLHOST_FIXTURE_TOKEN'])
    expect(env).toEqual({ TOOLHOST_FIXTURE_A: 'real', EMPTY: '', TOOLHOST_FIXTURE_TOKEN: 'from-dotenv' })
  })

  test('a variable named like an Object.prototype member is still set from the file', () => {
    const file = path.join(dir, 'proto.env')
    writeFileSync(file, 'constructor=from-file\n')
    const env: NodeJS.ProcessEnv = {}
    expect(loadEnvFile(file, env)).toEqual(['constructor'])
    expect(Object.hasOwn(env, 'constructor') && env.constructor).toBe('from-file')
  })

  test('a missing file is no error and sets nothing', () => {
    const env: NodeJS.ProcessEnv = {}
    expect(loadEnvFile(path.join(dir, 'nope.env'), env)).toEqual([])
    expect(env).toEqual({})
  })

  test('a file that cannot be read is E_CONFIG_INVALID naming it', () => {
    let error: unknown
    try {
      loadEnvFile(path.join(dir, 'a-folder.env'), {})
    } catch (caught) {
      error = caught
    }
    expect(isToolhostError(error) && error.code).toBe('E_CONFIG_INVALID')
    expect((error as Error).message).toMatch(/^env_file: cannot read .*a-folder\.env: .*set env_file: "" to turn it off$/)
  })
})

const hostWith = (env: NodeJS.ProcessEnv, config: Record<string, unknown> = {}) =>
  createHost({
    config: { plugins: { dirs: [] }, availability: { check_timeout_ms: 100 }, permissions: { mode: 'bypass' }, ...config },
    plugins: [GATED],
    root: dir,
    env,
    log: silentLogger,
  })

describe('a tool gated on env vars', () => {
  test('hidden without the var, with the reason; a call by name is refused and never runs', async () => {
    const host = await hostWith({}, { env_file: '' })
    const names = (await host.definitions()).map((d) => d.function.name)
    expect(names).not.toContain('gated_env')
    expect(await host.registry.explainAvailability(['gated_env', 'gated_two_vars'], { env: host.env })).toEqual([
      { name: 'gated_env', available: false, reason: 'missing env var TOOLHOST_FIXTURE_TOKEN' },
      { name: 'gated_two_vars', available: false, reason: 'missing env vars TOOLHOST_FIXTURE_A, TOOLHOST_FIXTURE_B' },
    ])
    expect((await host.call({ id: 'x', name: 'gated_env' })).error).toEqual({
      code: 'E_TOOL_UNAVAILABLE',
      message: 'gated_env is not available right now (missing env var TOOLHOST_FIXTURE_TOKEN); use another tool. To offer it, set TOOLHOST_FIXTURE_TOKEN in the environment the host reads (createHost({ env }), or the .env file).',
    })
    await host.close()
  })

  test('shown with the var', async () => {
    const host = await hostWith({ TOOLHOST_FIXTURE_TOKEN: 'set' }, { env_file: '' })
    expect((await host.definitions({ toolsets: ['gated'] })).map((d) => d.function.name)).toEqual(['gated_env'])
    await host.close()
  })

  test('the .env file in the workspace root is loaded into the host environment', async () => {
    const env: NodeJS.ProcessEnv = {}
    const host = await hostWith(env)
    expect(env.TOOLHOST_FIXTURE_TOKEN).toBe('from-dotenv')
    expect((await host.definitions({ toolsets: ['gated'] })).map((d) => d.function.name)).toEqual(['gated_env'])
    await host.close()
  })

  test('the real environment wins over .env', async () => {
    const env: NodeJS.ProcessEnv = { TOOLHOST_FIXTURE_TOKEN: 'real' }
    const host = await hostWith(env)
    expect(env.TOOLHOST_FIXTURE_TOKEN).toBe('real')
    await host.close()
  })

  test('env_file may name another file (relative to the root); "" turns it off', async () => {
    const env: NodeJS.ProcessEnv = { TOOLHOST_FIXTURE_A: 'x' }
    const host = await hostWith(env, { env_file: 'conf/other.env' })
    expect(env).toEqual({ TOOLHOST_FIXTURE_A: 'x', TOOLHOST_FIXTURE_B: '2' })
    expect((await host.definitions({ toolsets: ['gated'] })).map((d) => d.function.name)).toEqual(['gated_two_vars'])
    await host.close()
    const off: NodeJS.ProcessEnv = {}
    await (await hostWith(off, { env_file: '' })).close()
    expect(off).toEqual({})
  })
})

describe('tools gated on checks', () => {
  test('explainAvailability: a reason for every hidden tool (throws, false, rejects, too slow); async and sync true shown', async () => {
    const host = await hostWith({}, { env_file: '' })
    const checks = await host.registry.explainAvailability({ toolsets: ['checks'] }, { checkTimeoutMs: host.config.availability.check_timeout_ms })
    expect(checks).toEqual([
      { name: 'check_async_true', available: true },
      { name: 'check_false', available: false, reason: 'check returned false' },
      { name: 'check_rejects', available: false, reason: 'check threw: token expired' },
      { name: 'check_slow', available: false, reason: 'check took longer than 100 ms' },
      { name: 'check_sync_true', available: true },
      { name: 'check_throws', available: false, reason: 'check threw: the service is down' },
      { name: 'shared_a', available: true },
      { name: 'shared_b', available: true },
      { name: 'shared_c', available: true },
    ])
    await host.close()
  })

  test('a check shared by three tools runs once per getDefinitions call', async () => {
    const host = await hostWith({}, { env_file: '' })
    expect(countOf('check:shared')).toBe(0)
    const defs = await host.definitions()
    expect(defs.map((d) => d.function.name).filter((n) => n.startsWith('shared_'))).toEqual(['shared_a', 'shared_b', 'shared_c'])
    expect(countOf('check:shared')).toBe(1)
    await host.definitions({ toolsets: ['checks'] })
    expect(countOf('check:shared')).toBe(2)
    // A batch calling all three re-checks availability once for the batch, too.
    const results = await host.run(['shared_a', 'shared_b', 'shared_c'].map((name, i) => ({ id: String(i), name, arguments: '{}' })))
    expect(results.every((r) => r.ok)).toBe(true)
    expect(countOf('check:shared')).toBe(3)
    await host.close()
  })
})
