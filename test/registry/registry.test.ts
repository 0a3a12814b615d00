import { beforeEach, describe, expect, test } from 'vitest'
import { defineTool } from '../../src/contract/define-tool.js'
import { isToolhostError } from '../../src/contract/errors.js'
import { registry, ToolRegistry } from '../../src/registry/registry.js'
import type { ToolSpec } from '../../src/contract/types.js'

const spec = (name: string, extra: Partial<ToolSpec> = {}): ToolSpec => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
  handler: () => name,
  ...extra,
})

const thrown = (fn: () => unknown): { code: string; message: string } => {
  try {
    fn()
  } catch (error) {
    if (isToolhostError(error)) return { code: error.code, message: error.message }
    throw error
  }
  throw new Error('expected a ToolhostError')
}

let reg: ToolRegistry
beforeEach(() => {
  reg = new ToolRegistry()
})

describe('the process registry', () => {
  test('is one per process, kept on globalThis under Symbol.for("toolhost.registry")', () => {
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('toolhost.registry')]).toBe(registry)
    expect(registry).toBeInstanceOf(ToolRegistry)
  })
})

describe('register', () => {
  test('adds a tool; get, has, entry, list, toolsets read it back', () => {
    reg.register(defineTool(spec('b_tool', { toolset: 'beta' })))
    reg.register(defineTool(spec('a_tool', { toolset: 'alpha' })), { source: '/plugins/a.ts' })
    expect(reg.has('a_tool')).toBe(true)
    expect(reg.get('a_tool')?.toolset).toBe('alpha')
    expect(reg.entry('a_tool')?.source).toBe('/plugins/a.ts')
    expect(reg.list().map((t) => t.name)).toEqual(['a_tool', 'b_tool'])
    expect(reg.toolsets()).toEqual(['alpha', 'beta'])
  })

  test('a duplicate name is rejected naming both plugin files', () => {
    reg.register(defineTool(spec('same')), { source: '/plugins/first.ts' })
    const error = thrown(() => reg.register(defineTool(spec('same')), { source: '/plugins/second.ts' }))
    expect(error.code).toBe('E_DUPLICATE_TOOL')
    expect(error.message).toContain('/plugins/first.ts')
    expect(error.message).toContain('/plugins/second.ts')
    expect(reg.get('same')?.description).toBe('The same tool.')
  })

  test('the source defaults to the file being loaded (loadingFrom)', async () => {
    await reg.loadingFrom('/plugins/loading.ts', async () => reg.register(defineTool(spec('during_load'))))
    reg.register(defineTool(spec('after_load')))
    expect(reg.entry('during_load')?.source).toBe('/plugins/loading.ts')
    expect(reg.entry('after_load')?.source).toBeUndefined()
  })

  test.each([
    { why: 'an unknown keyword (strict)', parameters: { type: 'object', properties: { a: { type: 'string', maxLenght: 3 } } }, message: /maxLenght/ },
    { why: 'a wrong type keyword', parameters: { type: 'object', properties: { a: { type: 'strng' } } }, message: /strng|type/ },
    { why: 'a bad $ref', parameters: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } }, message: /missing|resolve/ },
    { why: 'a non-object required', parameters: { type: 'object', required: 'a' }, message: /required/ },
  ])('an invalid schema ($why) is rejected naming the file', ({ parameters, message }) => {
    const error = thrown(() => reg.register(defineTool(spec('bad', { parameters })), { source: '/plugins/bad.ts' }))
    expect(error.code).toBe('E_SCHEMA_INVALID')
    expect(error.message).toContain('/plugins/bad.ts')
    expect(error.message).toMatch(message)
    expect(reg.has('bad')).toBe(false)
  })

  test.each(['', 'has space', 'semi;colon', 'x'.repeat(65), 'ümlaut', 'slash/name'])('the bad name %j is rejected, also without defineTool', (name) => {
    const error = thrown(() => reg.register(spec(name) as never, { source: '/plugins/names.ts' }))
    expect(error.code).toBe('E_SCHEMA_INVALID')
    expect(error.message).toContain('/plugins/names.ts')
    expect(reg.list()).toEqual([])
  })

  // Regression: the conformance scenario json-schema-2020-12 could not even register its tool.
  test.each([
    { dialect: '2020-12', parameters: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: { n: { type: 'integer' } }, properties: { n: { $ref: '#/$defs/n' } }, required: ['n'] } },
    { dialect: 'draft-07', parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', definitions: { n: { type: 'integer' } }, properties: { n: { $ref: '#/definitions/n' } }, required: ['n'] } },
  ])('a $dialect tool registers and validates its arguments in its dialect', ({ parameters }) => {
    reg.register(defineTool(spec('dialect', { parameters })))
    const { validate } = reg.entry('dialect')!
    expect(validate({ n: 3 })).toBe(true)
    expect(validate({ n: 'three' })).toBe(false)
  })

  test('an unknown $schema is rejected naming the file', () => {
    const error = thrown(() => reg.register(defineTool(spec('old', { parameters: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } })), { source: '/plugins/old.ts' }))
    expect(error).toMatchObject({ code: 'E_SCHEMA_INVALID', message: expect.stringMatching(/\/plugins\/old\.ts.*draft-04.*is not a dialect toolhost validates/) })
  })

  test('a bare spec (without defineTool) gets the same conservative defaults', () => {
    reg.register(spec('bare') as never)
    const tool = reg.get('bare')!
    expect(tool.requiresEnv).toEqual([])
    expect(tool.parallelSafe).toBe(false)
    expect(tool.readOnly({})).toBe(false)
  })

  test('a schema with an $id can be registered again after it was removed (hot reload, tests)', () => {
    const withId = () => defineTool(spec('with_id', { parameters: { $id: 'toolhost-test-id', type: 'object' } }))
    reg.register(withId())
    reg.unregister('with_id')
    expect(() => reg.register(withId())).not.toThrow()
    reg.clear()
    expect(() => reg.register(withId())).not.toThrow()
    expect(reg.unregisterSource('nowhere')).toEqual([])
  })

  test('unregister, unregisterSource and clear remove tools and bump the version; onChange hears each', () => {
    const heard: number[] = []
    const stop = reg.onChange(() => heard.push(reg.version))
    reg.register(defineTool(spec('one')), { source: 'f1' })
    reg.register(defineTool(spec('two')), { source: 'f1' })
    reg.register(defineTool(spec('three')), { source: 'f2' })
    expect(reg.unregister('one')).toBe(true)
    expect(reg.unregister('one')).toBe(false)
    expect(reg.unregisterSource('f1')).toEqual(['two'])
    reg.clear()
    expect(reg.list()).toEqual([])
    expect(heard).toEqual([1, 2, 3, 4, 5, 6])
    stop()
    reg.register(defineTool(spec('four')))
    expect(heard).toHaveLength(6)
  })
})

