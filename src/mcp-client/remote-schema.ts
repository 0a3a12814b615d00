import { ANNOTATION_FORMATS, schemaDialect } from '../registry/schema.js'
import type { JsonSchema } from '../contract/types.js'

// Keywords of JSON Schema draft-07 and 2020-12 (core, applicators, validation, annotations, content).
const KEYWORDS = new Set([
  '$schema', '$id', '$ref', '$defs', 'definitions', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$comment', '$vocabulary',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies', 'prefixItems', 'items', 'additionalItems', 'contains',
  'properties', 'patternProperties', 'additionalProperties', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties',
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired',
  'title', 'description', 'default', 'deprecated', 'readOnly', 'writeOnly', 'examples', 'format', 'contentEncoding', 'contentMediaType', 'contentSchema',
])
const ONE_SCHEMA = new Set(['not', 'if', 'then', 'else', 'additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'])
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
const FORMATS = new Set<string>(ANNOTATION_FORMATS)

/**
 * A copy of a remote MCP tool's schema that strict JSON Schema accepts, so it can be kept and
 * validated locally: keywords that are not JSON Schema (`x-widget`, OpenAPI's `nullable`, …), format
 * names nobody defines, and a `$schema` naming a dialect toolhost does not validate are dropped —
 * each named in `dropped`. Everything that constrains the arguments stays. The original is untouched.
 *
 * @example
 * strictSchemaCopy({ type: 'object', properties: { q: { type: 'string', 'x-widget': 'textarea' } } })
 * // { schema: { type: 'object', properties: { q: { type: 'string' } } }, dropped: ['x-widget at /properties/q'] }
 */
export function strictSchemaCopy(schema: JsonSchema): { schema: JsonSchema; dropped: string[] } {
  const dropped: string[] = []
  const copy = copySchema(schema, '', dropped) as JsonSchema
  try {
    schemaDialect(copy)
  } catch {
    dropped.push(`$schema ${JSON.stringify(copy.$schema)} (validated as 2020-12)`)
    delete copy.$schema
  }
  return { schema: copy, dropped }
}

function copySchema(schema: unknown, at: string, dropped: string[]): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema // booleans are schemas too
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    const here = `${at}/${key}`
    if (!KEYWORDS.has(key)) {
      dropped.push(`${key}${at === '' ? '' : ` at ${at}`}`)
      continue
    }
    if (key === 'format' && (typeof value !== 'string' || !FORMATS.has(value))) {
      dropped.push(`format ${JSON.stringify(value)}${at === '' ? '' : ` at ${at}`}`)
      continue
    }
    if (ONE_SCHEMA.has(key)) out[key] = copySchema(value, here, dropped)
    else if (key === 'items') out[key] = Array.isArray(value) ? value.map((v, i) => copySchema(v, `${here}/${i}`, dropped)) : copySchema(value, here, dropped)
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map((v, i) => copySchema(v, `${here}/${i}`, dropped))
    else if ((SCHEMA_MAPS.has(key) || key === 'dependencies') && isMap(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, v]) => [name, Array.isArray(v) ? v : copySchema(v, `${here}/${name}`, dropped)]))
    } else out[key] = value
  }
  return out
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
