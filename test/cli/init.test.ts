// `toolhost init` (issue 24.4): a commented config.yaml, plugins/ with an example plugin and its
// test, .toolhost/ in .gitignore; never overwrites, and says what it left alone.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { loadConfig } from '../../src/config/load-config.js'
import { defaultConfig } from '../../src/config/defaults.js'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { registry } from '../../src/registry/registry.js'
import { makeTempDir } from '../mcp/serve-helpers.js'

const tmp = makeTempDir('toolhost-init-')
afterAll(() => tmp.remove())
// This file's own trust file: init trusts the folder it sets up (issue 32.1).
const trustFile = path.join(tmp.dir, 'trust', 'trust.json')
process.env.TOOLHOST_TRUST_FILE = trustFile

/** `toolhost init` run in `cwd`, in this process; what it printed and its exit code. */
async function init(cwd: string): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = []
  const before = process.cwd()
  process.chdir(cwd)
  try {
    const code = await main(['init'], { out: (t) => lines.push(...t.split('\n')), err: (t) => lines.push(`stderr: ${t}`) })
    return { code, lines }
  } finally {
    process.chdir(before)
  }
}

describe('toolhost init', () => {
  test('in an empty folder: writes config.yaml, the example plugin and its test, and .gitignore; says so', async () => {
    const cwd = path.join(tmp.dir, 'empty')
    mkdirSync(cwd)
    const run = await init(cwd)
    expect(run.code).toBe(0)
    expect(run.lines).toEqual([
      'wrote   config.yaml: every key at its default, with what it does',
      'wrote   plugins/hello.mjs: an example tool, hello',
      'wrote   test/plugins/hello.test.mjs: its test: node --test test/plugins/hello.test.mjs',
      "wrote   .gitignore: .toolhost/ (the host's own state) is not committed",
      `trusted ${cwd} to run the plugins init wrote (a change to them needs toolhost trust again; toolhost trust --revoke undoes it; ${trustFile})`,
      `next: npx toolhost list, then npx toolhost call hello '{"text":"hi"}'`,
    ])
    const trusted = JSON.parse(readFileSync(trustFile, 'utf8')) as { workspaces: Record<string, { by: string }> }
    expect(trusted.workspaces[realpathSync(cwd)]?.by).toBe('toolhost init')
    expect(readFileSync(path.join(cwd, '.gitignore'), 'utf8')).toBe("# toolhost's own state: audit log, saved results, process logs, checkpoints\n.toolhost/\n")
    // The config is commented, loads, and is the defaults: it changes nothing until edited.
    const config = readFileSync(path.join(cwd, 'config.yaml'), 'utf8')
    expect(config.split('\n').filter((l) => l.trimStart().startsWith('#')).length).toBeGreaterThan(50)
    expect(loadConfig({ file: path.join(cwd, 'config.yaml'), explicit: true, cwd }).config).toEqual(defaultConfig())
    // The example plugin loads and its tool answers.
    const plugin = path.join(cwd, 'plugins/hello.mjs')
    try {
      expect(await loadPluginFile(plugin, registry)).toEqual({ ok: true, tools: ['hello'] })
      expect(await registry.get('hello')!.handler({ text: 'hi' }, { report: { progress: () => {} } } as never)).toBe('hello got: hi')
    } finally {
      registry.unregisterSource(plugin)
    }
  })

  test('in a TypeScript project with vitest: the example and its test are TypeScript for vitest', async () => {
    const cwd = path.join(tmp.dir, 'ts')
    mkdirSync(cwd)
    writeFileSync(path.join(cwd, 'package.json'), JSON.stringify({ devDependencies: { typescript: '5', vitest: '4' } }))
    const run = await init(cwd)
    expect(run.lines).toContain('wrote   plugins/hello.ts: an example tool, hello')
    expect(run.lines).toContain('wrote   test/plugins/hello.test.ts: its test: npx vitest run test/plugins/hello.test.ts')
  })

  test('never overwrites: existing files are named as skipped and left byte for byte; .gitignore only gains a line', async () => {
    const cwd = path.join(tmp.dir, 'existing')
    mkdirSync(path.join(cwd, 'test/plugins'), { recursive: true })
    writeFileSync(path.join(cwd, 'config.yaml'), 'dispatch: { max_workers: 2 }\n')
    writeFileSync(path.join(cwd, 'test/plugins/hello.test.mjs'), 'mine')
    writeFileSync(path.join(cwd, '.gitignore'), 'node_modules')
    const run = await init(cwd)
    expect(run.code).toBe(0)
    expect(run.lines.slice(0, 5)).toEqual([
      'skipped config.yaml: it exists; left as it is',
      'skipped plugins/hello.mjs: not written: test/plugins/hello.test.mjs exists',
      'skipped test/plugins/hello.test.mjs: it exists; left as it is',
      "added   .gitignore: .toolhost/ (the host's own state) is not committed",
      '(init never overwrites: 3 files left as they were)',
    ])
    expect(readFileSync(path.join(cwd, 'config.yaml'), 'utf8')).toBe('dispatch: { max_workers: 2 }\n')
    expect(readFileSync(path.join(cwd, 'test/plugins/hello.test.mjs'), 'utf8')).toBe('mine')
    expect(existsSync(path.join(cwd, 'plugins/hello.mjs'))).toBe(false)
    expect(readFileSync(path.join(cwd, '.gitignore'), 'utf8')).toBe("node_modules\n# toolhost's own state: audit log, saved results, process logs, checkpoints\n.toolhost/\n")
  })

  test('a folder that held code before init is not trusted by init: the person reads it, then runs toolhost trust (issue 32.1)', async () => {
    const cwd = path.join(tmp.dir, 'cloned')
    mkdirSync(path.join(cwd, 'plugins'), { recursive: true })
    writeFileSync(path.join(cwd, 'plugins/theirs.mjs'), 'process.exit(3)\n')
    const run = await init(cwd)
    expect(run.code).toBe(0)
    expect(run.lines).toContain('not trusted: plugins/theirs.mjs was here before init; read what this folder runs, then toolhost trust')
    const trusted = existsSync(trustFile) ? (JSON.parse(readFileSync(trustFile, 'utf8')) as { workspaces: Record<string, unknown> }).workspaces : {}
    expect(trusted[realpathSync(cwd)]).toBeUndefined()
  })

  test('run twice: the second run writes nothing and says every file was left alone', async () => {
    const cwd = path.join(tmp.dir, 'twice')
    mkdirSync(cwd)
    await init(cwd)
    const before = readFileSync(path.join(cwd, '.gitignore'), 'utf8')
    const again = await init(cwd)
    expect(again.lines.filter((l) => l.startsWith('skipped'))).toHaveLength(4)
    expect(again.lines).toContain('skipped .gitignore: it already ignores .toolhost/')
    expect(readFileSync(path.join(cwd, '.gitignore'), 'utf8')).toBe(before)
  })

  test('takes no arguments', async () => {
    const err: string[] = []
    expect(await main(['init', 'somewhere'], { out: () => {}, err: (t) => err.push(t) })).toBe(2)
    expect(err).toEqual(['toolhost: E_USAGE: init takes no arguments; unexpected "somewhere"; see toolhost init --help'])
  })
})