describe('getDefinitions', () => {
  beforeEach(() => {
    reg.register(defineTool(spec('zeta', { toolset: 'z' })))
    reg.register(defineTool(spec('alpha', { toolset: 'a' })))
    reg.register(defineTool(spec('mid', { toolset: 'a' })))
    reg.register(defineTool(spec('hidden', { toolset: 'a', check: () => false })))
  })

  test('OpenAI-shaped and sorted by name; hidden tools left out', async () => {
    const defs = await reg.getDefinitions()
    expect(defs.map((d) => d.function.name)).toEqual(['alpha', 'mid', 'zeta'])
    expect(defs[0]).toEqual({
      type: 'function',
      function: {
        name: 'alpha',
        description: 'The alpha tool.',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
      },
    })
  })

  test.each([
    { query: ['zeta', 'alpha', 'nope'], names: ['alpha', 'zeta'] },
    { query: { names: ['mid'] }, names: ['mid'] },
    { query: { toolsets: ['a'] }, names: ['alpha', 'mid'] },
    { query: { toolsets: ['z'], names: ['alpha'] }, names: ['alpha', 'zeta'] },
    { query: { toolsets: ['none'] }, names: [] },
    { query: ['hidden'], names: [] },
  ])('filters by names and toolsets: $query', async ({ query, names }) => {
    expect((await reg.getDefinitions(query)).map((d) => d.function.name)).toEqual(names)
  })
})

