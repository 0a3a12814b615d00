import type { ErrorObject } from 'ajv'
import { describeThrown } from '../contract/errors.js'
import { suggestNames } from '../contract/near-names.js'
import type { JsonSchema } from '../contract/types.js'
import { ANNOTATION_FORMATS, createAjv, schemaDialect, typeName } from './schema.js'

/**
 * Every fault of a schema that failed to compile, each in plain words with its JSON path inside the
 * schema: what the meta-schema refuses, then ajv's strict-mode faults (unknown keywords, `required`
 * naming an undeclared property, unknown formats), all of them, not only the first, and all of them
 * together whichever kinds there are (a meta-schema refusal hides no `required` fault). Called only
 * when a compile has failed: a fresh ajv collects the faults instead of stopping at the first.
 *
 * @example
 * schemaProblems({ type: 'object', properties: { a: { type: 'strin', maxLenght: 3 } } })
 * // ['`properties.a.type` must be one of "array", "boolean", …, "string" (did you mean "string"?), got "strin"']
 */
export function schemaProblems(schema: JsonSchema): string[] {
  const dialect = schemaDialect(schema)
  const meta = createAjv(dialect)
  // A schema its meta-schema refuses may make the compiler throw anything: report those faults, and
  // the unknown keywords the compiler would have refused (found by walking the schema).
  if (!meta.validateSchema(schema)) {
    const known = Object.keys(meta.RULES.keywords)
    const unknown = schemaPlaces(schema).flatMap((p) => Object.keys(p.node).filter((k) => !Object.hasOwn(meta.RULES.keywords, k)).map((k) => `${where(p.parts)}: unknown keyword "${k}"${hint(k, known)}`))
    // The faults the compiler would have found next, found by the same walk: every fault at once,
    // so a `required` naming an undeclared property shows before the rest are fixed (issue 31).
    return [...describeMetaErrors(meta.errors ?? [], schema), ...unknown, ...undeclaredRequired(schema), ...unknownFormats(schema)]
  }
  const formats: string[] = []
  const problems: string[] = []
  // Each unknown format stops a compile: accept it and compile again, up to a bound, to find the rest.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const faults: string[] = []
    const ajv = createAjv(dialect, { formats, onStrictFault: (message) => faults.push(message) })
    let thrown: unknown
    try {
      ajv.compile(schema)
    } catch (error) {
      thrown = error
    }
    const format = thrown === undefined ? undefined : /^unknown format "(.*)" ignored in schema at path "#(.*)"$/.exec(describeThrown(thrown))
    if (format) {
      problems.push(`${where(pointerParts(format[2]!).concat('format'))}: unknown format "${format[1]}"${hint(format[1]!, ANNOTATION_FORMATS)}; the formats accepted are ${ANNOTATION_FORMATS.join(', ')}`)
      formats.push(format[1]!)
      continue
    }
    for (const fault of new Set(faults)) problems.push(...describeStrictFault(fault, schema, Object.keys(ajv.RULES.keywords)))
    if (thrown !== undefined) problems.push(describeThrown(thrown).replace(/^strict mode: /, ''))
    break
  }
  return problems
}

const MAX_ROUNDS = 20

/** The meta-schema's refusals, one line per place in the schema (ajv's alternatives merged). */
function describeMetaErrors(errors: readonly ErrorObject[], schema: JsonSchema): string[] {
  const byPlace = new Map<string, ErrorObject[]>()
  for (const error of errors) byPlace.set(error.instancePath, [...(byPlace.get(error.instancePath) ?? []), error])
  const lines: string[] = []
  for (const [place, group] of byPlace) {
    const value = valueAtPointer(schema, place)
    const enums = group.filter((e) => e.keyword === 'enum').flatMap((e) => (e.params as { allowedValues: unknown[] }).allowedValues)
    const types = group.filter((e) => e.keyword === 'type').map((e) => String((e.params as { type: unknown }).type))
    const others = group.filter((e) => !['enum', 'type', 'anyOf', 'oneOf'].includes(e.keyword))
    const wanted = [...(enums.length > 0 ? [`one of ${enums.map((v) => JSON.stringify(v)).join(', ')}${typeof value === 'string' ? hint(value, enums.map(String)) : ''}`] : []), ...types.map(article)]
    if (wanted.length > 0) lines.push(`${where(pointerParts(place))} must be ${wanted.join(' or ')}, got ${shown(value)}`)
    for (const error of others) lines.push(`${where(pointerParts(place))} ${error.message ?? 'is invalid'}`)
  }
  return lines
}

