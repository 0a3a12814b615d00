import { createRequire } from 'node:module'
import type { Ajv, Options, ValidateFunction } from 'ajv'
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
 * defaults, removeAdditional). A strict-mode fault of a schema throws, as `strict: true` does, unless
 * `onStrictFault` takes it: then compiling goes on, so every fault of a schema can be reported at
 * once (`schema-problems.ts`). `formats` adds format names to accept as annotations.
 *
 * @example
 * const validate = createAjv('draft-07').compile({ type: 'object', properties: { path: { type: 'string' } } })
 */
export function createAjv(dialect: SchemaDialect = DEFAULT_SCHEMA_DIALECT, extra: { formats?: readonly string[]; onStrictFault?: (message: string) => void } = {}): Ajv {
  // The standard format names are accepted as annotations (not checked: no format library is
  // bundled), so a schema written for any JSON Schema tool compiles; a misspelt format still fails.
  const formats = Object.fromEntries([...ANNOTATION_FORMATS, ...(extra.formats ?? [])].map((name) => [name, true as const]))
  const onStrictFault = extra.onStrictFault ?? ((message: string) => {
    throw new Error(message)
  })
  const logger = { log: () => {}, error: () => {}, warn: (message: unknown) => (isStrictFault(String(message)) ? onStrictFault(String(message)) : undefined) }
  const options: Options = { ...AJV_OPTIONS, formats, logger, code: { regExp: linearPattern } }
  if (dialect === '2020-12') {
    const { Ajv2020 } = lazyRequire('ajv/dist/2020') as typeof import('ajv/dist/2020.js')
    return new Ajv2020(options)
  }
  const { Ajv: AjvClass } = lazyRequire('ajv') as typeof import('ajv')
  return new AjvClass(options)
}

const AJV_OPTIONS: Options = {
  strict: true,
  // Strict faults of the schema go to the logger (which throws unless told to collect): see createAjv.
  strictSchema: 'log',
  strictRequired: 'log',
  ownProperties: true,
  allErrors: true,
  $data: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  // Plugin schemas often carry `examples` and similar annotations.
  strictTypes: 'log',
  strictTuples: 'log',
}

// What the logger hears that is a fault of the schema: ajv's strict-mode messages, but not the
// type and tuple hints (strictTypes, strictTuples: logged, never refused).
function isStrictFault(message: string): boolean {
  return message.startsWith('strict mode: ') && !message.endsWith('(strictTypes)') && !/-tuple, but minItems/.test(message)
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

export { describeSchemaErrors, typeName } from './describe-schema-errors.js'
