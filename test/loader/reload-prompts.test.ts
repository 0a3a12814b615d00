// Hot reload of plugin files that offer prompts and resources: they are replaced, kept or removed
// with their file exactly as tools are (src/loader/watch-plugins.ts reloadFile), and a file that
// offers only prompts counts as loaded.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { reloadFile, type ReloadEvent } from '../../src/loader/watch-plugins.js'
import type { ListChange } from '../../src/registry/prompt-entries.js'
import { registry } from '../../src/registry/registry.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-reload-prompts-'))
const changes: ListChange[] = []
const stop = registry.promptsAndResources.onListChanged((c) => changes.push(c))
afterAll(() => {
  stop()
  registry.unregisterSource(path.join(dir, 'offers.ts'))
  rmSync(dir, { recursive: true, force: true })
})

const promptText = (version: string): string =>
  `registry.register(definePrompt({ name: 'rp_prompt', description: ${JSON.stringify(version)}, handler: () => ${JSON.stringify(version)} }))\n`
const resourceText = "registry.register(defineResource({ uriTemplate: 'rp://{name}', name: 'rp', description: 'd', mimeType: 'text/plain', read: (uri, vars) => vars.name }))\n"
const plugin = (...lines: string[]): string => `import { definePrompt, defineResource, registry } from 'toolhost'\n${lines.join('')}`

describe('reloadFile with a file of prompts and resources', () => {
  const file = path.join(dir, 'offers.ts')
  const prompts = registry.promptsAndResources
  test.each<{ step: string; write: string | null; kind: ReloadEvent['kind'] | undefined; description: string | undefined; resource: boolean; change?: ListChange }>([
    { step: 'a file with only a prompt is loaded', write: plugin(promptText('v1')), kind: 'loaded', description: 'v1', resource: false, change: { prompts: true, resources: false } },
    { step: 'a changed file replaces its prompt and adds a template', write: plugin(promptText('v2'), resourceText), kind: 'reloaded', description: 'v2', resource: true, change: { prompts: true, resources: true } },
    { step: 'a version that throws keeps both serving', write: plugin(promptText('v3'), resourceText, "throw new Error('v3 is broken')\n"), kind: 'failed', description: 'v2', resource: true },
    { step: 'a version that registers a bad template keeps both serving', write: plugin(promptText('v4'), resourceText.replace('rp://{name}', 'rp://{+name}')), kind: 'failed', description: 'v2', resource: true },
    { step: 'a version without the template drops it', write: plugin(promptText('v5')), kind: 'reloaded', description: 'v5', resource: false, change: { prompts: true, resources: true } },
    { step: 'a removed file drops its prompt', write: null, kind: 'removed', description: undefined, resource: false, change: { prompts: true, resources: false } },
    { step: 'removing it again changes nothing', write: null, kind: undefined, description: undefined, resource: false },
  ])('$step', async ({ write, kind, description, resource, change }) => {
    if (write === null) rmSync(file, { force: true })
    else writeFileSync(file, write)
    changes.length = 0
    const event = await reloadFile(file, registry)
    expect(event?.kind).toBe(kind)
    expect(prompts.getPrompt('rp_prompt')?.prompt.description).toBe(description)
    expect(prompts.getResource('rp://{name}') !== undefined).toBe(resource)
    expect(changes).toEqual(change === undefined ? [] : [change])
    if (description !== undefined) {
      expect(prompts.getPrompt('rp_prompt')?.source).toBe(file)
      await expect(prompts.renderPrompt('rp_prompt')).resolves.toMatchObject({ messages: [{ content: { text: description } }] })
    }
  })

  test('loading a prompt-only file again (a second host) keeps its prompt and does not import it again', async () => {
    const counter = globalThis as { rpImports?: number }
    writeFileSync(file, plugin(promptText('again'), 'const counter = globalThis as { rpImports?: number }\ncounter.rpImports = (counter.rpImports ?? 0) + 1\n'))
    await reloadFile(file, registry)
    const imports = counter.rpImports
    expect(imports).toBeGreaterThan(0)
    await expect(loadPluginFile(file, registry)).resolves.toEqual({ ok: true, tools: [] })
    expect(prompts.getPrompt('rp_prompt')?.prompt.description).toBe('again')
    expect(counter.rpImports).toBe(imports)
  })
})
