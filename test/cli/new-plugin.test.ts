import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { writePluginFiles } from '../../src/cli/new-plugin.js'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { registry } from '../../src/registry/registry.js'
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
    const written = writePluginFiles('np_weather', cwd, { typescript: true, runner: 'vitest' })
    expect(written).toEqual({ plugin: path.join(cwd, 'plugins/np_weather.ts'), test: path.join(cwd, 'test/plugins/np_weather.test.ts'), runner: 'vitest' })
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
      expect(await tool.handler({ text: 'hi' }, { report: { progress: (m: string) => progress.push(m) } } as never)).toBe('np_weather got: hi')
      expect(progress).toEqual(['working on 2 characters'])
    } finally {
      registry.unregisterSource(written.plugin)
    }
  })

  test('never overwrites: an existing test file stops both files from being written', () => {
    const cwd = path.join(tmp.dir, 'taken')
    mkdirSync(path.join(cwd, 'test/plugins'), { recursive: true })
    writeFileSync(path.join(cwd, 'test/plugins/np_taken.test.ts'), 'mine')
    expect(() => writePluginFiles('np_taken', cwd, { typescript: true, runner: 'vitest' })).toThrow(/already exists/)
    expect(existsSync(path.join(cwd, 'plugins/np_taken.ts'))).toBe(false)
    expect(readFileSync(path.join(cwd, 'test/plugins/np_taken.test.ts'), 'utf8')).toBe('mine')
  })

  test.each([
    { project: 'a TypeScript project with vitest', files: { 'package.json': { devDependencies: { vitest: '4', typescript: '5' } } }, plugin: 'plugins/np_kind.ts', test: 'test/plugins/np_kind.test.ts', runner: 'vitest' },
    { project: 'a TypeScript project without vitest', files: { 'package.json': { type: 'module' }, 'tsconfig.json': {} }, plugin: 'plugins/np_kind.ts', test: 'test/plugins/np_kind.test.mjs', runner: 'node' },
    { project: 'a JavaScript project with vitest', files: { 'package.json': { devDependencies: { vitest: '4' } } }, plugin: 'plugins/np_kind.mjs', test: 'test/plugins/np_kind.test.mjs', runner: 'vitest' },
    { project: 'a folder with no package.json', files: {}, plugin: 'plugins/np_kind.mjs', test: 'test/plugins/np_kind.test.mjs', runner: 'node' },
  ])('$project: the plugin is $plugin, the test $test for $runner', ({ project, files, plugin, test: testFile, runner }) => {
    const cwd = path.join(tmp.dir, project.replace(/\W+/g, '-'))
    mkdirSync(cwd, { recursive: true })
    for (const [name, json] of Object.entries(files)) writeFileSync(path.join(cwd, name), JSON.stringify(json))
    const written = writePluginFiles('np_kind', cwd)
    expect(written).toEqual({ plugin: path.join(cwd, plugin), test: path.join(cwd, testFile), runner })
    for (const file of [written.plugin, written.test]) {
      const text = readFileSync(file, 'utf8')
      // Pasteable into any project: the package by name, never a path into node_modules or src.
      expect(text).toMatch(/from 'toolhost'/)
      expect(text).not.toMatch(/node_modules|src\/index|__[A-Z_]+__/)
    }
    expect(readFileSync(written.test, 'utf8')).toContain(runner === 'vitest' ? "from 'vitest'" : "from 'node:test'")
  })

  test('the CLI prints what it wrote and the command that runs the test', async () => {
    const cwd = path.join(tmp.dir, 'cli-run')
    mkdirSync(cwd, { recursive: true })
    const out: string[] = []
    const before = process.cwd()
    process.chdir(cwd)
    try {
      expect(await main(['new-plugin', 'np_cli'], { out: (t) => out.push(t), err: () => {} })).toBe(0)
    } finally {
      process.chdir(before)
    }
    expect(out.join('\n')).toContain('next: edit the schema and handler, then run node --test test/plugins/np_cli.test.mjs')
  })

  test('the CLI without a name is a usage error (exit 2)', async () => {
    const err: string[] = []
    expect(await main(['new-plugin'], { out: () => {}, err: (t) => err.push(t) })).toBe(2)
    expect(err.join('\n')).toContain('new-plugin needs a name')
  })
})
