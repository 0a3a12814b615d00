// defineHook's checks: a bad spec throws E_SCHEMA_INVALID saying which field and what it got; a
// good one is copied (the plugin's later changes to its list do not reach the registry).
import { describe, expect, test } from 'vitest'
import { defineHook } from '../../src/contract/define-hook.js'
import type { HookSpec } from '../../src/contract/hook-types.js'

const good: HookSpec = { event: 'before_call', tools: 'write_*', name: 'guard', run: () => undefined }

describe('defineHook', () => {
  test.each<[string, Partial<Record<keyof HookSpec, unknown>>, RegExp]>([
    ['no name', { name: undefined }, /`name` must be 1 to 128 characters.*got undefined/],
    ['a name with a newline', { name: 'a\nb' }, /`name` must be/],
    ['an unknown event', { event: 'before' }, /hook "guard": `event` must be "before_call" or "after_call"; got "before"/],
    ['no tools', { tools: [] }, /`tools` must be a tool name or glob, or a non-empty list of them; got \[\]/],
    ['an empty tool name', { tools: ['a', ''] }, /`tools` must be/],
    ['no run', { run: 'deny' }, /`run` must be a function/],
    ['a bad timeout', { timeoutMs: 0 }, /`timeoutMs` must be an integer ≥ 1; got 0/],
  ])('refuses %s', (_what, change, message) => {
    expect(() => defineHook({ ...good, ...change } as HookSpec)).toThrow(message)
    try {
      defineHook({ ...good, ...change } as HookSpec)
    } catch (error) {
      expect(error).toMatchObject({ code: 'E_SCHEMA_INVALID' })
    }
  })

  test('marks the hook and copies its list of tools', () => {
    const tools = ['a', 'b_*']
    const hook = defineHook({ ...good, tools, timeoutMs: 500 })
    tools.push('c')
    expect(hook).toMatchObject({ kind: 'hook', event: 'before_call', name: 'guard', tools: ['a', 'b_*'], timeoutMs: 500 })
  })
})
