import { describe, expect, test } from 'vitest'
import { definePrompt } from '../../src/contract/define-prompt.js'
import { defineResource } from '../../src/contract/define-resource.js'
import type { CompletionRef } from '../../src/registry/complete-argument.js'
import { ToolRegistry } from '../../src/registry/registry.js'

const registry = new ToolRegistry()
registry.register(
  definePrompt({
    name: 'review',
    description: 'Review a file.',
    arguments: { type: 'object', properties: { path: { type: 'string' }, focus: { type: 'string' }, note: { type: 'string' }, many: { type: 'string' }, odd: { type: 'string' } }, required: ['path'] },
    complete: {
      path: ['README.md', 'readme.txt', 'src/index.ts'],
      focus: (value, ctx) => [`${value}:${ctx.arguments.path ?? '-'}`],
      many: () => Array.from({ length: 150 }, (_, i) => `v${i}`),
      odd: () => [1, 2] as unknown as string[],
    },
    handler: () => '',
  }),
)
registry.register(defineResource({ uriTemplate: 'notes://{folder}/{name}', name: 'note', description: 'A note.', mimeType: 'text/plain', complete: { folder: ['work', 'home'] }, read: () => '' }))
registry.register(defineResource({ uriTemplate: 'vault://{key}', name: 'vault', description: 'Secrets.', mimeType: 'text/plain', requiresEnv: ['VAULT_TOKEN'], complete: { key: ['a'] }, read: () => '' }))
const catalogue = registry.promptsAndResources
const prompt: CompletionRef = { type: 'ref/prompt', name: 'review' }
const notes: CompletionRef = { type: 'ref/resource', uri: 'notes://{folder}/{name}' }

describe('complete: one argument of a prompt or variable of a template', () => {
  test.each<{ why: string; ref: CompletionRef; name: string; value: string; context?: Record<string, string>; values: string[]; total?: number; hasMore?: boolean }>([
    { why: 'a fixed list, by prefix ignoring case', ref: prompt, name: 'path', value: 'rEaD', values: ['README.md', 'readme.txt'] },
    { why: 'a fixed list, empty value: all', ref: prompt, name: 'path', value: '', values: ['README.md', 'readme.txt', 'src/index.ts'] },
    { why: 'a function, with the other arguments', ref: prompt, name: 'focus', value: 'bu', context: { path: 'a.md' }, values: ['bu:a.md'] },
    { why: 'no completer: no values', ref: prompt, name: 'note', value: 'x', values: [] },
    { why: 'over 100 values: the first 100, total and hasMore', ref: prompt, name: 'many', value: '', values: Array.from({ length: 100 }, (_, i) => `v${i}`), total: 150, hasMore: true },
    { why: 'a template variable', ref: notes, name: 'folder', value: 'w', values: ['work'] },
    { why: 'a template variable without completer', ref: notes, name: 'name', value: 'w', values: [] },
  ])('$why', async ({ ref, name, value, context, values, total, hasMore }) => {
    await expect(catalogue.complete(ref, { name, value }, context, { env: {} })).resolves.toEqual({ values, total: total ?? values.length, hasMore: hasMore ?? false })
  })

  test.each<{ why: string; ref: unknown; name: string; value?: unknown; context?: unknown; code: string; says: string }>([
    { why: 'an unknown prompt', ref: { type: 'ref/prompt', name: 'nope' }, name: 'path', code: 'E_NOT_FOUND', says: 'prompt "nope" is not registered' },
    { why: 'an unknown template', ref: { type: 'ref/resource', uri: 'nope://{x}' }, name: 'x', code: 'E_NOT_FOUND', says: 'no resource template "nope://{x}"' },
    { why: 'a hidden template', ref: { type: 'ref/resource', uri: 'vault://{key}' }, name: 'key', code: 'E_NOT_FOUND', says: 'missing env var VAULT_TOKEN' },
    { why: 'an undeclared argument', ref: prompt, name: 'nope', code: 'E_ARGS_INVALID', says: 'its arguments are path, focus, note, many, odd' },
    { why: 'an inherited name', ref: prompt, name: 'constructor', code: 'E_ARGS_INVALID', says: 'has no argument "constructor"' },
    { why: 'a bad ref', ref: { type: 'ref/tool', name: 'x' }, name: 'x', code: 'E_ARGS_INVALID', says: 'the completion reference must be' },
    { why: 'a value that is not a string', ref: prompt, name: 'path', value: 3, code: 'E_ARGS_INVALID', says: 'must be a string' },
    { why: 'context arguments that are not strings', ref: prompt, name: 'path', context: { path: 1 }, code: 'E_ARGS_INVALID', says: '`path` must be a string' },
    { why: 'a completer answering numbers', ref: prompt, name: 'odd', code: 'E_HANDLER_FAILED', says: 'not a list of strings' },
  ])('refuses $why', async ({ ref, name, value, context, code, says }) => {
    await expect(catalogue.complete(ref as CompletionRef, { name, value: (value ?? '') as string }, context as Record<string, string>, { env: {} })).rejects.toMatchObject({ code, message: expect.stringContaining(says) })
  })
})
