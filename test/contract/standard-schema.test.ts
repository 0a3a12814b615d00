/**
 * zod 4 schemas (and any Standard Schema that gives JSON Schema) as `parameters` and `outputSchema`,
 * read as a model and a plugin author get them: the definitions a model is shown, the results of
 * its calls, and the errors defineTool throws.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { createHost, defineTool, ToolRegistry, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { describeIssues, isStandardSchema } from '../../src/contract/standard-schema.js'
import type { StandardJsonSchema } from '../../src/contract/standard-schema-types.js'

let root: string
let host: Host
const seen: unknown[] = []
const registry = new ToolRegistry()

registry.register(defineTool({
  name: 'read_head',
  description: 'First lines of a file.',
  parameters: z.object({
    path: z.string().describe('file to read, relative to the root').refine((p) => !p.split('/').includes('..'), 'must not climb out with ".."'),
    lines: z.number().int().min(1).default(10),
  }),
  parallelSafe: true,
  handler: (args) => {
    seen.push(args)
    return `${args.path}: ${args.lines} lines`
  },
}))
registry.register(defineTool({
  name: 'count_words',
  description: 'Counts words.',
  parameters: z.object({ text: z.string() }),
  outputSchema: z.object({ words: z.number().int() }),
  parallelSafe: true,
  handler: (args) => (args.text === 'wrong' ? { words: 'many' } : { words: args.text.split(/\s+/).length }),
}))

beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-zod-')))
  host = await createHost({ root, registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } } })
})
afterAll(async () => {
  await host.close()
  rmSync(root, { recursive: true, force: true })
})

const call = async (name: string, args: string) => (await host.run([{ id: 'c1', name, arguments: args }]))[0]!

describe('a zod schema, as the model sees it', () => {
  test('the definition carries the JSON Schema converted once (descriptions, defaults, required), without $schema', async () => {
    const [definition] = await host.definitions('anthropic', { names: ['read_head'] })
    expect(definition).toEqual({
      name: 'read_head',
      description: 'First lines of a file.',
      input_schema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'file to read, relative to the root' },
          lines: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 10 },
        },
        required: ['path'],
      },
    })
  })

  test('the handler gets the parsed arguments: a default filled in', async () => {
    seen.length = 0
    const result = await call('read_head', '{"path":"notes.txt"}')
    expect(result).toMatchObject({ ok: true, content: 'notes.txt: 10 lines' })
    expect(seen).toEqual([{ path: 'notes.txt', lines: 10 }])
  })

  test('a field the JSON Schema refuses is named by path, all at once, before zod runs', async () => {
    const result = await call('read_head', '{"lines":0}')
    expect(result.error).toEqual({ code: 'E_ARGS_INVALID', message: 'invalid arguments for read_head: `path` is required but missing; `lines` must be >= 1, got 0. Fix these fields and call again.' })
  })

  test('a refinement JSON Schema cannot say still holds: the model reads the field and the rule, the handler never runs', async () => {
    seen.length = 0
    const result = await call('read_head', '{"path":"../secret"}')
    expect(result.error).toEqual({ code: 'E_ARGS_INVALID', message: 'invalid arguments for read_head: `path`: must not climb out with "..". Fix these fields and call again.' })
    expect(seen).toEqual([])
  })

  test('a zod outputSchema checks the structured content', async () => {
    expect(await call('count_words', '{"text":"one two three"}')).toMatchObject({ ok: true, structuredContent: { words: 3 } })
    const wrong = await call('count_words', '{"text":"wrong"}')
    expect(wrong.error?.code).toBe('E_TOOL_FAILED')
    expect(wrong.error?.message).toMatch(/`words` must be integer, got string/)
  })
})

describe('a schema that cannot give JSON Schema is refused at definition, naming the tool and key', () => {
  test.each([
    { why: 'a Date', parameters: z.object({ when: z.date() }), message: /tool "bad": `parameters`: the zod schema cannot be written as JSON Schema: Date cannot be represented in JSON Schema/ },
    { why: 'a transform in the output', outputSchema: z.object({ n: z.string().transform(Number) }), message: /tool "bad": `outputSchema`: the zod schema cannot be written as JSON Schema: Transforms cannot be represented/ },
    { why: 'not an object schema', parameters: z.string(), message: /tool "bad": `parameters` must be a JSON Schema with type "object"/ },
  ])('$why', ({ parameters, outputSchema, message }) => {
    const spec = { name: 'bad', description: 'Bad.', parameters: parameters ?? z.object({}), ...(outputSchema ? { outputSchema } : {}), handler: () => 'x' }
    expect(() => defineTool(spec as never)).toThrow(message)
  })

  test('a Standard Schema without a JSON Schema converter says what to do', () => {
    const validateOnly = { '~standard': { version: 1, vendor: 'valibot', validate: (value: unknown) => ({ value }) } }
    expect(() => defineTool({ name: 'bad', description: 'Bad.', parameters: validateOnly as never, handler: () => 'x' })).toThrow(
      'defineTool: tool "bad": `parameters` is a valibot schema that cannot give JSON Schema (it has no `~standard.jsonSchema` converter); use a version of valibot that implements Standard JSON Schema (zod 4 does from 4.2), or pass a JSON Schema (for zod: z.toJSONSchema(schema))',
    )
  })
})

describe('detected by shape, not by library', () => {
  test('a hand-written Standard Schema (no zod) works: converted, validated, its value handed on', async () => {
    const upper: StandardJsonSchema<{ word: string }, { word: string }> = {
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: (value) => {
          const word = (value as { word: string }).word
          return word === '' ? { issues: [{ message: 'must not be empty', path: [{ key: 'word' }] }] } : { value: { word: word.toUpperCase() } }
        },
        jsonSchema: {
          input: () => ({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { word: { type: 'string' } }, required: ['word'] }),
          output: () => ({ type: 'object' }),
        },
      },
    }
    const tool = defineTool({ name: 'shout', description: 'Shouts.', parameters: upper, handler: (args) => args.word })
    expect(tool.parameters).toEqual({ type: 'object', properties: { word: { type: 'string' } }, required: ['word'] })
    expect(await tool.handler({ word: 'hi' }, {} as never)).toBe('HI')
    await expect(tool.handler({ word: '' }, {} as never)).rejects.toMatchObject({ code: 'E_ARGS_INVALID', message: 'invalid arguments for shout: `word`: must not be empty. Fix these fields and call again.' })
  })

  test('a JSON Schema is never taken for a Standard Schema', () => {
    expect(isStandardSchema({ type: 'object', properties: { '~standard': { type: 'string' } } })).toBe(false)
    expect(isStandardSchema(z.object({}))).toBe(true)
  })

  test('issues: nested paths, and a long list cut', () => {
    expect(describeIssues([{ message: 'Required', path: ['items', 0, 'name'] }, { message: 'bad' }])).toEqual(['`items[0].name`: Required', 'the arguments object: bad'])
    const many = Array.from({ length: 25 }, (_, i) => ({ message: 'bad', path: [i] }))
    expect(describeIssues(many)).toHaveLength(21)
    expect(describeIssues(many).at(-1)).toBe('and 5 more')
  })
})

test('issue 31: a raw zod shape, as the MCP SDK takes it, is refused with "wrap it in z.object()"', () => {
  const spec = { name: 'raw', description: 'd', parameters: { a: z.string(), b: z.number() }, handler: () => 'x' }
  expect(() => defineTool(spec as never)).toThrow(/raw zod shape \(\{ a, b \}\).*wrap it in z\.object\(\)/)
})
