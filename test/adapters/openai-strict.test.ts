// OpenAI strict mode: the schema rewrite (table-driven, and checked to be strict in every object),
// the removal of the nulls it introduces, and a Responses loop with the real read_file and patch in
// both modes: optional arguments stay optional.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { replay, runResponsesLoop, type ResponseItem, type ResponsesResponse } from '../../examples/openai-loop.js'
import { stripIntroducedNulls, toStrictSchema } from '../../src/adapters/openai-strict.js'
import { createHost, defineTool, registry, type Host } from '../../src/index.js'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { silentLogger } from '../../src/contract/logger.js'
import { createAjv } from '../../src/registry/schema.js'
import type { JsonSchema } from '../../src/contract/types.js'

const readFile = {
  type: 'object',
  properties: { path: { type: 'string', minLength: 1 }, offset: { type: 'integer', minimum: 1 }, limit: { type: 'integer' } },
  required: ['path'],
  additionalProperties: false,
}

describe('toStrictSchema: the rewrite strict mode requires', () => {
  test.each<{ name: string; schema: JsonSchema; strict: JsonSchema }>([
    {
      name: 'optional fields become required and nullable; objects closed; unsupported keywords left out',
      schema: readFile,
      strict: { type: 'object', properties: { path: { type: 'string' }, offset: { type: ['integer', 'null'], minimum: 1 }, limit: { type: ['integer', 'null'] } }, required: ['path', 'offset', 'limit'], additionalProperties: false },
    },
    {
      name: 'nested objects and arrays of objects too',
      schema: { type: 'object', properties: { opts: { type: 'object', properties: { deep: { type: 'boolean' } } }, list: { type: 'array', items: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } } }, required: ['opts'] },
      strict: {
        type: 'object',
        properties: {
          opts: { type: 'object', properties: { deep: { type: ['boolean', 'null'] } }, required: ['deep'], additionalProperties: false },
          list: { type: ['array', 'null'], items: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false } },
        },
        required: ['opts', 'list'],
        additionalProperties: false,
      },
    },
    {
      name: 'an optional enum or $ref is wrapped in anyOf with null; $defs rewritten; oneOf read as anyOf; odd formats left out',
      schema: { type: 'object', $defs: { when: { type: 'string', format: 'date-time' }, uri: { type: 'string', format: 'uri' } }, properties: { mode: { enum: ['a', 'b'] }, at: { $ref: '#/$defs/when' }, v: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, required: ['v'] },
      strict: {
        type: 'object',
        $defs: { when: { type: 'string', format: 'date-time' }, uri: { type: 'string' } },
        properties: { mode: { anyOf: [{ enum: ['a', 'b'] }, { type: 'null' }] }, at: { anyOf: [{ $ref: '#/$defs/when' }, { type: 'null' }] }, v: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
        required: ['mode', 'at', 'v'],
        additionalProperties: false,
      },
    },
    {
      name: 'an optional field that already accepts null is left as it is',
      schema: { type: 'object', properties: { note: { type: ['string', 'null'] } } },
      strict: { type: 'object', properties: { note: { type: ['string', 'null'] } }, required: ['note'], additionalProperties: false },
    },
  ])('$name', ({ schema, strict }) => {
    expect(toStrictSchema(schema)).toEqual(strict)
    expect(isStrictEverywhere(toStrictSchema(schema)!)).toBe(true)
    expect(() => createAjv().compile(toStrictSchema(schema)!)).not.toThrow()
  })

  test.each<[string, JsonSchema]>([
    ['a free-form object (no properties)', { type: 'object' }],
    ['a map (additionalProperties a schema)', { type: 'object', properties: { env: { type: 'object', additionalProperties: { type: 'string' } } } }],
    ['allOf', { type: 'object', allOf: [{ properties: { a: { type: 'string' } } }] }],
    ['a tuple', { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } } }],
    ['a property that may be any value', { type: 'object', properties: { value: {} } }],
  ])('%s has no strict form: the tool stays strict: false', (_why, schema) => {
    expect(toStrictSchema(schema)).toBeUndefined()
  })

  test('the rewrite is made once per schema object', () => {
    expect(toStrictSchema(readFile)).toBe(toStrictSchema(readFile))
  })
})

