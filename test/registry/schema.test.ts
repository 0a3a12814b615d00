import { describe, expect, test } from 'vitest'
import { createAjv, DEFAULT_SCHEMA_DIALECT, describeSchemaErrors, SchemaCompiler, schemaDialect, typeName } from '../../src/registry/schema.js'

const schema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    mode: { enum: ['a', 'b'] },
    kind: { const: 'file' },
    name: { type: 'string', minLength: 2, pattern: '^[a-z]+$' },
    code: { type: 'string', maxLength: 1 },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
    opts: {
      type: 'object',
      properties: { deep: { type: 'boolean' }, list: { type: 'array', items: { type: 'integer' } } },
      required: ['deep'],
      additionalProperties: false,
    },
  },
  required: ['path'],
  additionalProperties: false,
}

const validate = createAjv().compile(schema)
const problems = (data: unknown): string[] => {
  expect(validate(data)).toBe(false)
  return describeSchemaErrors(validate.errors, data)
}

describe('describeSchemaErrors: each bad field named by its path, in words a model can act on', () => {
  test.each([
    { data: {}, expected: ['`path` is required but missing'] },
    { data: { path: 'x', extra: 1 }, expected: ['`extra` is not an accepted field; remove it'] },
    { data: { path: 1 }, expected: ['`path` must be string, got integer'] },
    { data: { path: 'x', limit: '5' }, expected: ['`limit` must be integer, got string'] },
    { data: { path: 'x', limit: 2.5 }, expected: ['`limit` must be integer, got number'] },
    { data: { path: 'x', limit: 0 }, expected: ['`limit` must be >= 1, got 0'] },
    { data: { path: 'x', limit: 101 }, expected: ['`limit` must be <= 100, got 101'] },
    { data: { path: 'x', mode: 'c' }, expected: ['`mode` must be one of "a", "b", got "c"'] },
    { data: { path: 'x', kind: 'dir' }, expected: ['`kind` must be "file", got "dir"'] },
    { data: { path: 'x', name: 'A' }, expected: ['`name` must be at least 2 characters long, got "A"', '`name` must match pattern "^[a-z]+$", got "A"'] },
    { data: { path: 'x', code: 'ab' }, expected: ['`code` must be at most 1 character long, got "ab"'] },
    { data: { path: 'x', tags: [] }, expected: ['`tags` must have at least 1 item'] },
    { data: { path: 'x', tags: ['a', 'b', 'c'] }, expected: ['`tags` must have at most 2 items'] },
    { data: { path: 'x', opts: {} }, expected: ['`opts.deep` is required but missing'] },
    { data: { path: 'x', opts: { deep: true, more: 1 } }, expected: ['`opts.more` is not an accepted field; remove it'] },
    { data: { path: 'x', opts: { deep: 'yes' } }, expected: ['`opts.deep` must be boolean, got string'] },
    { data: { path: 'x', opts: { deep: true, list: [1, 'two'] } }, expected: ['`opts.list[1]` must be integer, got string'] },
    { data: { path: null, limit: null }, expected: ['`path` must be string, got null', '`limit` must be integer, got null'] },
    { data: [], expected: ['the arguments object must be object, got array'] },
  ])('$data', ({ data, expected }) => {
    expect(problems(data)).toEqual(expected)
  })

  test('no errors, no lines', () => {
    expect(describeSchemaErrors(null, {})).toEqual([])
    expect(describeSchemaErrors([], {})).toEqual([])
  })

  test('a long string value is not echoed back', () => {
    expect(problems({ path: 'x', name: 'Q'.repeat(200) })).toEqual(['`name` must match pattern "^[a-z]+$"'])
  })
})

