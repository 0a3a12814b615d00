// Hot reload never drops calls, and a plugin cannot hang start-up (issue 12, items 10 and 21).
// Before: a file's tools were unregistered before its re-import, so ~18% of calls during 200
// rewrites got "Unknown tool"; and a plugin whose import never settled hung start-up, naming nothing.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import { loadPlugins } from '../../src/loader/load-plugins.js'
import { reloadFile } from '../../src/loader/watch-plugins.js'
import { silentLogger } from '../../src/contract/logger.js'
import { registry } from '../../src/registry/registry.js'
import type { ToolResult } from '../../src/contract/types.js'

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-reload-gaps-')))
afterAll(() => {
  for (const t of registry.list()) if (registry.entry(t.name)?.source?.startsWith(dir)) registry.unregister(t.name)
  rmSync(dir, { recursive: true, force: true })
})

const version = (n: number, extra = ''): string => `import { defineTool, registry } from 'toolhost'
// Each version does a little work on import, as real plugins do, so a re-import takes a few turns.
await new Promise((resolve) => setTimeout(resolve, 1))
registry.register(defineTool({ name: 'rg_live', description: 'version ${n}', parameters: { type: 'object' }, parallelSafe: true, handler: () => 'v${n}' }))
registry.register(defineTool({ name: 'rg_twin', description: 'version ${n}', parameters: { type: 'object', $id: 'rg-twin-schema' }, parallelSafe: true, handler: () => 'v${n}' }))
${extra}
`

describe('hot reload swaps a file\'s tools only after a successful import', () => {
  test('calls hammering the tools during 40 rewrites (some broken) never find them missing', async () => {
    const file = path.join(dir, 'live.mts')
    writeFileSync(file, version(0))
    expect((await reloadFile(file, registry))?.kind).toBe('loaded')
    const host = await createHost({ root: dir, loadPlugins: false, log: silentLogger, config: { env_file: '', permissions: { mode: 'bypass' } } })
    let rewriting = true
    const results: ToolResult[] = []
    const hammer = (async () => {
      let n = 0
      while (rewriting) {
        results.push(...(await host.run([{ id: `a${n}`, name: 'rg_live', arguments: {} }, { id: `b${n}`, name: 'rg_twin', arguments: {} }])))
        n++
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    const kinds: string[] = []
    for (let i = 1; i <= 40; i++) {
      // Every fifth version throws after registering: it must change nothing.
      writeFileSync(file, version(i, i % 5 === 0 ? "throw new Error('broken version')" : ''))
      kinds.push((await reloadFile(file, registry))?.kind ?? 'none')
    }
    rewriting = false
    await hammer
    await host.close()
    expect(kinds.filter((k) => k === 'failed')).toHaveLength(8)
    expect(kinds.filter((k) => k === 'reloaded')).toHaveLength(32)
    expect(results.length).toBeGreaterThan(0)
    expect(results.filter((r) => !r.ok)).toEqual([])
    expect(registry.get('rg_live')?.description).toBe('version 39')
  })
})

describe('plugins.import_timeout_ms', () => {
  test('a plugin whose import never settles is reported as failed, naming the file and the limit; the rest load', async () => {
    const plugins = path.join(dir, 'hangs')
    mkdirSync(plugins)
    writeFileSync(path.join(plugins, 'a-hangs.mjs'), "import { defineTool, registry } from 'toolhost'\nregistry.register(defineTool({ name: 'rg_never', description: 'never', parameters: { type: 'object' }, handler: () => 'x' }))\nawait new Promise(() => {})\n")
    writeFileSync(path.join(plugins, 'b-fine.mjs'), "import { defineTool, registry } from 'toolhost'\nregistry.register(defineTool({ name: 'rg_fine', description: 'fine', parameters: { type: 'object' }, handler: () => 'x' }))\n")
    // Plain .mjs files (no TypeScript to compile), and a limit well above what a busy machine needs
    // to import one: the fine file must not time out too.
    const report = await loadPlugins([plugins], registry, { importTimeoutMs: 3000 })
    expect(report.loaded).toEqual([path.join(plugins, 'b-fine.mjs')])
    expect(report.failed).toEqual([{
      file: path.join(plugins, 'a-hangs.mjs'),
      code: 'E_PLUGIN_LOAD',
      message: `${path.join(plugins, 'a-hangs.mjs')} did not finish loading within 3000 ms (plugins.import_timeout_ms): its import waits for something (a top-level await, a connection) that has not come; none of its tools are registered`,
    }])
    expect(registry.has('rg_never')).toBe(false)
    expect(registry.has('rg_fine')).toBe(true)
  })
})
