import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { defaultConfig } from '../../src/config/defaults.js'
import { loadConfig, mergeConfig, parseConfigText } from '../../src/config/load-config.js'
import { isToolhostError } from '../../src/contract/errors.js'
import { createHost } from '../../src/host/create-host.js'
import { resolveSetup } from '../../src/host/setup.js'
import type { HostOptions } from '../../src/host/host-types.js'
import { silentLogger } from '../../src/contract/logger.js'

const FIXTURES = path.resolve('test/fixtures/config')
const fixture = (name: string): string => path.join(FIXTURES, name)

/** The E_CONFIG_INVALID message `fn` throws. */
const configError = (fn: () => unknown): string => {
  try {
    fn()
  } catch (error) {
    expect(isToolhostError(error)).toBe(true)
    expect((error as { code: string }).code).toBe('E_CONFIG_INVALID')
    return (error as Error).message
  }
  throw new Error('expected E_CONFIG_INVALID')
}

describe('config files that stop start-up, naming the file and the key path', () => {
  test.each([
    { file: 'unknown-nested.yaml', message: /unknown-nested\.yaml: unknown key `dispatch\.max_wrokers` \(accepted here: mode, max_workers, timeout_ms, .*\)/ },
    { file: 'wrong-type.yaml', message: /wrong-type\.yaml: key `dispatch\.max_workers`: must be integer, got string/ },
    { file: 'bad-enum.yaml', message: /bad-enum\.yaml: key `dispatch\.mode`: must be one of "graph", "partition", "batch", "serial"/ },
    { file: 'invalid-yaml.yaml', message: /invalid-yaml\.yaml:3:1: not valid YAML: All mapping items must start at the same column$/ },
    { file: 'missing.yaml', message: /missing\.yaml: config file not found/ },
  ])('$file', ({ file, message }) => {
    expect(configError(() => loadConfig({ file: fixture(file), explicit: true }))).toMatch(message)
  })

  test.each([
    { yaml: 'bogus: 1', message: /unknown key `bogus` \(accepted here: workspace, env_file, plugins, / },
    { yaml: 'workspace:\n  rot: .', message: /unknown key `workspace\.rot` \(accepted here: root, deny\)/ },
    { yaml: 'mcp_servers:\n  files:\n    comand: npx', message: /unknown key `mcp_servers\.files\.comand` \(accepted here: command, args, env, url, parallel_safe, protocol\)/ },
    { yaml: 'dispatch:\n  max_workers: 0', message: /key `dispatch\.max_workers`: must be >= 1, got 0/ },
    { yaml: 'dispatch:\n  max_workers: 2.5', message: /key `dispatch\.max_workers`: must be integer, got number/ },
    { yaml: 'dispatch:\n  timeout_ms: "100"', message: /key `dispatch\.timeout_ms`: must be integer, got string/ },
    { yaml: 'dispatch:\n  parallel_safe: [ok, "bad name"]', message: /key `dispatch\.parallel_safe\.1`: must match pattern/ },
    { yaml: 'plugins:\n  dirs: plugins', message: /key `plugins\.dirs`: must be array, got string/ },
    { yaml: 'plugins:\n  watch: "yes"', message: /key `plugins\.watch`: must be boolean, got string/ },
    { yaml: 'permissions:\n  mode: yolo', message: /key `permissions\.mode`: must be one of "ask", "accept-edits", "auto", "plan", "bypass"/ },
    { yaml: 'serve:\n  console: remote', message: /key `serve\.console`: must be one of "loopback", "always", "off"/ },
    { yaml: 'permissions:\n  console_approvals:\n    timeout_ms: 0', message: /key `permissions\.console_approvals\.timeout_ms`: must be >= 1, got 0/ },
    { yaml: 'permissions:\n  console_approvals: true', message: /key `permissions\.console_approvals`: must be object, got boolean/ },
    { yaml: 'read_file:\n  on_overflow: explode', message: /key `read_file\.on_overflow`: must be one of "truncate", "error"/ },
    { yaml: 'limits:\n  max_result_chars: 10', message: /key `limits\.max_result_chars`: must be >= 100, got 10/ },
    { yaml: 'dispatch: 5', message: /key `dispatch`: must be object, got integer/ },
    { yaml: '- a\n- b', message: /the top level must be a mapping of sections/ },
    { yaml: 'a: 1\na: 2', message: /^my-config\.yaml:2:1: not valid YAML: Map keys must be unique$/ },
    { yaml: 'dispatch:\n  mode: [graph', message: /^my-config\.yaml:\d+:\d+: not valid YAML: / },
    { yaml: 'dispatch:\n  mode: fastest\n  max_workers: -2\nextra: 1', message: /unknown key `extra`.*; .*dispatch\.mode.*; .*dispatch\.max_workers/ },
  ])('$yaml', ({ yaml, message }) => {
    expect(configError(() => parseConfigText(yaml, 'my-config.yaml'))).toMatch(new RegExp(`^my-config\\.yaml[:]`))
    expect(configError(() => parseConfigText(yaml, 'my-config.yaml'))).toMatch(message)
  })

  test('an object config (createHost({ config })) is validated the same way', () => {
    expect(configError(() => mergeConfig({ dispatch: { mode: 'nope' } }, 'createHost({ config })'))).toMatch(/^createHost\(\{ config \}\): key `dispatch\.mode`/)
    expect(configError(() => mergeConfig(null, 'x'))).toMatch(/top level must be a mapping/)
  })
})

describe('defaults', () => {
  test('an empty file, a comment-only file and no file at all mean the defaults', () => {
    expect(parseConfigText('', 'c.yaml')).toEqual(defaultConfig())
    expect(parseConfigText('# nothing here\n', 'c.yaml')).toEqual(defaultConfig())
    const empty = mkdtempSync(path.join(os.tmpdir(), 'toolhost-noconfig-'))
    try {
      expect(loadConfig({ cwd: empty })).toMatchObject({ config: defaultConfig(), file: undefined })
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  test('a null section (every key commented out) is accepted; other sections merge over the defaults', () => {
    const { config, file, baseDir } = loadConfig({ file: fixture('null-section.yaml'), explicit: true })
    expect(file).toBe(fixture('null-section.yaml'))
    expect(baseDir).toBe(FIXTURES)
    expect(config.dispatch).toEqual(defaultConfig().dispatch)
    expect(config.limits).toEqual({ ...defaultConfig().limits, max_result_chars: 5000 })
  })

  test('lists replace the default list instead of appending to it', () => {
    expect(parseConfigText('workspace:\n  deny: [secret/**]', 'c.yaml').workspace).toEqual({ root: '.', deny: ['secret/**'] })
  })

  test('the shipped config.yaml is valid and equals the defaults', () => {
    expect(loadConfig({ file: 'config.yaml', explicit: true }).config).toEqual(defaultConfig())
  })

  test('every key of the defaults is written in the shipped config.yaml', async () => {
    const { readFileSync } = await import('node:fs')
    const text = readFileSync('config.yaml', 'utf8')
    for (const [section, value] of Object.entries(defaultConfig())) {
      expect(text, section).toMatch(new RegExp(`^${section}:`, 'm'))
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const key of Object.keys(value)) expect(text, `${section}.${key}`).toMatch(new RegExp(`^ +#? ?${key}:`, 'm'))
      }
    }
  })
})

describe('resolveSetup: the workspace root and TOOLHOST_MAX_WORKERS', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-setup-'))
    writeFileSync(path.join(dir, 'a-file'), '')
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('a workspace.root that does not exist names the config file and key', () => {
    expect(configError(() => resolveSetup({ config: fixture('missing-root.yaml') }, {}))).toMatch(
      /missing-root\.yaml: workspace\.root: the workspace root .*no-such-folder must be an existing folder/,
    )
  })

  test('workspace.root is relative to the config file; --root to the cwd', () => {
    expect(resolveSetup({ config: fixture('null-section.yaml') }, {}).root).toBe(FIXTURES)
    expect(resolveSetup({ config: fixture('null-section.yaml'), root: dir }, {}).root).toBe(dir)
  })

  test.each([
    { root: 'no-such-folder', message: /^--root: the workspace root .*no-such-folder must be an existing folder/ },
    { root: 'a-file', message: /^--root: the workspace root .*a-file must be an existing folder \(not a folder\)/ },
  ])('--root $root', ({ root, message }) => {
    expect(configError(() => resolveSetup({ config: {}, root, rootOption: '--root', cwd: dir }, {}))).toMatch(message)
  })

  test('an embedding’s missing root is named as createHost({ root }), not as the CLI’s --root', () => {
    expect(configError(() => resolveSetup({ config: {}, root: 'no-such-folder', cwd: dir }, {}))).toMatch(/^createHost\(\{ root \}\): the workspace root .*no-such-folder/)
  })

  test.each([
    { options: { mode: 'fast' }, message: 'createHost({ mode }) must be one of graph, partition, batch, serial; got "fast"' },
    { options: { audience: 'robot' }, message: 'createHost({ audience }) must be one of model, person, developer; got "robot"' },
    { options: { permissionMode: 'yolo' }, message: 'createHost({ permissionMode }) must be one of ask, accept-edits, auto, plan, bypass; got "yolo"' },
  ])('createHost refuses an unknown option value at start-up: $options', async ({ options, message }) => {
    await expect(createHost({ ...(options as HostOptions), config: { plugins: { dirs: [], builtins: false }, env_file: '' }, loadPlugins: false, log: silentLogger, cwd: dir })).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message })
  })

  test('host.run, host.stream and host.explain refuse an unknown mode instead of running in another', async () => {
    const host = await createHost({ config: { plugins: { dirs: [], builtins: false }, env_file: '' }, loadPlugins: false, audit: false, log: silentLogger, cwd: dir })
    try {
      const bogus = { mode: 'fastest' } as unknown as { mode: 'graph' }
      const modes = 'must be one of graph, partition, batch, serial; got "fastest"'
      await expect(host.run([], bogus)).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message: `host.run(calls, { mode }) ${modes}` })
      await expect(host.stream([], bogus).next()).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message: `host.stream(calls, { mode }) ${modes}` })
      await expect(host.explain([], bogus)).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message: `host.explain(calls, { mode }) ${modes}` })
      expect(await host.run([], { mode: 'serial' })).toEqual([])
    } finally {
      await host.close()
    }
  })

  test('an object config with a missing root says so', () => {
    expect(configError(() => resolveSetup({ config: { workspace: { root: 'gone' } }, cwd: dir }, {}))).toMatch(/^createHost\(\{ config \}\): workspace\.root:/)
  })

  test.each(['0', '-1', '1025', 'eight', '2.5', ' 4', '0x10', '1e1'])('TOOLHOST_MAX_WORKERS=%j is refused', (value) => {
    expect(configError(() => resolveSetup({ config: {}, cwd: dir }, { TOOLHOST_MAX_WORKERS: value }))).toBe(
      `environment: TOOLHOST_MAX_WORKERS must be an integer from 1 to 1024, got ${JSON.stringify(value)}`,
    )
  })

  test.each([
    { env: {}, expected: 8 },
    { env: { TOOLHOST_MAX_WORKERS: '' }, expected: 8 },
    { env: { TOOLHOST_MAX_WORKERS: '3' }, expected: 3 },
    { env: { TOOLHOST_MAX_WORKERS: '1024' }, expected: 1024 },
  ])('TOOLHOST_MAX_WORKERS $env → $expected workers', ({ env, expected }) => {
    expect(resolveSetup({ config: {}, cwd: dir }, env).maxWorkers).toBe(expected)
  })
})
