// Type tests for defineTool's argument inference. tsc checks them (test/type-tests.test.ts under
// npm test, and npm run typecheck): a wrong inference fails `expectTypeOf`, and a `@ts-expect-error`
// that stops erroring fails too. The runtime assertions below check that the typed tools still
// behave like any other.
import { describe, expect, expectTypeOf, test } from 'vitest'
import { defineTool } from '../../src/contract/define-tool.js'
import type { ToolContext } from '../../src/contract/types.js'

const ctx = {} as ToolContext

describe('defineTool infers handler arguments from a const JSON Schema', () => {
  test('required and optional fields, enums, arrays and nested objects', async () => {
    const tool = defineTool({
      name: 'typed',
      description: 'A typed tool.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          limit: { type: 'integer' },
          mode: { type: 'string', enum: ['fast', 'slow'] },
          tags: { type: 'array', items: { type: 'string' } },
          range: { type: 'object', properties: { from: { type: 'number' } }, required: ['from'], additionalProperties: false },
        },
        required: ['path', 'mode'],
        additionalProperties: false,
      },
      handler: (args) => {
        expectTypeOf(args.path).toEqualTypeOf<string>()
        expectTypeOf(args.limit).toEqualTypeOf<number | undefined>()
        expectTypeOf(args.mode).toEqualTypeOf<'fast' | 'slow'>()
        expectTypeOf(args.tags).toEqualTypeOf<string[] | undefined>()
        expectTypeOf(args.range).toEqualTypeOf<{ from: number } | undefined>()
        // @ts-expect-error `pth` is not a field of the schema
        void args.pth
        return `${args.path} ${args.mode}`
      },
      readOnly: (args) => args.mode === 'fast',
    })
    expect(await tool.handler({ path: 'a.txt', mode: 'fast' }, ctx)).toBe('a.txt fast')
    expect(tool.readOnly({ path: 'a.txt', mode: 'fast' })).toBe(true)
  })

  test('an `as const` schema declared apart from the tool types the handler too', () => {
    const parameters = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } as const
    const tool = defineTool({
      name: 'echo_typed',
      description: 'Echo.',
      parameters,
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ text: string }>()
        // @ts-expect-error a number is not a string
        const n: number = args.text
        return n
      },
    })
    expectTypeOf(tool.handler).parameter(0).toEqualTypeOf<{ text: string }>()
    expect(tool.name).toBe('echo_typed')
  })

  test('the explicit type argument form keeps working and wins', () => {
    const tool = defineTool<{ text: string }>({
      name: 'explicit',
      description: 'Explicit.',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ text: string }>()
        return args.text
      },
    })
    expectTypeOf(tool.handler).parameter(0).toEqualTypeOf<{ text: string }>()
    expect(tool.parameters).toEqual({ type: 'object', properties: { text: { type: 'string' } } })
  })

  test('a schema known only as a record (built at run time) gives Record<string, unknown>', () => {
    const parameters: Record<string, unknown> = { type: 'object' }
    const tool = defineTool({ name: 'loose', description: 'Loose.', parameters, handler: (args) => Object.keys(args).length })
    expectTypeOf(tool.handler).parameter(0).toEqualTypeOf<Record<string, unknown>>()
    expect(tool.handler({ a: 1 }, ctx)).toBe(1)
  })
})
