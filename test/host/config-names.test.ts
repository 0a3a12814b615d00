// checkConfigNames matches as the scheduler and the permission gate do: a name, a toolset (rate
// limits), a glob, a `prefix*` rule all count as matching; only what matches nothing is reported.
import { describe, expect, test } from 'vitest'
import { defaultConfig } from '../../src/config/defaults.js'
import { checkConfigNames, checkPluginHookNames } from '../../src/host/config-names.js'
import { defineHook } from '../../src/contract/define-hook.js'
import type { ToolhostConfig } from '../../src/config/types.js'

const tools = [{ name: 'read_file', toolset: 'files' }, { name: 'mcp_github_search', toolset: 'mcp_github' }]

function configWith(change: (c: ToolhostConfig) => void): ToolhostConfig {
  const config = defaultConfig()
  change(config)
  return config
}

describe('checkConfigNames', () => {
  test('a name, a toolset, a glob and a prefix rule that match are not reported', () => {
    const config = configWith((c) => {
      c.rate_limits = { read_file: { concurrency: 1 }, files: { concurrency: 2 }, 'mcp_github_*': { concurrency: 1 } }
      c.dispatch.parallel_safe = ['read_file', '{read,write}_file']
      c.dispatch.never_parallel = ['mcp_*']
      c.permissions.allow = ['read_file(src/**)', 'mcp_github*']
    })
    expect(checkConfigNames(config, tools)).toEqual([])
  })

  test('each list that matches nothing, with where it is and what it was probably meant to be', () => {
    const config = configWith((c) => {
      c.rate_limits = { raed_file: { concurrency: 1 } }
      c.dispatch.path_scoped = ['read_fiel']
      c.permissions.ask = ['mcp_gitlab*']
    })
    expect(checkConfigNames(config, tools).map((u) => [u.where, u.suggestions])).toEqual([
      ['rate_limits.raed_file', ['read_file']],
      ['dispatch.path_scoped[0]', ['read_file']],
      ['permissions.ask[0]', []],
    ])
  })

  test('the tools of config.yaml\'s hooks: a name or glob that matches no tool is reported (the hook would never run)', () => {
    const config = configWith((c) => {
      c.hooks.before_call = [{ tools: 'read_fiel', command: 'true' }, { tools: ['read_file', 'mcp_gitlab_*'], command: 'true' }]
      c.hooks.after_call = [{ tools: '{read,list}_file', command: 'true' }]
    })
    expect(checkConfigNames(config, tools).map((u) => u.message)).toEqual([
      'hooks.before_call[0].tools "read_fiel" names no registered tool (did you mean "read_file"?): the hook runs on no call of it',
      'hooks.before_call[1].tools[1] "mcp_gitlab_*" matches no registered tool: the hook runs on no call of it',
    ])
  })

  test('the built-in default config names nothing that is missing when the built-in tools are there', () => {
    // The defaults carry no tool names: a host with any tools starts without a warning.
    expect(checkConfigNames(defaultConfig(), tools)).toEqual([])
  })
})

describe('checkPluginHookNames', () => {
  const hook = (tools: string | string[]) => defineHook({ event: 'before_call', name: 'guard', tools, run: () => undefined })

  test('a hook whose names and globs match tools is quiet; one that matches nothing names its file, hook and entry', () => {
    const hooks = [
      { hook: hook(['read_file', 'mcp_github_*']), source: '/w/plugins/ok.ts' },
      { hook: hook('raed_file'), source: '/w/plugins/typo.ts' },
      { hook: hook(['read_file', 'mcp_gitlab_*']), source: '/elsewhere/glob.ts' },
      { hook: hook('nothing'), source: undefined },
    ]
    expect(checkPluginHookNames(hooks, tools, '/w').map((u) => [u.where, u.entry, u.suggestions])).toEqual([
      ['plugins/typo.ts: hook "guard" tools', 'raed_file', ['read_file']],
      ['/elsewhere/glob.ts: hook "guard" tools[1]', 'mcp_gitlab_*', []],
      ['a hook registered in code: hook "guard" tools', 'nothing', []],
    ])
  })
})
