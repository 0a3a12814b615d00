// Scaffolds never write through links (issue 32.4): a cloned repository's `.gitignore` linked to a
// file outside got two lines appended by `init`. init and new-plugin refuse a target, or a folder on
// its way, that is a link leading out of the folder or to nothing, before writing anything; a link
// inside the folder is fine; a dangling config.yaml link is a clear error, not the defaults.
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { loadConfig } from '../../src/config/load-config.js'
import { makeTempDir } from '../mcp/serve-helpers.js'

const tmp = makeTempDir('toolhost-scaffold-links-')
afterAll(() => tmp.remove())
process.env.TOOLHOST_TRUST_FILE = path.join(tmp.dir, 'trust', 'trust.json')

let n = 0
function fresh(): { cwd: string; outside: string } {
  const base = realpathSync(tmp.dir)
  const cwd = path.join(base, `project-${++n}`)
  const outside = path.join(base, `outside-${n}`)
  mkdirSync(cwd)
  mkdirSync(outside)
  return { cwd, outside }
}

async function run(argv: string[], cwd: string): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const before = process.cwd()
  process.chdir(cwd)
  try {
    return { code: await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }), out, err }
  } finally {
    process.chdir(before)
  }
}

describe('init', () => {
  test('a .gitignore linked out of the folder: refused, nothing written anywhere', async () => {
    const { cwd, outside } = fresh()
    writeFileSync(path.join(outside, 'bashrc'), 'export A=1\n')
    symlinkSync(path.join(outside, 'bashrc'), path.join(cwd, '.gitignore'))
    const result = await run(['init'], cwd)
    expect(result.code).toBe(2)
    expect(result.err).toEqual([`toolhost: E_PATH_OUTSIDE_ROOT: init: .gitignore is a symbolic link leading out of this folder (to ${path.join(outside, 'bashrc')}); init never writes through such a link: remove it, then run init again`])
    expect(readFileSync(path.join(outside, 'bashrc'), 'utf8')).toBe('export A=1\n')
    expect(existsSync(path.join(cwd, 'config.yaml'))).toBe(false)
  })

  test('a plugins/ folder linked out: refused before the example plugin is written there', async () => {
    const { cwd, outside } = fresh()
    symlinkSync(outside, path.join(cwd, 'plugins'))
    const result = await run(['init'], cwd)
    expect(result.code).toBe(2)
    expect(result.err[0]).toContain('init: plugins is a symbolic link leading out of this folder')
    expect(existsSync(path.join(outside, 'hello.mjs'))).toBe(false)
  })

  test('a dangling config.yaml link: refused, saying where it points', async () => {
    const { cwd } = fresh()
    symlinkSync('/nonexistent/config.yaml', path.join(cwd, 'config.yaml'))
    const result = await run(['init'], cwd)
    expect(result.code).toBe(2)
    expect(result.err).toEqual(['toolhost: E_PATH_OUTSIDE_ROOT: init: config.yaml is a symbolic link to /nonexistent/config.yaml, which does not exist; init never writes through a link: remove it (or make it a real file or folder), then run init again'])
  })

  test('a link that stays inside the folder is followed as before', async () => {
    const { cwd } = fresh()
    mkdirSync(path.join(cwd, 'src-plugins'))
    symlinkSync('src-plugins', path.join(cwd, 'plugins'))
    const result = await run(['init'], cwd)
    expect(result.code).toBe(0)
    expect(existsSync(path.join(cwd, 'src-plugins', 'hello.mjs'))).toBe(true)
  })
})

describe('new-plugin', () => {
  test('a test/ folder linked out: refused, neither file written', async () => {
    const { cwd, outside } = fresh()
    symlinkSync(outside, path.join(cwd, 'test'))
    const result = await run(['new-plugin', 'weather'], cwd)
    expect(result.code).toBe(2)
    expect(result.err[0]).toContain('new-plugin: test is a symbolic link leading out of this folder')
    expect(existsSync(path.join(cwd, 'plugins', 'weather.mjs'))).toBe(false)
  })
})

describe('loading config', () => {
  test('a dangling config.yaml link is a clear error, not the defaults', () => {
    const { cwd } = fresh()
    symlinkSync('../gone.yaml', path.join(cwd, 'config.yaml'))
    expect(() => loadConfig({ cwd })).toThrow(`${path.join(cwd, 'config.yaml')}: the config file is a symbolic link to ../gone.yaml, which does not exist; point the link at a config file, or remove it to run on the defaults`)
  })
})