describe('describeSchemaErrors: the keywords beyond the common ones, and alternatives as one line (issue 24.7)', () => {
  const describe1 = (property: Record<string, unknown>, value: unknown, extra: Record<string, unknown> = {}): string[] => {
    const data = { a: value }
    const v = createAjv().compile({ type: 'object', properties: { a: property }, ...extra })
    expect(v(data)).toBe(false)
    return describeSchemaErrors(v.errors, data)
  }
  test.each([
    { why: 'a type list', property: { type: ['string', 'null'] }, value: 1, expected: ['`a` must be string or null, got integer'] },
    { why: 'anyOf of types', property: { anyOf: [{ type: 'string' }, { type: 'number' }] }, value: true, expected: ['`a` must be string or number, got true'] },
    { why: 'anyOf of values', property: { anyOf: [{ const: 'x' }, { enum: ['y', 'z'] }] }, value: 'q', expected: ['`a` must be "x" or one of "y", "z", got "q"'] },
    {
      why: 'oneOf with an object form',
      property: { oneOf: [{ type: 'string' }, { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] }] },
      value: { y: 1 },
      expected: ['`a` matches none of its 2 allowed forms: (1) `a` must be string, got object; (2) `a.x` is required but missing'],
    },
    { why: 'oneOf matched twice', property: { oneOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] }, value: 'x', expected: ['`a` matches more than one of its allowed forms (forms 1 and 2); it must match exactly one'] },
    { why: 'uniqueItems', property: { type: 'array', uniqueItems: true }, value: [1, 2, 1], expected: ['`a` must not repeat an item: [0] and [2] are the same'] },
    { why: 'multipleOf', property: { type: 'number', multipleOf: 2 }, value: 3, expected: ['`a` must be a multiple of 2, got 3'] },
    { why: 'not', property: { not: { type: 'string' } }, value: 'x', expected: ['`a` must not match the schema under `not`, got "x"'] },
    { why: 'contains', property: { type: 'array', contains: { type: 'string' } }, value: [1, 2], expected: ['`a` must hold at least 1 item matching its `contains` schema'] },
    { why: 'a false schema', property: false as never, value: 1, expected: ['`a` is not accepted here; remove it'] },
    { why: 'propertyNames', property: { type: 'object', propertyNames: { pattern: '^[a-z]+$' } }, value: { B2: 1 }, expected: ['`a` has a field name that is not accepted, "B2": must match pattern "^[a-z]+$"'] },
    {
      why: 'if/then: the branch\'s problem alone',
      property: { type: 'object', properties: { k: {}, v: {} }, if: { properties: { k: { const: 1 } }, required: ['k'] }, then: { properties: { v: {} }, required: ['v'] } },
      value: { k: 1 },
      expected: ['`a.v` is required but missing'],
    },
  ])('$why', ({ property, value, expected }) => {
    expect(describe1(property, value)).toEqual(expected)
  })

  test('dependentRequired and unevaluatedProperties name the fields', () => {
    const v = createAjv().compile({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, dependentRequired: { a: ['b'] }, unevaluatedProperties: false })
    const data = { a: 'x', c: 1 }
    expect(v(data)).toBe(false)
    expect(describeSchemaErrors(v.errors, data)).toEqual(['`b` is required when `a` is given', '`c` is not an accepted field; remove it'])
  })

  test('every problem at once, but at most 20 lines: a huge wrong array is not echoed item by item', () => {
    const lines = describe1({ type: 'array', items: { type: 'string' } }, Array.from({ length: 500 }, (_, i) => i))
    expect(lines).toHaveLength(21)
    expect(lines[0]).toBe('`a[0]` must be string, got integer')
    expect(lines[20]).toBe('and 480 more problems')
  })
})

describe('createAjv', () => {
  test.each([
    { why: 'unknown keyword', schema: { type: 'object', properties: { a: { type: 'string', maxLenght: 1 } } } },
    { why: 'unknown format', schema: { type: 'object', properties: { a: { type: 'string', format: 'no-such-format' } } } },
  ])('strict: rejects a schema with an $why', ({ schema: bad }) => {
    expect(() => createAjv().compile(bad)).toThrow()
  })

  test.each(['date-time', 'uri', 'email', 'uuid'])('the standard format %j compiles, as an annotation (not checked)', (format) => {
    const v = createAjv().compile({ type: 'object', properties: { a: { type: 'string', format } } })
    expect(v({ a: 'anything at all' })).toBe(true)
    expect(v({ a: 5 })).toBe(false)
  })

  test('never changes the input: no coercion, no defaults, no removal of extra fields', () => {
    const v = createAjv().compile({
      type: 'object',
      properties: { n: { type: 'integer' }, d: { type: 'string', default: 'filled' } },
      additionalProperties: false,
    })
    const input = { n: '5', extra: true }
    expect(v(input)).toBe(false)
    expect(input).toEqual({ n: '5', extra: true })
    const ok: Record<string, unknown> = { n: 5 }
    expect(v(ok)).toBe(true)
    expect(ok).toEqual({ n: 5 })
  })

  test('own properties only: an inherited property does not satisfy required', () => {
    const v = createAjv().compile({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] })
    expect(v(Object.create({ path: 'inherited' }))).toBe(false)
    expect(v({ path: 'own' })).toBe(true)
  })

  test('strict: `required` may only name declared properties', () => {
    expect(() => createAjv().compile({ type: 'object', required: ['path'] })).toThrow(/required property "path" is not defined/)
  })

  test('$data references are not enabled', () => {
    expect(() => createAjv().compile({ type: 'object', properties: { a: { type: 'integer' }, b: { maximum: { $data: '1/a' } } } })).toThrow()
  })
})

