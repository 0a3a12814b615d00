// The control plane out of the model's reach (issue 32.2), as a model that edits files meets it: in
// every mode, and with every approval given, `write_file` and `patch` of the config file,
// a plugin folder, .env, a hook's script or .toolhost/ are refused with E_CONTROL_PLANE, even with
// workspace.deny emptied; a rule naming one exact path opens that path only.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { silentLogger } from '../../src/contract/logger.js'
import { approveEverything } from '../../src/permissions/approvals.js'

let root: string
let host: Host | undefined

const CONFIG = 'workspace: { deny: [] }\nhooks:\n  before_call: [{ tools: "never_called", command: "./hooks/check.sh" }]\nplugins: { builtins: [files] }\n'

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-control-plane-')))
  mkdirSync(path.join(root, 'plugins'))
  mkdirSync(path.join(root, 'hooks'))
  writeFileSync(path.join(root, 'hooks', 'check.sh'), '#!/bin/sh\nexit 0\n')
  writeFileSync(path.join(root, 'config.yaml'), CONFIG)
  writeFileSync(path.join(root, '.env'), 'A=1\n')
})

afterEach(async () => {
  await host?.close()
  host = undefined
  rmSync(root, { recursive: true, force: true })
})

async function hostIn(mode: 'ask' | 'accept-edits' | 'auto' | 'bypass', extraYaml = ''): Promise<Host> {
  if (extraYaml !== '') writeFileSync(path.join(root, 'config.yaml'), CONFIG + extraYaml)
  host = await createHost({ root, cwd: root, config: path.join(root, 'config.yaml'), permissionMode: mode, approve: approveEverything, audit: false, log: silentLogger, env: {} })
  return host
}

const TARGETS = ['config.yaml', 'plugins/evil.mjs', '.env', 'hooks/check.sh', '.toolhost/store/state.json', '.toolhost/processes.json', './plugins/../config.yaml']

describe.each(['ask', 'accept-edits', 'auto', 'bypass'] as const)('in %s mode', (mode) => {
  test.each(TARGETS)('write_file %s is E_CONTROL_PLANE and writes nothing', async (target) => {
    const h = await hostIn(mode)
    const before = existsSync(path.join(root, target)) ? readFileSync(path.join(root, target), 'utf8') : undefined
    const result = await h.call({ id: 'w', name: 'write_file', arguments: { path: target, content: 'hooks: { before_call: [{ tools: "*", command: "touch pwned" }] }\n' } })
    expect(result.error?.code).toBe('E_CONTROL_PLANE')
    expect(result.content).toContain('the person edits it')
    expect(existsSync(path.join(root, target)) ? readFileSync(path.join(root, target), 'utf8') : undefined).toBe(before)
  })

  test('patch of config.yaml (string and diff mode) is E_CONTROL_PLANE', async () => {
    const h = await hostIn(mode)
    const [byString, byDiff] = await h.run([
      { id: 's', name: 'patch', arguments: { path: 'config.yaml', old_string: 'deny: []', new_string: 'deny: [x]' } },
      { id: 'd', name: 'patch', arguments: { diff: '--- a/config.yaml\n+++ b/config.yaml\n@@ -1,1 +1,1 @@\n-workspace: { deny: [] }\n+workspace: { deny: [x] }\n' } },
    ])
    expect([byString!.error?.code, byDiff!.error?.code]).toEqual(['E_CONTROL_PLANE', 'E_CONTROL_PLANE'])
    expect(readFileSync(path.join(root, 'config.yaml'), 'utf8')).toBe(CONFIG)
  })

  test('an ordinary file is written as before', async () => {
    const h = await hostIn(mode)
    const result = await h.call({ id: 'w', name: 'write_file', arguments: { path: 'notes/plugins.md', content: 'hi' } })
    expect(result).toMatchObject({ ok: true })
  })
})

test('an allow rule naming the exact path opens that path only; a glob opens nothing', async () => {
  const h = await hostIn('bypass', 'permissions:\n  allow: ["write_file(.env)", "write_file(plugins/**)"]\n')
  const [env, plugin] = await h.run([
    { id: 'e', name: 'write_file', arguments: { path: '.env', content: 'A=2\n' } },
    { id: 'p', name: 'write_file', arguments: { path: 'plugins/evil.mjs', content: 'x' } },
  ])
  expect(env).toMatchObject({ ok: true })
  expect(plugin!.error?.code).toBe('E_CONTROL_PLANE')
})

test('reading the control plane is not refused (a saved result, the config)', async () => {
  const h = await hostIn('bypass')
  expect(await h.call({ id: 'r', name: 'read_file', arguments: { path: 'config.yaml' } })).toMatchObject({ ok: true })
})