describe('stripIntroducedNulls: only the nulls the rewrite made the model send', () => {
  const schema = {
    type: 'object',
    $defs: { item: { type: 'object', properties: { tag: { type: 'string' } } } },
    properties: { path: { type: 'string' }, limit: { type: 'integer' }, note: { type: ['string', 'null'] }, items: { type: 'array', items: { $ref: '#/$defs/item' } }, opts: { type: 'object', properties: { deep: { type: 'boolean' } } } },
    required: ['path'],
  }
  test.each([
    { name: 'optional nulls go', args: { path: 'a', limit: null }, out: { path: 'a' } },
    { name: 'a null the schema allows stays', args: { path: 'a', note: null }, out: { path: 'a', note: null } },
    { name: 'a required null stays (validation names it)', args: { path: null }, out: { path: null } },
    { name: 'nested objects and arrays through $ref', args: { path: 'a', opts: { deep: null }, items: [{ tag: null }, { tag: 'x' }] }, out: { path: 'a', opts: {}, items: [{}, { tag: 'x' }] } },
  ])('$name', ({ args, out }) => {
    expect(stripIntroducedNulls(schema, args)).toEqual(out)
  })

  test('arguments without such nulls are returned as they are', () => {
    const args = { path: 'a', limit: 3 }
    expect(stripIntroducedNulls(schema, args)).toBe(args)
  })
})

describe('stripIntroducedNulls on hostile nesting (strict mode × limits.max_argument_depth)', () => {
  // A filter language: a node is an `and` or a `leaf`, and both may hold a child node. Each level of
  // model data matches two branches that lead back to the node.
  const tree: JsonSchema = {
    type: 'object',
    properties: { root: { $ref: '#/$defs/node' } },
    required: ['root'],
    $defs: {
      node: { anyOf: [{ $ref: '#/$defs/and' }, { $ref: '#/$defs/leaf' }] },
      and: { type: 'object', properties: { op: { type: 'string' }, child: { $ref: '#/$defs/node' } }, required: ['op'] },
      leaf: { type: 'object', properties: { op: { type: 'string' }, field: { type: 'string' }, child: { $ref: '#/$defs/node' } }, required: ['op'] },
    },
  }

  // Nested `depth` levels; every object counts the property reads made on it.
  function nested(depth: number, reads: { n: number }): Record<string, unknown> {
    let node: Record<string, unknown> = { op: 'leaf', field: null }
    for (let i = 0; i < depth; i++) node = { op: 'and', field: null, child: node }
    const counted = (value: Record<string, unknown>): Record<string, unknown> => new Proxy(value, {
      get(target, key, receiver) {
        reads.n++
        const inner = Reflect.get(target, key, receiver) as unknown
        return typeof inner === 'object' && inner !== null && key === 'child' ? counted(inner as Record<string, unknown>) : inner
      },
    })
    return { root: counted(node) }
  }

  test('a recursive schema whose branches lead back to it costs steps in proportion to the nesting, not 2^depth', () => {
    const reads = { n: 0 }
    const out = stripIntroducedNulls(tree, nested(16, reads)) as { root: Record<string, unknown> }
    // Each level is read a few times per branch; walking every path would be over 2^16 reads.
    expect(reads.n).toBeLessThan(16 * 40)
    let level: Record<string, unknown> | undefined = out.root
    let depth = 0
    while (level !== undefined) {
      expect(level).not.toHaveProperty('field') // the introduced null is gone at every level
      level = level.child as Record<string, unknown> | undefined
      depth++
    }
    expect(depth).toBe(17)
  })

  test('a schema cycle that consumes no data (anyOf back to itself) ends', () => {
    const cyclic: JsonSchema = { type: 'object', properties: { v: { $ref: '#/$defs/v' } }, $defs: { v: { anyOf: [{ $ref: '#/$defs/v' }, { $ref: '#/$defs/v' }, { type: 'object', properties: { x: { type: 'string' } } }] } } }
    expect(stripIntroducedNulls(cyclic, { v: { x: null } })).toEqual({ v: {} })
    expect(stripIntroducedNulls(cyclic, { v: null })).toEqual({})
  })
})

