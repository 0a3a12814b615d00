import { createRequire } from 'node:module'
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv'
import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { ToolhostError } from '../contract/errors.js'
import { compileLinearRegex } from '../patterns/linear-regex.js'
import type { JsonSchema } from '../contract/types.js'

// ajv loads with the first validator built, not with this module: a start-up that compiles no
// schema (every plugin schema known good from an earlier run, see registry.ts) never pays for it.
const lazyRequire = createRequire(import.meta.url)

/** The JSON Schema dialects toolhost validates: draft-07 and 2020-12. */
export type SchemaDialect = 'draft-07' | '2020-12'

/**
 * The dialect of a schema without `$schema`: 2020-12, the default MCP fixes for tool schemas
 * (SEP-1613) and the one the model APIs describe their schema subset in. Schemas in the common
 * subset (type, properties, required, enum, items as one schema, $defs/$ref) mean the same in both;
 * a draft-07 schema using tuple `items: [...]` or `dependencies` says `$schema: draft-07`.
 */
export const DEFAULT_SCHEMA_DIALECT: SchemaDialect = '2020-12'

// `$schema` values naming each dialect (with or without the empty fragment, http or https).
const DIALECT_URIS: ReadonlyMap<string, SchemaDialect> = new Map([
  ['http://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['http://json-schema.org/draft/2020-12/schema', '2020-12'],
])

/**
 * The dialect a schema is written in, from its `$schema` (or the default when absent). An unknown
 * `$schema` throws E_SCHEMA_INVALID naming the ones accepted.
 *
 * @example
 * schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }) // 'draft-07'
 * schemaDialect({ type: 'object' })                                                   // '2020-12'
 */
export function schemaDialect(schema: JsonSchema): SchemaDialect {
  const declared = schema.$schema
  if (declared === undefined) return DEFAULT_SCHEMA_DIALECT
  const dialect = typeof declared === 'string' ? DIALECT_URIS.get(declared.replace(/#$/, '')) : undefined
  if (dialect) return dialect
  throw new ToolhostError(
    'E_SCHEMA_INVALID',
    `$schema ${JSON.stringify(declared)} is not a dialect toolhost validates; use "https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#", or leave $schema out for 2020-12`,
  )
}

/**
 * The one ajv set-up for model input, in a dialect (default 2020-12): strict schemas, own properties
 * only, and none of the options that would let input change itself or the schema ($data, coercion,
 * defaults, removeAdditional).
 *
 * @example
 * const validate = createAjv('draft-07').compile({ type: 'object', properties: { path: { type: 'string' } } })
 */
export function createAjv(dialect: SchemaDialect = DEFAULT_SCHEMA_DIALECT): Ajv {
  // The standard format names are accepted as annotations (not checked: no format library is
  // bundled), so a schema written for any JSON Schema tool compiles; a misspelt format still fails.
  const options: Options = { ...AJV_OPTIONS, formats: Object.fromEntries(ANNOTATION_FORMATS.map((name) => [name, true as const])), code: { regExp: linearPattern } }
  if (dialect === '2020-12') {
    const { Ajv2020 } = lazyRequire('ajv/dist/2020') as typeof import('ajv/dist/2020.js')
    return new Ajv2020(options)
  }
  const { Ajv: AjvClass } = lazyRequire('ajv') as typeof import('ajv')
  return new AjvClass(options)
}

const AJV_OPTIONS: Options = {
  strict: true,
  ownProperties: true,
  allErrors: true,
  $data: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  // Plugin schemas often carry `examples` and similar annotations.
  strictTypes: 'log',
  strictTuples: 'log',
  logger: false,
}

/**
 * Compiles schemas of either dialect, each with the ajv of its `$schema` (one ajv per dialect, made
 * on first use). Has ajv's `compile`/`removeSchema`, so it stands where one ajv stood.
 *
 * @example
 * const schemas = new SchemaCompiler()
 * const validate = schemas.compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: {} })
 */
export class SchemaCompiler {
  readonly #ajv = new Map<SchemaDialect, Ajv>()

  /** Compiles `schema` in its dialect; an invalid schema or unknown `$schema` throws. */
  compile(schema: JsonSchema): ValidateFunction {
    return this.#ajvFor(schemaDialect(schema)).compile(schema)
  }

  /**
   * The validator of a schema known to compile (it did, under the same set-up), added under `key`
   * without checking it against its meta-schema again: most of a first compile's cost.
   */
  compileKnown(schema: JsonSchema, key: string): ValidateFunction {
    const ajv = this.#ajvFor(schemaDialect(schema))
    ajv.addSchema(schema, key, undefined, false)
    const validate = ajv.getSchema(key) as ValidateFunction | undefined
    if (!validate) throw new Error('ajv kept no validator')
    return validate
  }

  /** Forgets a compiled schema (and its `$id`), or the one added under `key`, so it may be compiled again after a reload. */
  removeSchema(schema: JsonSchema, key?: string): void {
    let dialect: SchemaDialect
    try {
      dialect = schemaDialect(schema)
    } catch {
      return // never compiled
    }
    this.#ajv.get(dialect)?.removeSchema(key ?? schema)
  }

  #ajvFor(dialect: SchemaDialect): Ajv {
    let ajv = this.#ajv.get(dialect)
    if (!ajv) this.#ajv.set(dialect, (ajv = createAjv(dialect)))
    return ajv
  }
}

/**
 * A schema's `pattern` (and `patternProperties`) runs on model input: it is compiled with the
 * linear-time RE2 engine, so a plugin's or an MCP server's pattern such as `^(a+)+$` cannot be made
 * to backtrack for minutes. A pattern RE2 cannot express (lookaround, backreferences) keeps
 * JavaScript's engine, as before: such schemas still work, without that guarantee.
 */
const linearPattern: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    try {
      const compiled = compileLinearRegex(pattern)
      // ajv keys compiled patterns by their text: it must differ per pattern.
      return { test: compiled.test, toString: () => `/${pattern}/${flags} (RE2)` }
    } catch {
      return new RegExp(pattern, flags)
    }
  },
  { code: 'toolhostLinearPattern' },
)

