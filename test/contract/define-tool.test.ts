import { describe, expect, test } from 'vitest'
import { defineTool, TOOL_NAME_PATTERN } from '../../src/contract/define-tool.js'
import { isToolhostError } from '../../src/contract/errors.js'
import type { ToolSpec } from '../../src/contract/types.js'

const base: ToolSpec = {
  name: 'tool',
  description: 'A tool.',
  parameters: { type: 'object' },
  handler: () => 'ok',
}

describe('defineTool', () => {
  test('fills conservative defaults: not parallel-safe, not read-only, not destructive, no scope, no check', () => {
    const tool = defineTool(base)
    expect(tool).toMatchObject({
      name: 'tool',
      toolset: 'default',
      requiresEnv: [],
      parallelSafe: false,
      neverParallel: false,
      pathScoped: false,
      changesContext: false,
      idempotent: false,
      openWorld: false,
      check: undefined,
      scope: undefined,
      checkPermissions: undefined,
      maxResultChars: undefined,
      timeoutMs: undefined,
    })
    expect(tool.readOnly({})).toBe(false)
    expect(tool.destructive({})).toBe(false)
  })

  test('keeps what the spec declares', () => {
    const check = (): boolean => true
    const scope = (): [] => []
    const tool = defineTool<{ p: string }>({
      ...(base as ToolSpec<{ p: string }>),
      toolset: 'files',
      requiresEnv: ['A'],
      check,
      scope,
      parallelSafe: true,
      neverParallel: true,
      readOnly: (args) => args.p === 'r',
      maxResultChars: false,
      timeoutMs: 5,
    })
    expect(tool.check).toBe(check)
    expect(tool.scope).toBe(scope)
    expect(tool.readOnly({ p: 'r' })).toBe(true)
    expect(tool).toMatchObject({ toolset: 'files', requiresEnv: ['A'], parallelSafe: true, neverParallel: true, maxResultChars: false, timeoutMs: 5 })
  })

  test('copies requiresEnv, so changing the spec later does not change the tool', () => {
    const requiresEnv = ['A']
    const tool = defineTool({ ...base, requiresEnv })
    requiresEnv.push('B')
    expect(tool.requiresEnv).toEqual(['A'])
  })

  test.each([
    ['a'],
    ['read_file'],
    ['mcp_server-tool_2'],
    ['x'.repeat(64)],
  ])('accepts the name %j', (name) => {
    expect(TOOL_NAME_PATTERN.test(name)).toBe(true)
    expect(defineTool({ ...base, name }).name).toBe(name)
  })

  test.each([
    { field: 'name', value: '', message: /`name` must match/ },
    { field: 'name', value: 'two words', message: /`name` must match/ },
    // Regression: a dot was accepted, and OpenAI and Anthropic then refused the whole request.
    { field: 'name', value: 'files.read', message: /`name` must match \^\[a-zA-Z0-9_-\]\{1,64\}\$.*use `_` for a dot/ },
    { field: 'name', value: 'x'.repeat(65), message: /`name` must match/ },
    { field: 'name', value: 'emoji🙂', message: /`name` must match/ },
    { field: 'name', value: 42, message: /`name` must match.*\(number\)/ },
    { field: 'description', value: '  ', message: /`description` must be a non-empty string/ },
    { field: 'description', value: undefined, message: /`description`/ },
    { field: 'handler', value: 'not a function', message: /`handler` must be a function/ },
    { field: 'parameters', value: { type: 'string' }, message: /`parameters` must be a JSON Schema with type "object"/ },
    { field: 'parameters', value: null, message: /`parameters`.*\(null\)/ },
    { field: 'toolset', value: '', message: /`toolset` must be a non-empty string/ },
    { field: 'requiresEnv', value: 'TOKEN', message: /`requiresEnv` must be a list/ },
    { field: 'requiresEnv', value: [''], message: /`requiresEnv` must be a list/ },
    { field: 'timeoutMs', value: 0, message: /`timeoutMs` must be a positive integer/ },
    { field: 'timeoutMs', value: 1.5, message: /`timeoutMs` must be a positive integer/ },
    { field: 'maxResultChars', value: -1, message: /`maxResultChars` must be a positive integer or false/ },
    { field: 'maxResultChars', value: true, message: /`maxResultChars`/ },
    { field: 'check', value: true, message: /`check` must be a function/ },
    { field: 'readOnly', value: true, message: /`readOnly` must be a function/ },
    { field: 'scope', value: [], message: /`scope` must be a function/ },
    { field: 'checkPermissions', value: 'allow', message: /`checkPermissions` must be a function/ },
  ])('rejects $field = $value with E_SCHEMA_INVALID', ({ field, value, message }) => {
    let error: unknown
    try {
      defineTool({ ...base, [field]: value } as ToolSpec)
    } catch (caught) {
      error = caught
    }
    expect(isToolhostError(error)).toBe(true)
    expect((error as { code: string }).code).toBe('E_SCHEMA_INVALID')
    expect((error as Error).message).toMatch(message)
  })

  test('rejects something that is not a spec object', () => {
    expect(() => defineTool(null as unknown as ToolSpec)).toThrow(/expected a tool spec object/)
  })
})
