// Names in config that match no registered tool (issue 24.5): a misspelt name under rate_limits,
// dispatch.* or a permission rule silently disabled what it configured. Start-up warns, doctor
// lists them, each with a did-you-mean; doctor also names a set variable close to a missing one.
// A plugin hook's tools (defineHook) that match nothing are warned of and listed the same way.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { registry } from '../../src/registry/registry.js'

let root: string
let config: string

async function toolhost(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await main([...argv, '--config', config, '--root', root, '--plugins', path.join(root, 'plugins')], { out: (text) => (stdout += text + '\n'), err: (text) => (stderr += text + '\n') })
  return { code, stdout, stderr }
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-config-names-')))
  config = path.join(root, 'config.yaml')
  const plugins = path.join(root, 'plugins')
  mkdirSync(plugins)
  writeFileSync(path.join(plugins, 'web.mjs'), [
    "import { defineTool, registry } from 'toolhost'",
    "registry.register(defineTool({ name: 'http_get', toolset: 'web', description: 'GET a URL.', parameters: { type: 'object' }, handler: () => 'ok' }))",
    "registry.register(defineTool({ name: 'http_post', toolset: 'web', description: 'POST to a URL.', requiresEnv: ['WEB_API_TOKEN'], parameters: { type: 'object' }, handler: () => 'ok' }))",
  ].join('\n'))
  writeFileSync(path.join(plugins, 'guard.mjs'), [
    "import { defineHook, registry } from 'toolhost'",
    "registry.register(defineHook({ event: 'before_call', tools: 'http_*', name: 'no-internal', run: () => undefined }))",
  ].join('\n'))
  // A plugin hook whose tools name no registered tool: warned at start-up and listed by doctor too.
  writeFileSync(path.join(plugins, 'audit.mjs'), [
    "import { defineHook, registry } from 'toolhost'",
    "registry.register(defineHook({ event: 'after_call', tools: ['http_get', 'htp_gett', 'ftp_*'], name: 'count-gets', run: () => undefined }))",
  ].join('\n'))
  writeFileSync(config, [
    'plugins: { dirs: [], builtins: false }',
    'env_file: ""',
    'rate_limits:',
    '  htpp_get: { calls: 2, per_ms: 1000 }',
    '  web: { concurrency: 4 }',
    "  'http_*': { concurrency: 2 }",
    "  'ftp_*': { concurrency: 1 }",
    'dispatch:',
    '  parallel_safe: [http_get, http_gte]',
    "  never_parallel: ['mcp_*']",
    '  path_scoped: []',
    'permissions:',
    '  mode: bypass',
    '  deny: ["http_pots(https://internal/*)", "http_*"]',
    '  allow: [terminal]',
    'hooks:',
    '  before_call: [{ tools: http_gett, command: "true" }]',
  ].join('\n'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))
beforeEach(() => registry.clear())

const expected = [
  'rate_limits.htpp_get names no registered tool or toolset (did you mean "http_get"?): it limits nothing',
  'rate_limits.ftp_* matches no registered tool: it limits nothing',
  'dispatch.parallel_safe[1] "http_gte" names no registered tool (did you mean "http_get"?): no call is made parallel-safe by it',
  'dispatch.never_parallel[0] "mcp_*" matches no registered tool: no call is made to run alone by it',
  'permissions.allow[0] "terminal" names no registered tool: it allows nothing',
  'permissions.deny[0] "http_pots(https://internal/*)" names no registered tool (did you mean "http_post" or "http_get"?): it denies nothing',
  'hooks.before_call[0].tools "http_gett" names no registered tool (did you mean "http_get" or "http_post"?): the hook runs on no call of it',
]

const hookExpected = [
  'plugins/audit.mjs: hook "count-gets" tools[1] "htp_gett" names no registered tool (did you mean "http_get"?): the hook runs on no call of it',
  'plugins/audit.mjs: hook "count-gets" tools[2] "ftp_*" matches no registered tool: the hook runs on no call of it',
]

describe('names in config are checked against the registered tools', () => {
  test('start-up warns once per name that matches nothing, naming the file and key; names that match are quiet', async () => {
    const run = await toolhost(['list'])
    expect(run.code).toBe(0)
    const warnings = run.stderr.split('\n').filter((line) => line.startsWith(`toolhost warn: ${config}: `))
    expect(warnings).toEqual(expected.map((line) => `toolhost warn: ${config}: ${line}`))
    // A plugin hook's names are code, not config: the warning names the plugin file and the hook.
    expect(run.stderr.split('\n').filter((line) => line.includes('hook "count-gets"'))).toEqual(hookExpected.map((line) => `toolhost warn: ${line}`))
  })

  test('doctor lists them under config names', async () => {
    const run = await toolhost(['doctor'])
    const lines = run.stdout.split('\n')
    const at = lines.indexOf(`config names:  7 entries name no registered tool (${config})`)
    expect(at).toBeGreaterThan(-1)
    expect(lines.slice(at + 1, at + 8)).toEqual(expected.map((line) => `  ${line}`))
    const hooksAt = lines.indexOf('hook names:  2 plugin hook entries name no registered tool')
    expect(hooksAt).toBeGreaterThan(-1)
    expect(lines.slice(hooksAt + 1, hooksAt + 3)).toEqual(hookExpected.map((line) => `  ${line}`))
    // The hooks in force, and the plugin file that registered one.
    expect(lines).toContain('hooks:         before_call hooks.before_call[0], "no-internal"; after_call "count-gets"')
    expect(lines).toContain(`  ok      ${path.join(root, 'plugins', 'guard.mjs')} (before_call hook "no-internal")`)
  })

  test('doctor suggests a set variable close to a missing one (names only, never values)', async () => {
    process.env.WEB_API_TOKNE = 'secret-value'
    try {
      const run = await toolhost(['doctor'])
      expect(run.stdout).toContain('  hidden  http_post: missing env var WEB_API_TOKEN (WEB_API_TOKEN: did you mean WEB_API_TOKNE, which is set?)')
      expect(run.stdout).not.toContain('secret-value')
    } finally {
      delete process.env.WEB_API_TOKNE
    }
  })
})