/** One strict-mode fault in plain words, at each place of the schema it concerns. */
function describeStrictFault(fault: string, schema: JsonSchema, keywords: readonly string[]): string[] {
  const message = fault.replace(/^strict mode: /, '')
  const unknown = /^unknown keyword: "(.*)"$/.exec(message)
  if (unknown) {
    const keyword = unknown[1]!
    const places = schemaPlaces(schema).filter((p) => Object.hasOwn(p.node, keyword))
    const text = `unknown keyword "${keyword}"${hint(keyword, keywords)}`
    return places.length === 0 ? [text] : places.map((p) => `${where(p.parts)}: ${text}`)
  }
  const required = /^required property "(.*)" is not defined at "#(.*)" \(strictRequired\)$/.exec(message)
  if (required) {
    const parts = pointerParts(required[2]!)
    const node = valueAtPointer(schema, required[2]!) as { properties?: Record<string, unknown> } | undefined
    const declared = Object.keys(node?.properties ?? {})
    return [`${where(parts.concat('required'))} names "${required[1]}", which \`properties\` does not declare${hint(required[1]!, declared)}`]
  }
  return [message]
}

/** `required` names that the same schema object's `properties` does not declare (ajv's strictRequired, by walking). */
function undeclaredRequired(schema: JsonSchema): string[] {
  return schemaPlaces(schema).flatMap((p) => {
    const { required, properties } = p.node
    if (!Array.isArray(required)) return []
    const declared = typeof properties === 'object' && properties !== null && !Array.isArray(properties) ? Object.keys(properties) : []
    return required
      .filter((name): name is string => typeof name === 'string' && !declared.includes(name))
      .map((name) => `${where(p.parts.concat('required'))} names "${name}", which \`properties\` does not declare${hint(name, declared)}`)
  })
}

/** `format` values toolhost does not accept, by walking (the compiler stops at the first). */
function unknownFormats(schema: JsonSchema): string[] {
  const accepted: readonly string[] = ANNOTATION_FORMATS
  return schemaPlaces(schema).flatMap((p) => {
    const { format } = p.node
    if (typeof format !== 'string' || accepted.includes(format)) return []
    return [`${where(p.parts.concat('format'))}: unknown format "${format}"${hint(format, ANNOTATION_FORMATS)}; the formats accepted are ${ANNOTATION_FORMATS.join(', ')}`]
  })
}

/** Every schema object inside `schema` (itself included) with the path to it. */
function schemaPlaces(schema: unknown): Array<{ node: Record<string, unknown>; parts: string[] }> {
  const places: Array<{ node: Record<string, unknown>; parts: string[] }> = []
  const visit = (node: unknown, parts: string[]): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || places.length > MAX_PLACES) return
    const object = node as Record<string, unknown>
    places.push({ node: object, parts })
    for (const [key, value] of Object.entries(object)) {
      if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
        for (const [name, sub] of Object.entries(value)) visit(sub, [...parts, key, name])
      } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
        value.forEach((sub, i) => visit(sub, [...parts, key, String(i)]))
      } else if (SCHEMA_ONE.has(key)) {
        visit(value, [...parts, key])
      }
    }
  }
  visit(schema, [])
  return places
}

const MAX_PLACES = 10_000
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'])
const SCHEMA_ONE = new Set(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'])

/** "`properties.a.type`", or "the schema's top level". */
function where(parts: readonly string[]): string {
  return parts.length === 0 ? "the schema's top level" : '`' + parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') + '`'
}

function pointerParts(pointer: string): string[] {
  return pointer === '' ? [] : pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function valueAtPointer(root: unknown, pointer: string): unknown {
  let node = root
  for (const key of pointerParts(pointer)) {
    if (typeof node !== 'object' || node === null) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

function hint(wanted: string, names: readonly string[]): string {
  // Any name is one edit from a one- or two-letter name: no hint is worth giving there.
  if (wanted.length < 3) return ''
  const [close] = suggestNames(wanted, names)
  return close === undefined || close === wanted ? '' : ` (did you mean "${close}"?)`
}

function article(type: string): string {
  return type === 'array' || type === 'object' || type === 'integer' ? `an ${type}` : `a ${type}`
}

function shown(value: unknown): string {
  const text = JSON.stringify(value)
  return text !== undefined && text.length <= 60 ? text : typeName(value)
}

/**
 * Why a schema failed to compile, for the E_SCHEMA_INVALID message: its faults numbered when there
 * are several, else what the compiler said.
 *
 * @example
 * describeCompileFailure(schema, error) // '2 problems: (1) `properties.a`: unknown keyword …; (2) …'
 */
export function describeCompileFailure(schema: JsonSchema, error: unknown): string {
  let problems: string[]
  try {
    problems = schemaProblems(schema)
  } catch {
    problems = []
  }
  if (problems.length === 0) return describeThrown(error)
  if (problems.length === 1) return problems[0]!
  return `${problems.length} problems: ${problems.map((p, i) => `(${i + 1}) ${p}`).join('; ')}`
}
