// Type tests for defineTool with zod 4 schemas (compiled by test/type-tests.test.ts): the handler's
// `args` is the schema's output type (defaults filled in), the per-call functions get its input type.
import { describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../src/contract/define-tool.js'
import type { ToolContext } from '../../src/contract/types.js'

const ctx = {} as ToolContext

describe('defineTool infers handler arguments from a zod object schema', () => {
  test('required, optional, defaulted, enum and nested fields', async () => {
    const tool = defineTool({
      name: 'zod_typed',
      description: 'A tool typed by zod.',
      parameters: z.object({
        path: z.string().describe('the file'),
        lines: z.number().int().min(1).default(10),
        mode: z.enum(['fast', 'slow']).optional(),
        range: z.object({ from: z.number() }).optional(),
      }),
      handler: (args) => {
        expectTypeOf(args.path).toEqualTypeOf<string>()
        expectTypeOf(args.lines).toEqualTypeOf<number>()
        expectTypeOf(args.mode).toEqualTypeOf<'fast' | 'slow' | undefined>()
        expectTypeOf(args.range).toEqualTypeOf<{ from: number } | undefined>()
        // @ts-expect-error `pth` is not a field of the schema
        void args.pth
        return `${args.path} ${args.lines}`
      },
      // What the model sent, checked: `lines` may be missing here.
      readOnly: (args) => {
        expectTypeOf(args.lines).toEqualTypeOf<number | undefined>()
        return args.mode === 'fast'
      },
    })
    expectTypeOf(tool.handler).parameter(0).toHaveProperty('path').toEqualTypeOf<string>()
    expect(await tool.handler({ path: 'a.txt' }, ctx)).toBe('a.txt 10')
    expect(tool.readOnly({ path: 'a.txt', mode: 'fast' })).toBe(true)
  })

  test('a transform: the handler gets the output type', async () => {
    const tool = defineTool({
      name: 'zod_transform',
      description: 'Counts.',
      parameters: z.object({ text: z.string().transform((s) => s.length) }),
      handler: (args) => {
        expectTypeOf(args.text).toEqualTypeOf<number>()
        return args.text * 2
      },
    })
    expect(await tool.handler({ text: 'abc' } as never, ctx)).toBe(6)
  })

  test('a handler that reads a field the schema lacks does not compile', () => {
    defineTool({
      name: 'zod_wrong',
      description: 'Wrong.',
      parameters: z.object({ text: z.string() }),
      // @ts-expect-error a string is not a number
      handler: (args): number => args.text,
    })
  })

  test('a zod outputSchema is accepted beside a zod parameters schema', () => {
    const tool = defineTool({
      name: 'zod_output',
      description: 'Structured.',
      parameters: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      handler: () => ({ count: 1 }),
    })
    expect(tool.outputSchema).toEqual({ type: 'object', properties: { count: { type: 'number' } }, required: ['count'], additionalProperties: false })
  })
})