describe('availability (fail closed)', () => {
  test.each([
    { why: 'no requirements', extra: {}, env: {}, reason: undefined },
    { why: 'env var set', extra: { requiresEnv: ['TOKEN'] }, env: { TOKEN: 'x' }, reason: undefined },
    { why: 'env var missing', extra: { requiresEnv: ['TOKEN'] }, env: {}, reason: 'missing env var TOKEN' },
    { why: 'env var empty', extra: { requiresEnv: ['TOKEN'] }, env: { TOKEN: '' }, reason: 'missing env var TOKEN' },
    { why: 'two missing', extra: { requiresEnv: ['A', 'B', 'C'] }, env: { B: '1' }, reason: 'missing env vars A, C' },
    { why: 'check true', extra: { check: () => true }, env: {}, reason: undefined },
    { why: 'async check true', extra: { check: async () => true }, env: {}, reason: undefined },
    { why: 'check false', extra: { check: () => false }, env: {}, reason: 'check returned false' },
    { why: 'check truthy but not true', extra: { check: () => 1 as unknown as boolean }, env: {}, reason: 'check returned 1' },
    { why: 'check throws', extra: { check: () => { throw new Error('down') } }, env: {}, reason: 'check threw: down' },
    { why: 'check rejects', extra: { check: () => Promise.reject(new Error('expired')) }, env: {}, reason: 'check threw: expired' },
    { why: 'async check false', extra: { check: async () => false }, env: {}, reason: 'check returned false' },
    // Timing: only the 30 ms bound can end this check.
    { why: 'check never settles', extra: { check: () => new Promise<boolean>(() => {}) }, env: {}, reason: 'check took longer than 30 ms' },
    { why: 'a name Object.prototype has', extra: { requiresEnv: ['toString', 'constructor'] }, env: {}, reason: 'missing env vars toString, constructor' },
    { why: 'env missing: check not run', extra: { requiresEnv: ['T'], check: () => { throw new Error('must not run') } }, env: {}, reason: 'missing env var T' },
    // Issue 12 (new variants): an answer the host cannot read crashed `toolhost list` (internal error).
    { why: 'check returns a Proxy whose traps throw', extra: { check: () => new Proxy({}, { get: () => { throw new Error('trap') } }) as unknown as boolean }, env: {}, reason: 'check returned a value that cannot be read (trap)' },
    { why: 'check resolves to a Proxy whose `has` throws', extra: { check: async () => new Proxy({}, { has: () => { throw new Error('has trap') } }) as unknown as boolean }, env: {}, reason: 'check returned a value that cannot be read (has trap)' },
    { why: 'check returns a string', extra: { check: () => 'yes' as unknown as boolean }, env: {}, reason: 'check returned "yes"' },
  ])('$why → $reason', async ({ extra, env, reason }) => {
    reg.register(defineTool(spec('t', extra as Partial<ToolSpec>)))
    const [a] = await reg.explainAvailability({}, { env, checkTimeoutMs: 30 })
    expect(a).toEqual(reason === undefined ? { name: 't', available: true } : { name: 't', available: false, reason })
    expect(await reg.availabilityOf('t', { env, checkTimeoutMs: 30 })).toEqual(a)
    expect((await reg.getDefinitions([], { env, checkTimeoutMs: 30 })).length).toBe(0)
    expect((await reg.getDefinitions({}, { env, checkTimeoutMs: 30 })).length).toBe(reason === undefined ? 1 : 0)
  })

  test('a check shared by several tools runs once per getDefinitions call', async () => {
    let runs = 0
    const shared = async (): Promise<boolean> => {
      runs++
      return true
    }
    for (const name of ['s1', 's2', 's3']) reg.register(defineTool(spec(name, { check: shared })))
    reg.register(defineTool(spec('own', { check: () => { runs += 100; return true } })))
    expect((await reg.getDefinitions()).map((d) => d.function.name)).toEqual(['own', 's1', 's2', 's3'])
    expect(runs).toBe(101)
    await reg.getDefinitions()
    expect(runs).toBe(202)
  })

  test('an unknown name is "not registered"', async () => {
    expect(await reg.availabilityOf('ghost')).toEqual({ name: 'ghost', available: false, reason: 'not registered' })
  })

  test('env defaults to process.env', async () => {
    reg.register(defineTool(spec('t', { requiresEnv: ['TOOLHOST_REGISTRY_TEST_VAR'] })))
    expect((await reg.availabilityOf('t')).available).toBe(false)
    process.env.TOOLHOST_REGISTRY_TEST_VAR = 'on'
    try {
      expect((await reg.availabilityOf('t')).available).toBe(true)
    } finally {
      delete process.env.TOOLHOST_REGISTRY_TEST_VAR
    }
  })
})
