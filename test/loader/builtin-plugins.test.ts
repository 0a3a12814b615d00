import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeEach, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import { BUILTIN_TOOLSETS } from '../../src/config/builtin-toolsets.js'
import { BUILTIN_PLUGINS_DIR, builtinPluginFiles } from '../../src/loader/builtin-plugins.js'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { silentLogger } from '../../src/contract/logger.js'
import { registry } from '../../src/registry/registry.js'

// The package's own tools load wherever the host runs (plugins.builtins), not only under ./plugins.
const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'toolhost-builtins-'))
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }))
beforeEach(() => registry.clear())

const hostIn = (config: Record<string, unknown>) =>
  createHost({ cwd: elsewhere, root: elsewhere, log: silentLogger, config: { env_file: '', ...config } })

describe('the built-in plugins', () => {
  test('BUILTIN_TOOLSETS names every built-in plugin file, and each file registers exactly the toolsets it is listed under', async () => {
    const files = readdirSync(BUILTIN_PLUGINS_DIR).filter((f) => /\.ts$/.test(f)).map((f) => f.replace(/\.ts$/, '')).sort()
    expect([...new Set(Object.values(BUILTIN_TOOLSETS).flat())].sort()).toEqual(files)
    for (const file of files) {
      registry.clear()
      const outcome = await loadPluginFile(path.join(BUILTIN_PLUGINS_DIR, `${file}.ts`), registry)
      expect(outcome.ok).toBe(true)
      const toolsets = [...new Set(registry.list().map((t) => t.toolset))].sort()
      expect(toolsets).toEqual(Object.keys(BUILTIN_TOOLSETS).filter((set) => BUILTIN_TOOLSETS[set]!.includes(file)))
    }
  })

  test('createHost in a folder with no plugins/ has every built-in tool by default', async () => {
    const host = await hostIn({})
    try {
      expect(host.pluginReport.failed).toEqual([])
      expect(host.pluginReport.loaded).toEqual(builtinPluginFiles(true))
      expect(host.registry.list().map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'read_file', 'write_file', 'patch', 'search_files', 'terminal', 'process', 'clarify']))
    } finally {
      await host.close()
    }
  })

  test.each([
    { builtins: false, toolsets: [] },
    { builtins: ['basics'], toolsets: ['basics'] },
    { builtins: ['files', 'interaction'], toolsets: ['files', 'interaction'] },
  ])('plugins.builtins: $builtins loads the toolsets $toolsets', async ({ builtins, toolsets }) => {
    const host = await hostIn({ plugins: { builtins } })
    try {
      expect(host.registry.toolsets()).toEqual(toolsets)
    } finally {
      await host.close()
    }
  })

  test('an unknown toolset in plugins.builtins stops start-up naming the key and the toolsets there are', async () => {
    await expect(hostIn({ plugins: { builtins: ['basics', 'filez'] } })).rejects.toThrow(
      expect.objectContaining({ code: 'E_CONFIG_INVALID', message: expect.stringMatching(/key `plugins\.builtins\.1`: must be one of "basics", "files", "interaction", "notify", "terminal", "web"/) }),
    )
  })

  test('the repository plugins/ folder named as a plugin folder too does not register its tools twice', async () => {
    const host = await hostIn({ plugins: { dirs: [BUILTIN_PLUGINS_DIR] } })
    try {
      expect(host.pluginReport.failed).toEqual([])
      expect(host.pluginReport.loaded).toEqual(builtinPluginFiles(true))
    } finally {
      await host.close()
    }
  })
})