describe('a Responses loop with read_file and patch keeps optional arguments optional', () => {
  let root: string
  let host: Host | undefined

  beforeAll(async () => {
    registry.clear()
    const loaded = await loadPluginFile(path.resolve('plugins/files.ts'), registry)
    expect(loaded.ok).toBe(true)
  })
  afterAll(() => registry.clear())
  afterEach(async () => {
    await host?.close()
    host = undefined
    rmSync(root, { recursive: true, force: true })
  })

  async function converse(strict: boolean, calls: Array<{ name: string; arguments: string }>): Promise<{ tools: unknown[]; outputs: string[] }> {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-strict-')))
    writeFileSync(path.join(root, 'notes.txt'), 'one\ntwo\nthree\n')
    host = await createHost({ root, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, openai: { strict } } })
    const seen: unknown[][] = []
    const recorded: ResponsesResponse[] = [
      { output: calls.map((c, i) => ({ type: 'function_call', id: `fc_${i}`, call_id: `call_${i}`, name: c.name, arguments: c.arguments })) },
      { output: [{ type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] }] },
    ]
    const model = replay(recorded)
    const input = await runResponsesLoop(host, async (request) => {
      seen.push(request.tools)
      return model()
    }, 'Read notes.txt, then change two to 2.')
    const outputs = input.filter((i: ResponseItem) => i.type === 'function_call_output').map((i) => String(i.output))
    return { tools: seen[0]!, outputs }
  }

  test('default: definitions say strict: false with the schema as written; the model leaves optional arguments out', async () => {
    const { tools, outputs } = await converse(false, [
      { name: 'read_file', arguments: '{"path":"notes.txt"}' },
      { name: 'patch', arguments: '{"path":"notes.txt","old_string":"two","new_string":"2"}' },
    ])
    const readDef = tools.find((t) => (t as { name: string }).name === 'read_file') as { strict: boolean; parameters: JsonSchema }
    expect(readDef.strict).toBe(false)
    expect(readDef.parameters.required).toEqual(['path'])
    expect(outputs[0]).toMatch(/^1\tone\n2\ttwo\n3\tthree/)
    expect(outputs[1]).not.toMatch(/^error/)
    expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('one\n2\nthree\n')
  })

  test('strict: the model must send every field, null for the ones it leaves out; the host takes those nulls out again', async () => {
    const { tools, outputs } = await converse(true, [
      { name: 'read_file', arguments: '{"path":"notes.txt","offset":null,"limit":null}' },
      { name: 'patch', arguments: '{"path":"notes.txt","old_string":"two","new_string":"2","replace_all":null,"diff":null}' },
    ])
    const readDef = tools.find((t) => (t as { name: string }).name === 'read_file') as { strict: boolean; parameters: JsonSchema }
    expect(readDef.strict).toBe(true)
    expect(readDef.parameters.required).toEqual(['path', 'offset', 'limit'])
    expect(outputs[0]).toMatch(/^1\tone\n2\ttwo\n3\tthree/)
    expect(outputs[1]).not.toMatch(/^error/)
    expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('one\n2\nthree\n')
  })

  test('without strict mode a null is not taken out: the schema names the field', async () => {
    const { outputs } = await converse(false, [{ name: 'read_file', arguments: '{"path":"notes.txt","limit":null}' }])
    expect(outputs[0]).toMatch(/^error E_ARGS_INVALID: .*`limit` must be integer, got null/)
  })
})

/** Every object in the schema has all its properties required and additionalProperties: false. */
function isStrictEverywhere(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(isStrictEverywhere)
  if (typeof node !== 'object' || node === null) return true
  const schema = node as Record<string, unknown>
  if (schema.properties && typeof schema.properties === 'object') {
    const names = Object.keys(schema.properties)
    if (schema.additionalProperties !== false) return false
    if (!Array.isArray(schema.required) || names.some((n) => !(schema.required as string[]).includes(n))) return false
  }
  return Object.values(schema).every(isStrictEverywhere)
}

describe('strict mode × hot reload', () => {
  afterEach(() => registry.clear())

  test('a tool offered in strict mode and then reloaded (same name) still has the nulls the model sends for it taken out', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-strict-reload-')))
    const source = path.join(root, 'plugins', 'notes.ts')
    const define = (version: number) => registry.replaceSource(source, async () => {
      registry.register(defineTool({ name: 'take_note', description: `v${version}`, parameters: { type: 'object', properties: { text: { type: 'string' }, tag: { type: 'string' } }, required: ['text'], additionalProperties: false }, parallelSafe: true, handler: (args: { text: string; tag?: string }) => `v${version}: ${args.text}${args.tag === undefined ? '' : ` #${args.tag}`}` }))
    })
    const host = await createHost({ root, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, openai: { strict: true } } })
    try {
      await define(1)
      await host.definitions('openai-responses')
      const call = { id: 'n', name: 'take_note', arguments: '{"text":"milk","tag":null}' }
      expect((await host.call(call)).content).toBe('v1: milk')
      await define(2) // the file changed on disk; the model still holds the strict definitions
      expect(await host.call(call)).toMatchObject({ ok: true, content: 'v2: milk' })
    } finally {
      await host.close()
      rmSync(root, { recursive: true, force: true })
    }
  })
})