/** Format names of JSON Schema (draft 7 and 2020-12); accepted, not validated. */
export const ANNOTATION_FORMATS = [
  'date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6',
  'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer',
  'relative-json-pointer', 'regex',
] as const

export type { ValidateFunction }

/**
 * Turns ajv errors into one line per problem, each naming the field by its path, in words a model
 * can act on ("`path` is required", "`limit` must be integer, got string").
 */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined, data: unknown, root = 'the arguments object'): string[] {
  if (!errors || errors.length === 0) return []
  const lines = new Set<string>()
  for (const error of errors) lines.add(describeOne(error, data, root))
  return [...lines]
}

function describeOne(error: ErrorObject, data: unknown, root: string): string {
  const fieldName = (instancePath: string): string => nameField(instancePath, root)
  const at = fieldName(error.instancePath)
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return `${fieldName(`${error.instancePath}/${String(params.missingProperty)}`)} is required but missing`
    case 'additionalProperties':
      return `${fieldName(`${error.instancePath}/${String(params.additionalProperty)}`)} is not an accepted field; remove it`
    case 'type':
      return `${at} must be ${String(params.type)}, got ${typeName(valueAt(data, error.instancePath))}`
    case 'enum':
      return `${at} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}${gotScalar(valueAt(data, error.instancePath))}`
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return `${at} ${sizeRule(error.keyword, Number(params.limit))}${gotScalar(valueAt(data, error.instancePath))}`
    case 'const':
      return `${at} must be ${JSON.stringify(params.allowedValue)}${gotScalar(valueAt(data, error.instancePath))}`
    default:
      return `${at} ${error.message ?? 'is invalid'}${gotScalar(valueAt(data, error.instancePath))}`
  }
}

// ajv says "must NOT have fewer than 1 characters"; a person or a model reads a plain rule better.
function sizeRule(keyword: string, limit: number): string {
  const unit = keyword.endsWith('Length') ? 'character' : keyword.endsWith('Items') ? 'item' : 'field'
  const counted = `${limit} ${unit}${limit === 1 ? '' : 's'}`
  const least = keyword.startsWith('min')
  return keyword.endsWith('Length') ? `must be at ${least ? 'least' : 'most'} ${counted} long` : `must have at ${least ? 'least' : 'most'} ${counted}`
}

/** ", got 0" for a number, boolean or short string; nothing for larger values. */
function gotScalar(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `, got ${String(value)}`
  if (typeof value === 'string' && value.length <= 60) return `, got ${JSON.stringify(value)}`
  return ''
}

function nameField(instancePath: string, root: string): string {
  if (instancePath === '') return root
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  return '`' + parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') + '`'
}

function valueAt(data: unknown, instancePath: string): unknown {
  let node = data
  for (const raw of instancePath.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (typeof node !== 'object' || node === null) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/** "string", "integer", "array", "null", … as JSON Schema names types. */
export function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}
