import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { createHost } from '../../src/host/create-host.js'
import type { HostOptions } from '../../src/host/host-types.js'
import { silentLogger } from '../../src/contract/logger.js'
import { registry } from '../../src/registry/registry.js'
import { registerFixtureTools } from '../fixtures/permissions/tools.js'

// Issue 16.3: createHost writes .toolhost/audit.jsonl into the app's folder; `audit` moves it or turns it off.
describe("createHost's audit option", () => {
  let root: string
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-audit-option-'))
    registerFixtureTools()
  })
  afterEach(() => {
    registry.clear()
    rmSync(root, { recursive: true, force: true })
  })

  async function runOne(options: Partial<HostOptions>, config: Record<string, unknown> = {}): Promise<void> {
    // Duration estimates off too: with both, a host whose tools write nothing leaves the folder untouched.
    const host = await createHost({ root, loadPlugins: false, log: silentLogger, config: { env_file: '', dispatch: { duration_estimates: '' }, ...config }, ...options })
    const [result] = await host.run([{ id: 'r1', name: 'read_note', arguments: { path: 'a.txt' } }])
    expect(result?.error?.code).not.toBe('E_DENIED')
    await host.close()
  }

  test('by default every decision goes to .toolhost/audit.jsonl under the root', async () => {
    await runOne({})
    expect(readFileSync(path.join(root, '.toolhost/audit.jsonl'), 'utf8')).toMatch(/"callId":"r1"/)
  })

  test('audit: a path (relative to the root) moves the log', async () => {
    await runOne({ audit: 'logs/decisions.jsonl' })
    expect(readFileSync(path.join(root, 'logs/decisions.jsonl'), 'utf8')).toMatch(/"callId":"r1"/)
    expect(existsSync(path.join(root, '.toolhost/audit.jsonl'))).toBe(false)
  })

  test.each([
    { how: 'audit: false', options: { audit: false as const }, config: {} },
    { how: 'permissions.audit_log: ""', options: {}, config: { permissions: { audit_log: '' } } },
    { how: 'audit: false over a configured path', options: { audit: false as const }, config: { permissions: { audit_log: 'logs/x.jsonl' } } },
  ])('$how writes no audit file at all', async ({ options, config }) => {
    await runOne(options, config)
    expect(existsSync(path.join(root, '.toolhost'))).toBe(false)
    expect(existsSync(path.join(root, 'logs'))).toBe(false)
  })

  test('doctor says the audit log is off', async () => {
    let stdout = ''
    const config = path.join(root, 'config.yaml')
    writeFileSync(config, 'env_file: ""\nplugins:\n  dirs: []\n  builtins: false\npermissions:\n  audit_log: ""\n')
    await main(['doctor', '--config', config], { out: (t) => (stdout += t + '\n'), err: () => {} })
    expect(stdout).toMatch(/^permissions: +ask, 0 rules \(allow 0, ask 0, deny 0\), audit log off$/m)
  })
})
