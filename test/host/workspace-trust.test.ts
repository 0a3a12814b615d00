// createHost's `workspaceTrust` (issue 32.1, 32.2): a workspace's own plugin folders, hooks commands
// and MCP servers run only when the gate trusts them; an embedding without a gate runs its config as
// written; under a gate, neither a reloaded config nor hot reload brings in code that was not trusted.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { createLogger } from '../../src/contract/logger.js'
import type { WorkspaceCode } from '../../src/loader/workspace-code.js'

let root: string
const hosts: Host[] = []
// Plugin files register into the process's registry: each test's tool has a name of its own.
let n = 0
let theirs = ''

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-ws-trust-')))
  theirs = `theirs_${++n}`
  mkdirSync(path.join(root, 'plugins'))
  writeFileSync(path.join(root, 'plugins', 'theirs.mjs'), `import { writeFileSync } from 'node:fs'
import { defineTool, registry } from 'toolhost'
writeFileSync(new URL('../plugin-ran', import.meta.url), 'x')
registry.register(defineTool({ name: '${theirs}', description: 'x', parameters: { type: 'object' }, handler: () => 'theirs ran' }))
`)
  writeFileSync(path.join(root, 'config.yaml'), 'hooks:\n  before_call: [{ tools: "*", command: "touch hook-ran" }]\nmcp_servers:\n  db: { command: sh, args: ["-c", "touch server-ran"] }\nplugins: { builtins: [basics] }\n')
})

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
  rmSync(root, { recursive: true, force: true })
})

async function hostOf(options: { workspaceTrust?: (code: WorkspaceCode) => boolean; watch?: boolean }): Promise<{ host: Host; lines: string[] }> {
  const lines: string[] = []
  const host = await createHost({ root, cwd: root, config: path.join(root, 'config.yaml'), log: createLogger('info', (l) => lines.push(l)), env: {}, permissionMode: 'bypass', audit: false, ...options })
  hosts.push(host)
  return { host, lines }
}

describe('workspaceTrust', () => {
  test('answering false: no plugin of the folder, no hook, no MCP server; one warning; untrustedCode says what', async () => {
    const asked: WorkspaceCode[] = []
    const { host, lines } = await hostOf({ workspaceTrust: (code) => (asked.push(code), false) })
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ root, pluginFiles: [path.join(root, 'plugins', 'theirs.mjs')], hookCommands: 1, mcpServers: ['db'] })
    expect(host.registry.get(theirs)).toBeUndefined()
    expect(host.config.hooks.before_call).toEqual([])
    expect(host.services.mcpClients).toBeUndefined()
    const result = await host.call({ id: '1', name: 'echo', arguments: { text: 'hi' } })
    expect(result).toMatchObject({ ok: true, content: 'hi' })
    expect(host.untrustedCode?.digest).toBe(asked[0]!.digest)
    expect(lines.filter((l) => l.includes('not trusted'))).toHaveLength(1)
    expect(['plugin-ran', 'hook-ran', 'server-ran'].map((f) => existsSync(path.join(root, f)))).toEqual([false, false, false])
  })

  test('answering true: the folder runs as configured', async () => {
    // (Without its MCP server: a server's command runs in the process's folder, not the root.)
    writeFileSync(path.join(root, 'config.yaml'), 'hooks:\n  before_call: [{ tools: "*", command: "touch hook-ran" }]\nplugins: { builtins: [basics] }\n')
    const { host } = await hostOf({ workspaceTrust: () => true })
    expect(host.registry.get(theirs)).toBeDefined()
    expect(host.config.hooks.before_call).toHaveLength(1)
    expect(host.untrustedCode).toBeUndefined()
  })

  test('no gate (an embedding): its config is its own and runs; nothing is asked', async () => {
    writeFileSync(path.join(root, 'config.yaml'), 'plugins: { builtins: [basics] }\n')
    const { host } = await hostOf({})
    expect(host.registry.get(theirs)).toBeDefined()
    expect(existsSync(path.join(root, 'plugin-ran'))).toBe(true)
  })

  test('a config named from outside the root is the person\'s own: not asked about', async () => {
    const mine = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-ws-mine-')))
    try {
      writeFileSync(path.join(mine, 'config.yaml'), `plugins: { builtins: [basics], dirs: [${JSON.stringify(path.join(root, 'plugins'))}] }\n`)
      let asked = 0
      const host = await createHost({ root, cwd: root, config: path.join(mine, 'config.yaml'), log: createLogger('error', () => {}), env: {}, workspaceTrust: () => (asked++, false) })
      hosts.push(host)
      expect(asked).toBe(0)
      expect(host.registry.get(theirs)).toBeDefined()
    } finally {
      rmSync(mine, { recursive: true, force: true })
    }
  })

  test('under a gate, a hook added to the config file while the host runs is not taken (issue 32.2)', async () => {
    writeFileSync(path.join(root, 'config.yaml'), 'plugins: { builtins: [basics], dirs: [] }\n')
    const { host, lines } = await hostOf({ workspaceTrust: () => true, watch: true })
    writeFileSync(path.join(root, 'config.yaml'), 'plugins: { builtins: [basics], dirs: [] }\nhooks:\n  before_call: [{ tools: "*", command: "touch hook-ran" }]\n')
    await expect.poll(() => lines.some((l) => l.includes('hooks changed in the config file')), { timeout: 5000 }).toBe(true)
    await host.services.configWatcher!.idle()
    expect(host.config.hooks.before_call).toEqual([])
    await host.call({ id: '1', name: 'echo', arguments: { text: 'hi' } })
    expect(existsSync(path.join(root, 'hook-ran'))).toBe(false)
  })

  test('under a gate, hot reload does not load a plugin file written after trust (issue 32.2)', async () => {
    writeFileSync(path.join(root, 'config.yaml'), 'plugins: { builtins: [basics] }\n')
    let trusted: string | undefined
    const { host, lines } = await hostOf({ workspaceTrust: (code) => (trusted ??= code.digest) === code.digest, watch: true })
    expect(host.registry.get(theirs)).toBeDefined()
    writeFileSync(path.join(root, 'plugins', 'planted.mjs'), `import { defineTool, registry } from 'toolhost'\nregistry.register(defineTool({ name: 'planted_${n}', description: 'x', parameters: { type: 'object' }, handler: () => 'planted ran' }))\n`)
    await expect.poll(() => lines.some((l) => l.includes('planted.mjs changed since')), { timeout: 5000 }).toBe(true)
    await host.services.pluginWatcher!.idle()
    expect(host.registry.get(`planted_${n}`)).toBeUndefined()
  })
})
