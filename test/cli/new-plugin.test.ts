import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { writePluginFiles } from '../../src/cli/new-plugin.js'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { registry } from '../../src/registry.js'
import { makeTempDir } from '../mcp/serve-helpers.js'

const tmp = makeTempDir('toolhost-new-plugin-')
afterAll(() => tmp.remove())

describe('toolhost new-plugin NAME', () => {
  test.each(['', 'Weather', '1st', 'with-dash', 'a/b', '../escape', 'x'.repeat(65), 'spaces here'])('refuses the name %j', (name) => {
    const cwd = path.join(tmp.dir, 'refused')
    expect(() => writePluginFiles(name, cwd)).toThrow(expect.objectContaining({ code: 'E_USAGE' }))
    expect(existsSync(path.join(cwd, 'plugins'))).toBe(false)
  })

  test('writes the plugin and its test from the templates; the plugin loads and its tool runs', async () => {
    const cwd = path.join(tmp.dir, 'fresh')
    const written = writePluginFiles('np_weather', cwd)
    expect(written).toEqual({ plugin: path.join(cwd, 'plugins/np_weather.ts'), test: path.join(cwd, 'test/plugins/np_weather.test.ts') })
    const pluginText = readFileSync(written.plugin, 'utf8')
    expect(pluginText).toContain("name: 'np_weather'")
    expect(pluginText).not.toContain('__NAME__')
    const testText = readFileSync(written.test, 'utf8')
    expect(testText).toContain("name: 'np_weather'")
    expect(testText).not.toMatch(/__[A-Z_]+__/)
    const loaded = await loadPluginFile(written.plugin, registry)
    try {
      expect(loaded).toEqual({ ok: true, tools: ['np_weather'] })
      const tool = registry.get('np_weather')!
      const progress: string[] = []
      expect(await tool.handler({ text: 'hi' }, { progress: (m: string) => progress.push(m) } as never)).toBe('np_weather got: hi')
      expect(progress).toEqual(['working on 2 characters'])
    } finally {
      registry.unregisterSource(written.plugin)
    }
  })

  test('never overwrites: an existing test file stops both files from being written', () => {
    const cwd = path.join(tmp.dir, 'taken')
    mkdirSync(path.join(cwd, 'test/plugins'), { recursive: true })
    writeFileSync(path.join(cwd, 'test/plugins/np_taken.test.ts'), 'mine')
    expect(() => writePluginFiles('np_taken', cwd)).toThrow(/already exists/)
    expect(existsSync(path.join(cwd, 'plugins/np_taken.ts'))).toBe(false)
    expect(readFileSync(path.join(cwd, 'test/plugins/np_taken.test.ts'), 'utf8')).toBe('mine')
  })

  test('the CLI without a name is a usage error (exit 2)', async () => {
    const err: string[] = []
    expect(await main(['new-plugin'], { out: () => {}, err: (t) => err.push(t) })).toBe(2)
    expect(err.join('\n')).toContain('new-plugin needs a name')
  })
})
