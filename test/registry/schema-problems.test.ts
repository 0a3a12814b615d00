// An invalid plugin schema is refused with all its faults at once, each in plain words at its place
// in the schema (issue 24.7): what a plugin author reads in `toolhost doctor` and the load error.
import { describe, expect, test } from 'vitest'
import { defineTool } from '../../src/contract/define-tool.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import { describeCompileFailure, schemaProblems } from '../../src/registry/schema-problems.js'
import { SchemaCompiler } from '../../src/registry/schema.js'
import type { JsonSchema } from '../../src/contract/types.js'

const problems = (schema: Record<string, unknown>): string[] => schemaProblems(schema as JsonSchema)

describe('schemaProblems', () => {
  test.each([
    {
      why: 'a misspelt keyword, with its place and the keyword meant',
      schema: { type: 'object', properties: { a: { type: 'string', maxLenght: 3 } } },
      expected: ['`properties.a`: unknown keyword "maxLenght" (did you mean "maxLength"?)'],
    },
    {
      why: 'the same unknown keyword in two places: both named',
      schema: { type: 'object', descripton: 'x', properties: { a: { type: 'string', descripton: 'y' } } },
      expected: ['the schema\'s top level: unknown keyword "descripton" (did you mean "description"?)', '`properties.a`: unknown keyword "descripton" (did you mean "description"?)'],
    },
    {
      why: 'required naming an undeclared property',
      schema: { type: 'object', properties: { items: { type: 'object', properties: { path: { type: 'string' } }, required: ['paht'] } } },
      expected: ['`properties.items.required` names "paht", which `properties` does not declare (did you mean "path"?)'],
    },
    {
      why: 'two unknown formats (each stops ajv): both found',
      schema: { type: 'object', properties: { a: { type: 'string', format: 'emial' }, b: { type: 'string', format: 'urll' } } },
      expected: [expect.stringMatching(/^`properties\.a\.format`: unknown format "emial" \(did you mean "email"\?\); the formats accepted are date-time, /), expect.stringMatching(/^`properties\.b\.format`: unknown format "urll"; the formats accepted/)],
    },
    {
      why: 'what the meta-schema refuses, merged per place, with the unknown keywords beside',
      schema: { type: 'object', properties: { a: { type: 'strin' }, b: { type: 'integer', minimum: 'one' } }, requird: ['a'] },
      expected: [
        '`properties.a.type` must be one of "array", "boolean", "integer", "null", "number", "object", "string" (did you mean "string"?) or an array, got "strin"',
        '`properties.b.minimum` must be a number, got "one"',
        'the schema\'s top level: unknown keyword "requird" (did you mean "required"?)',
      ],
    },
    {
      // issue 31: the required fault (and the format) showed only once the type was fixed
      why: 'what the meta-schema refuses and a required naming an undeclared property and an unknown format: all at once',
      schema: { type: 'object', properties: { path: { type: 'strin' }, when: { type: 'string', format: 'date-tme' } }, required: ['paht'] },
      expected: [
        '`properties.path.type` must be one of "array", "boolean", "integer", "null", "number", "object", "string" (did you mean "string"?) or an array, got "strin"',
        '`required` names "paht", which `properties` does not declare (did you mean "path"?)',
        expect.stringMatching(/^`properties\.when\.format`: unknown format "date-tme" \(did you mean "date-time"\?\); the formats accepted are /),
      ],
    },
  ])('$why', ({ schema, expected }) => {
    expect(problems(schema)).toEqual(expected)
  })

  test('every kind together: one message numbering them', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', format: 'emial', maxLenght: 2 } }, required: ['b'] }
    let thrown: unknown
    try {
      new SchemaCompiler().compile(schema)
    } catch (error) {
      thrown = error
    }
    expect(describeCompileFailure(schema, thrown)).toMatch(/^3 problems: \(1\) `properties\.a\.format`: unknown format "emial".*; \(2\) `required` names "b", which `properties` does not declare; \(3\) `properties\.a`: unknown keyword "maxLenght" \(did you mean "maxLength"\?\)$/)
  })

  test('a schema that compiles has no problems (the strictTypes hints are not faults)', () => {
    expect(problems({ type: 'object', properties: { a: { minimum: 1 } } })).toEqual([])
  })
})

describe('registration names the tool, its file and every fault', () => {
  test('E_SCHEMA_INVALID with all faults in one message', () => {
    const registry = new ToolRegistry({ knownSchemas: { keyOf: () => undefined, has: () => false, add: () => {}, save: () => {} } as never })
    const tool = defineTool({ name: 'typo', description: 'Typos.', parameters: { type: 'object', properties: { n: { type: 'integr' }, s: { type: 'string', patern: '^a' } } } as JsonSchema, handler: () => 'x' })
    expect(() => registry.register(tool, { source: 'plugins/typo.ts' })).toThrow(
      'tool "typo" (plugins/typo.ts) has an invalid parameters schema: 2 problems: (1) `properties.n.type` must be one of "array", "boolean", "integer", "null", "number", "object", "string" (did you mean "integer"?) or an array, got "integr"; (2) `properties.s`: unknown keyword "patern" (did you mean "pattern"?)',
    )
  })
})
