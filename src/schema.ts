import { createRequire } from 'node:module'
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv'

// ajv loads with the first validator built, not with this module: a start-up that compiles no
// schema (every plugin schema known good from an earlier run, see registry.ts) never pays for it.
const lazyRequire = createRequire(import.meta.url)

/**
 * The one ajv set-up for model input: strict schemas, own properties only, and none of the options
 * that would let input change itself or the schema ($data, coercion, defaults, removeAdditional).
 */
export function createAjv(): Ajv {
  const { Ajv: AjvClass } = lazyRequire('ajv') as typeof import('ajv')
  return new AjvClass({
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
    // The standard format names are accepted as annotations (not checked: no format library is
    // bundled), so a schema written for any JSON Schema tool compiles; a misspelt format still fails.
    formats: Object.fromEntries(ANNOTATION_FORMATS.map((name) => [name, true as const])),
  })
}

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
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined, data: unknown): string[] {
  if (!errors || errors.length === 0) return []
  const lines = new Set<string>()
  for (const error of errors) lines.add(describeOne(error, data))
  return [...lines]
}

function describeOne(error: ErrorObject, data: unknown): string {
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
      return `${at} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    case 'const':
      return `${at} must be ${JSON.stringify(params.allowedValue)}`
    default:
      return `${at} ${error.message ?? 'is invalid'}${gotScalar(valueAt(data, error.instancePath))}`
  }
}

/** ", got 0" for a number, boolean or short string; nothing for larger values. */
function gotScalar(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `, got ${String(value)}`
  if (typeof value === 'string' && value.length <= 60) return `, got ${JSON.stringify(value)}`
  return ''
}

function fieldName(instancePath: string): string {
  if (instancePath === '') return 'the arguments object'
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
