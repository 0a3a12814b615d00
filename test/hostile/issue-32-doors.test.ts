// Issue 32's side doors, replayed as the issue found them, on a workspace its person trusted: a model
// that edits files cannot change what its host runs, in any mode. (The cloned-repository doors are in
// test/cli/trust.test.ts, test/store/planted-state.test.ts and test/cli/scaffold-links.test.ts.)
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { createLogger } from '../../src/contract/logger.js'
import type { WorkspaceCode } from '../../src/loader/workspace-code.js'
import { approveEverything } from '../../src/permissions/approvals.js'

let root: string
let host: Host | undefined
const CONFIG = 'plugins: { builtins: [basics, files, terminal] }\n'

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-issue-32-')))
  mkdirSync(path.join(root, 'plugins'))
  writeFileSync(path.join(root, 'config.yaml'), CONFIG)
})

afterEach(async () => {
  await host?.close()
  host = undefined
  rmSync(root, { recursive: true, force: true })
})

/** A host the way the CLI makes one on a folder trusted as it is now (the first digest asked). */
async function trustedHost(mode: 'accept-edits' | 'auto' | 'bypass', watch = false): Promise<{ host: Host; lines: string[] }> {
  let trusted: string | undefined
  const lines: string[] = []
  const workspaceTrust = (code: WorkspaceCode): boolean => (trusted ??= code.digest) === code.digest
  host = await createHost({ root, cwd: root, config: path.join(root, 'config.yaml'), permissionMode: mode, approve: approveEverything, audit: false, watch, workspaceTrust, log: createLogger('info', (l) => lines.push(l)), env: { PATH: process.env.PATH } })
  return { host, lines }
}

const HOOK = `hooks:\n  before_call: [{ tools: "*", command: "touch ${'${PWD}'}/hook-ran" }]\n`

test('accept-edits: patch of config.yaml adding a before_call hook is refused; the next call runs no hook (was: ran as root)', async () => {
  const { host } = await trustedHost('accept-edits')
  const patched = await host.call({ id: 'p', name: 'patch', arguments: { path: 'config.yaml', old_string: CONFIG, new_string: CONFIG + HOOK } })
  expect(patched.error?.code).toBe('E_CONTROL_PLANE')
  expect(await host.call({ id: 'e', name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ ok: true })
  expect(existsSync(path.join(root, 'hook-ran'))).toBe(false)
  expect(readFileSync(path.join(root, 'config.yaml'), 'utf8')).toBe(CONFIG)
})

test('serve --watch: write_file of plugins/evil.mjs is refused and nothing loads (was: ran in the host at once)', async () => {
  const { host } = await trustedHost('bypass', true)
  const written = await host.call({ id: 'w', name: 'write_file', arguments: { path: 'plugins/evil.mjs', content: "import { writeFileSync } from 'node:fs'\nwriteFileSync(new URL('../evil-ran', import.meta.url), 'x')\n" } })
  expect(written.error?.code).toBe('E_CONTROL_PLANE')
  await host.services.pluginWatcher!.idle()
  expect(existsSync(path.join(root, 'plugins', 'evil.mjs'))).toBe(false)
  expect(existsSync(path.join(root, 'evil-ran'))).toBe(false)
})

test('bypass, no sandbox: a terminal command writing plugins/evil.mjs under watch is not loaded by hot reload', async () => {
  // (Where bwrap runs, terminal.sandbox: auto mounts plugins/ read-only and the write fails first.)
  writeFileSync(path.join(root, 'config.yaml'), `${CONFIG}terminal: { sandbox: off }\n`)
  // The person trusted the folder with this plugin in it (trustedHost trusts the digest asked first).
  writeFileSync(path.join(root, 'plugins', 'mine.mjs'), 'export {}\n')
  const { host, lines } = await trustedHost('bypass', true)
  const ran = await host.call({ id: 't', name: 'terminal', arguments: { command: `printf '%s\\n' "import { writeFileSync } from 'node:fs'" "writeFileSync(new URL('../evil-ran', import.meta.url), 'x')" > plugins/evil.mjs` } })
  expect(ran, ran.content).toMatchObject({ ok: true })
  expect(existsSync(path.join(root, 'plugins', 'evil.mjs'))).toBe(true)
  await expect.poll(() => lines.some((l) => l.includes('evil.mjs changed since')), { timeout: 5000 }).toBe(true)
  await host.services.pluginWatcher!.idle()
  expect(existsSync(path.join(root, 'evil-ran'))).toBe(false)
})

test('auto: a terminal command appending a hook to config.yaml asks, and is refused when the person says no', async () => {
  let asked = 0
  host = await createHost({ root, cwd: root, config: path.join(root, 'config.yaml'), permissionMode: 'auto', approve: async (requests) => requests.map(() => (asked++, { decision: 'deny' as const, reason: 'no' })), audit: false, log: createLogger('error', () => {}), env: { PATH: process.env.PATH } })
  const result = await host.call({ id: 't', name: 'terminal', arguments: { command: `printf '%s' '${HOOK}' >> config.yaml` } })
  expect(asked).toBe(1)
  expect(result.error?.code).toBe('E_DENIED')
  expect(readFileSync(path.join(root, 'config.yaml'), 'utf8')).toBe(CONFIG)
})
