// The terminal form for ctx.ask({ question, schema }): one prompt per field, choices listed,
// defaults shown and taken, bad answers asked again, values converted to their types.
import { describe, expect, test } from 'vitest'
import { askForm } from '../../src/cli/terminal-form.js'
import type { AskSchema } from '../../src/index.js'

/** Answers the prompts in order; records everything shown. */
function scripted(lines: string[]): { io: { prompt(text: string): Promise<string>; say(text: string): void }; shown: () => string; prompts: string[] } {
  let shown = ''
  const prompts: string[] = []
  return {
    io: {
      prompt: async (text) => {
        prompts.push(text)
        shown += text
        if (lines.length === 0) throw new Error(`no scripted answer for prompt ${JSON.stringify(text)}`)
        return lines.shift()!
      },
      say: (text) => void (shown += text),
    },
    shown: () => shown,
    prompts,
  }
}

const SEP_1034: AskSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  },
}

const SEP_1330: AskSchema = {
  type: 'object',
  properties: {
    untitled: { type: 'string', enum: ['option1', 'option2'] },
    titled: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }] },
    legacy: { type: 'string', enum: ['opt1', 'opt2'], enumNames: ['Option One', 'Option Two'] },
    many: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1 },
    manyTitled: { type: 'array', items: { anyOf: [{ const: 'x', title: 'Ex' }, { const: 'y', title: 'Why' }] } },
  },
  required: ['untitled', 'many'],
}

describe('askForm', () => {
  test('empty lines take every default, each shown in its prompt (SEP-1034)', async () => {
    const s = scripted(['', '', '', '', ''])
    expect(await askForm('Update the fields', SEP_1034, s.io)).toEqual({ name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true })
    expect(s.prompts).toEqual([
      'answer (default: John Doe) > ',
      'a whole number (default: 30) > ',
      'a number (default: 95.5) > ',
      'choose a number (default: active) > ',
      'y/n (default: y) > ',
    ])
    expect(s.shown()).toContain('name — User name')
    expect(s.shown()).toContain('  3) pending')
  })

  test('answers are converted to their types; enums by number or by value', async () => {
    const s = scripted(['Jane', '25', '88', 'inactive', 'n'])
    expect(await askForm('q', SEP_1034, s.io)).toEqual({ name: 'Jane', age: 25, score: 88, status: 'inactive', verified: false })
  })

  test('titled, legacy and multi-select enums list their titles and return their values (SEP-1330)', async () => {
    const s = scripted(['2', '1', 'Option Two', '1, 3', ''])
    expect(await askForm('Pick', SEP_1330, s.io)).toEqual({ untitled: 'option2', titled: 'value1', legacy: 'opt2', many: ['a', 'c'] })
    expect(s.shown()).toContain('  1) First Option [value1]')
    expect(s.shown()).toContain('  2) Option Two [opt2]')
    expect(s.shown()).toContain('untitled (required)')
  })

  test.each([
    { name: 'a required field left empty', lines: ['', '1', '1', '1', '1', ''], problem: 'this one is required' },
    { name: 'a number out of range', lines: ['9', '1', '1', '1', '1', ''], problem: 'pick one of 1-2' },
    { name: 'too few picks', lines: ['1', '1', '1', ' ', '7', '2', ''], problem: 'pick numbers from 1-3' },
  ])('$name is asked again with why', async ({ lines, problem }) => {
    const s = scripted(lines)
    const answer = await askForm('Pick', SEP_1330, s.io)
    expect(answer.untitled).toBe('option1')
    expect(s.shown()).toContain(problem)
  })

  test.each([
    { property: { type: 'integer', minimum: 1 }, lines: ['1.5', '0', '3'], value: 3, problems: ['that is not a whole number', 'the smallest allowed is 1'] },
    { property: { type: 'boolean' }, lines: ['maybe', 'yes'], value: true, problems: ['answer y or n'] },
    { property: { type: 'string', minLength: 3 }, lines: ['ab', 'abc'], value: 'abc', problems: ['at least 3 characters'] },
  ])('$property.type checks: $lines → $value', async ({ property, lines, value, problems }) => {
    const s = scripted(lines)
    expect(await askForm('q', { type: 'object', properties: { f: property }, required: ['f'] }, s.io)).toEqual({ f: value })
    for (const problem of problems) expect(s.shown()).toContain(problem)
  })
})
