import { describe, expect, test } from 'vitest'
import { definePrompt } from '../../src/contract/define-prompt.js'
import { isToolhostError } from '../../src/contract/errors.js'
import type { PromptSpec } from '../../src/contract/prompt-types.js'

const base: PromptSpec = { name: 'review', description: 'Review a file.', handler: () => 'Review it.' }
const args = { type: 'object', properties: { path: { type: 'string' }, focus: { type: 'string' } }, required: ['path'] }

/** The code and message of what `fn` throws. */
function thrown(fn: () => unknown): { code: string; message: string } | undefined {
  try {
    fn()
  } catch (error) {
    return { code: isToolhostError(error) ? error.code : 'not a ToolhostError', message: (error as Error).message }
  }
  return undefined
}

describe('definePrompt', () => {
  test('fills defaults: no arguments (a closed empty object), no completers, no gating', () => {
    const prompt = definePrompt(base)
    expect(prompt).toMatchObject({ kind: 'prompt', name: 'review', title: undefined, description: 'Review a file.', complete: {}, check: undefined, requiresEnv: [] })
    expect(prompt.arguments).toEqual({ type: 'object', properties: {}, additionalProperties: false })
  })

  test('keeps what the spec declares, copying its lists', () => {
    const requiresEnv = ['REVIEW_TOKEN']
    const check = (): boolean => true
    const prompt = definePrompt({ ...base, title: 'Review', arguments: args, complete: { path: ['README.md'] }, check, requiresEnv } as PromptSpec)
    requiresEnv.push('LATER')
    expect(prompt).toMatchObject({ title: 'Review', arguments: args, complete: { path: ['README.md'] }, check, requiresEnv: ['REVIEW_TOKEN'] })
  })

  test.each<{ why: string; spec: unknown; says: string }>([
    { why: 'not an object', spec: null, says: 'expected a prompt spec object' },
    { why: 'a name with a space', spec: { ...base, name: 'code review' }, says: '`name` must be 1 to 128' },
    { why: 'an empty name', spec: { ...base, name: '' }, says: '`name` must be 1 to 128' },
    { why: 'a name of 129 characters', spec: { ...base, name: 'a'.repeat(129) }, says: '`name` must be 1 to 128' },
    { why: 'a title that is not a string', spec: { ...base, title: 3 }, says: '`title` must be a string' },
    { why: 'a blank description', spec: { ...base, description: '  ' }, says: '`description` must be a non-empty string' },
    { why: 'no handler', spec: { ...base, handler: undefined }, says: '`handler` must be a function' },
    { why: 'arguments of type array', spec: { ...base, arguments: { type: 'array' } }, says: '`arguments` must be a JSON Schema with type "object"' },
    { why: 'properties that are a list', spec: { ...base, arguments: { type: 'object', properties: [] } }, says: '`arguments.properties` must be an object' },
    { why: 'a number argument (MCP sends strings)', spec: { ...base, arguments: { type: 'object', properties: { n: { type: 'number' } } } }, says: 'argument `n` must be a schema with type "string"' },
    { why: 'an argument without a type', spec: { ...base, arguments: { type: 'object', properties: { n: {} } } }, says: 'argument `n` must be a schema with type "string"' },
    { why: 'an argument name with a space', spec: { ...base, arguments: { type: 'object', properties: { 'a b': { type: 'string' } } } }, says: 'argument names must be' },
    { why: 'required naming no argument', spec: { ...base, arguments: { ...args, required: ['nope'] } }, says: '`arguments.required` must list argument names' },
    { why: 'a completer for no argument', spec: { ...base, arguments: args, complete: { nope: [] } }, says: '`complete.nope` names no argument (the arguments are path, focus)' },
    { why: 'a completer for a prompt without arguments', spec: { ...base, complete: { path: [] } }, says: '`complete.path` names no argument' },
    { why: 'a completer that is a number', spec: { ...base, arguments: args, complete: { path: 7 } }, says: '`complete.path` must be a function or a list of strings' },
    { why: 'a completer list with a number', spec: { ...base, arguments: args, complete: { path: ['a', 1] } }, says: '`complete.path` must be a function or a list of strings' },
    { why: 'a check that is not a function', spec: { ...base, check: true }, says: '`check` must be a function' },
    { why: 'requiresEnv with an empty name', spec: { ...base, requiresEnv: [''] }, says: '`requiresEnv` must be a list of variable names' },
  ])('refuses $why with E_SCHEMA_INVALID saying what is wrong', ({ spec, says }) => {
    const error = thrown(() => definePrompt(spec as PromptSpec))
    expect(error?.code).toBe('E_SCHEMA_INVALID')
    expect(error?.message).toContain(says)
    expect(error?.message).toMatch(/^definePrompt: /)
  })
})