test.each([
  [null, 'null'],
  [[], 'array'],
  [1, 'integer'],
  [1.5, 'number'],
  ['s', 'string'],
  [true, 'boolean'],
  [{}, 'object'],
  [undefined, 'undefined'],
])('typeName(%j) is %s', (value, name) => {
  expect(typeName(value)).toBe(name)
})

describe('schema dialects: chosen by $schema, 2020-12 when absent', () => {
  const address = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }

  test.each([
    ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
    ['https://json-schema.org/draft/2020-12/schema#', '2020-12'],
    ['http://json-schema.org/draft-07/schema#', 'draft-07'],
    ['http://json-schema.org/draft-07/schema', 'draft-07'],
    [undefined, '2020-12'],
  ])('$schema %s is %s', (uri, dialect) => {
    expect(schemaDialect(uri === undefined ? { type: 'object' } : { $schema: uri, type: 'object' })).toBe(dialect)
    expect(DEFAULT_SCHEMA_DIALECT).toBe('2020-12')
  })

  test('an unknown $schema is E_SCHEMA_INVALID naming the dialects accepted', () => {
    expect(() => schemaDialect({ $schema: 'http://json-schema.org/draft-04/schema#' })).toThrow(expect.objectContaining({ code: 'E_SCHEMA_INVALID', message: expect.stringMatching(/draft-04.*2020-12.*draft-07/) }))
  })

  // Regression: the conformance scenario json-schema-2020-12 failed with `no schema with key or ref
  // "https://json-schema.org/draft/2020-12/schema"`.
  test('a 2020-12 schema with $defs/$ref compiles and validates', () => {
    const validate = new SchemaCompiler().compile({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address },
      properties: { home: { $ref: '#/$defs/address' }, tags: { type: 'array', prefixItems: [{ type: 'string' }], items: false } },
      required: ['home'],
      additionalProperties: false,
    })
    expect(validate({ home: { city: 'Oslo' }, tags: ['a'] })).toBe(true)
    expect(validate({ home: {} })).toBe(false)
    expect(describeSchemaErrors(validate.errors, { home: {} })).toEqual(['`home.city` is required but missing'])
    expect(validate({ home: { city: 'Oslo' }, tags: ['a', 'b'] })).toBe(false) // items: false after the prefix
  })

  test('a draft-07 schema with definitions and tuple items compiles in draft-07', () => {
    const validate = new SchemaCompiler().compile({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { address },
      properties: { home: { $ref: '#/definitions/address' }, pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false } },
    })
    expect(validate({ home: { city: 'Oslo' }, pair: ['a', 1] })).toBe(true)
    expect(validate({ pair: ['a', 'b'] })).toBe(false)
  })

  test('without $schema a schema is read as 2020-12 (tuple items must then be prefixItems)', () => {
    expect(() => new SchemaCompiler().compile({ type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }] } } })).toThrow()
    expect(new SchemaCompiler().compile({ type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } } })({ pair: ['a'] })).toBe(true)
  })

  test('the same $id compiled again after removeSchema (a hot reload) is accepted', () => {
    const compiler = new SchemaCompiler()
    const schema = { $id: 'urn:tool:x', $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }
    compiler.compile(schema)
    compiler.removeSchema(schema)
    expect(() => compiler.compile({ ...schema })).not.toThrow()
  })
})
