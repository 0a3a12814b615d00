// Type tests for definePrompt's argument inference and defineResource's template variables. tsc
// checks them (test/type-tests.test.ts): a wrong inference fails `expectTypeOf`, and a
// `@ts-expect-error` that stops erroring fails too. The runtime assertions check the handlers run.
import { describe, expect, expectTypeOf, test } from 'vitest'
import { definePrompt } from '../../src/contract/define-prompt.js'
import { defineResource } from '../../src/contract/define-resource.js'
import type { PromptContext, VarsOfTemplate } from '../../src/contract/prompt-types.js'

const ctx = { signal: new AbortController().signal, env: {} } as PromptContext

describe('definePrompt infers handler arguments from its const arguments schema', () => {
  test('required and optional string arguments, enums', async () => {
    const prompt = definePrompt({
      name: 'review',
      description: 'Review a file.',
      arguments: {
        type: 'object',
        properties: { path: { type: 'string' }, focus: { type: 'string', enum: ['bugs', 'style'] } },
        required: ['path'],
        additionalProperties: false,
      },
      complete: { focus: ['bugs', 'style'], path: (value) => [`${value}.md`] },
      handler: (args) => {
        expectTypeOf(args.path).toEqualTypeOf<string>()
        expectTypeOf(args.focus).toEqualTypeOf<'bugs' | 'style' | undefined>()
        // @ts-expect-error `pth` is not an argument of the schema
        void args.pth
        return `Review ${args.path} for ${args.focus ?? 'anything'}.`
      },
    })
    expect(await prompt.handler({ path: 'a.md' }, ctx)).toBe('Review a.md for anything.')
  })

  test('without arguments the handler gets none', () => {
    const prompt = definePrompt({
      name: 'simple',
      description: 'd',
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, never>>()
        return 'hi'
      },
    })
    expectTypeOf(prompt.handler).parameter(0).toEqualTypeOf<Record<string, never>>()
  })

  test('messages in the MCP PromptMessage shape, and strings for text', () => {
    definePrompt({
      name: 'shapes',
      description: 'd',
      handler: () => [
        { role: 'user', content: 'text' },
        { role: 'assistant', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } },
      ],
    })
    definePrompt({
      name: 'bad_role',
      description: 'd',
      // @ts-expect-error a role is user or assistant
      handler: () => [{ role: 'system', content: 'text' }],
    })
  })
})

describe('defineResource types vars from its template', () => {
  test('each {variable} is a string field of vars', async () => {
    const resource = defineResource({
      uriTemplate: 'notes://{folder}/{name}',
      name: 'note',
      description: 'A note.',
      mimeType: 'text/markdown',
      complete: { name: ['todo'] },
      read: (uri, vars) => {
        expectTypeOf(vars).toEqualTypeOf<{ folder: string; name: string }>()
        // @ts-expect-error `title` is not a variable of the template
        void vars.title
        return `${vars.folder}/${vars.name}`
      },
    })
    expect(await resource.read('notes://a/b', { folder: 'a', name: 'b' }, ctx)).toBe('a/b')
  })

  test('a fixed URI has no vars', () => {
    defineResource({
      uri: 'notes://index',
      name: 'index',
      description: 'd',
      mimeType: 'text/plain',
      read: (_uri, vars) => {
        expectTypeOf(vars).toEqualTypeOf<Record<string, never>>()
        return ''
      },
    })
  })

  test('VarsOfTemplate of a template known only as a string is a record', () => {
    expectTypeOf<VarsOfTemplate<string>>().toEqualTypeOf<Record<string, string>>()
    expectTypeOf<VarsOfTemplate<'a://{x}.{y}'>>().toEqualTypeOf<{ x: string; y: string }>()
  })
})
