import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { reloadFile, watchPlugins, type ReloadEvent } from '../../src/loader/watch-plugins.js'
import { registry } from '../../src/registry/registry.js'
import { createHost } from '../../src/host/create-host.js'
import { silentLogger } from '../../src/contract/logger.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-watch-'))
afterAll(() => {
  for (const t of registry.list()) if (registry.entry(t.name)?.source?.startsWith(dir)) registry.unregister(t.name)
  rmSync(dir, { recursive: true, force: true })
})

const pluginText = (tool: string, version: string, extra = ''): string => `import { defineTool, registry } from 'toolhost'
registry.register(defineTool({ name: ${JSON.stringify(tool)}, description: ${JSON.stringify(version)}, parameters: { type: 'object' }, handler: () => ${JSON.stringify(version)} }))
${extra}
`

describe('reloadFile: brings the registry in line with one plugin file', () => {
  const file = path.join(dir, 'reload-me.ts')
  test.each<{ step: string; write: string | null; kind: ReloadEvent['kind'] | undefined; description: string | undefined }>([
    { step: 'a new file is loaded', write: pluginText('wp_one', 'v1'), kind: 'loaded', description: 'v1' },
    { step: 'a changed file is re-imported fresh', write: pluginText('wp_one', 'v2'), kind: 'reloaded', description: 'v2' },
    { step: 'a version that throws keeps the old tools', write: pluginText('wp_one', 'v3', "throw new Error('v3 is broken')"), kind: 'failed', description: 'v2' },
    { step: 'a version with a syntax error keeps the old tools', write: 'export const = ;', kind: 'failed', description: 'v2' },
    { step: 'a fixed version loads again', write: pluginText('wp_one', 'v4'), kind: 'reloaded', description: 'v4' },
    { step: 'a removed file drops its tools', write: null, kind: 'removed', description: undefined },
    { step: 'removing it again changes nothing', write: null, kind: undefined, description: undefined },
  ])('$step', async ({ write, kind, description }) => {
    if (write === null) rmSync(file, { force: true })
    else writeFileSync(file, write)
    const event = await reloadFile(file, registry)
    expect(event?.kind).toBe(kind)
    expect(registry.get('wp_one')?.description).toBe(description)
    if (event?.kind === 'failed') expect(event.kept).toEqual(['wp_one'])
    if (description !== undefined) expect(registry.entry('wp_one')?.source).toBe(file)
  })
})

describe('watchPlugins: fs events drive reloads (debounced)', () => {
  test('add, change and remove a file in a watched folder; test files are ignored', async () => {
    const watched = path.join(dir, 'watched')
    mkdirSync(watched)
    const events: ReloadEvent[] = []
    const watcher = watchPlugins([watched], registry, { debounceMs: 30, onReload: (e) => events.push(e) })
    const file = path.join(watched, 'live.ts')
    const waitFor = async (kind: ReloadEvent['kind']): Promise<void> => {
      const until = Date.now() + 15_000
      while (!events.some((e) => e.kind === kind && e.file === file)) {
        if (Date.now() > until) throw new Error(`no ${kind} event; got ${JSON.stringify(events)}`)
        await new Promise((r) => setTimeout(r, 20))
        await watcher.idle()
      }
    }
    try {
      writeFileSync(path.join(watched, 'live.test.ts'), 'throw new Error("a test file must not be imported")')
      writeFileSync(file, pluginText('wp_live', 'first'))
      await waitFor('loaded')
      expect(registry.get('wp_live')?.description).toBe('first')
      writeFileSync(file, pluginText('wp_live', 'second'))
      await waitFor('reloaded')
      expect(registry.get('wp_live')?.description).toBe('second')
      rmSync(file)
      await waitFor('removed')
      expect(registry.has('wp_live')).toBe(false)
      expect(events.every((e) => e.file === file)).toBe(true)
    } finally {
      watcher.close()
    }
  })
})

describe('plugins.watch in config turns hot reload on for an embedded host', () => {
  test('createHost starts the watcher; a new file registers; close stops it', async () => {
    const folder = path.join(dir, 'embedded')
    mkdirSync(folder)
    const host = await createHost({ config: { plugins: { dirs: [folder], watch: true }, env_file: '', permissions: { mode: 'bypass' } }, log: silentLogger })
    const watcher = host.services.pluginWatcher
    expect(watcher).toBeDefined()
    try {
      writeFileSync(path.join(folder, 'late.ts'), pluginText('wp_embedded', 'late'))
      const until = Date.now() + 15_000
      while (!host.registry.has('wp_embedded')) {
        if (Date.now() > until) throw new Error('the new plugin file was not loaded')
        await new Promise((r) => setTimeout(r, 20))
        await watcher!.idle()
      }
      const [result] = await host.run([{ id: 'e', name: 'wp_embedded', arguments: {} }])
      expect(result).toMatchObject({ ok: true, content: 'late' })
    } finally {
      await host.close()
    }
  })

  test('without plugins.watch there is no watcher', async () => {
    const host = await createHost({ config: { plugins: { dirs: [] }, env_file: '' }, log: silentLogger })
    try {
      expect(host.services.pluginWatcher).toBeUndefined()
    } finally {
      await host.close()
    }
  })
})
