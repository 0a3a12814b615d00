/**
 * OpenAI strict mode: a tool's schema rewritten the way strict function calling requires, and the
 * nulls that rewrite makes the model send taken out of a call's arguments again (admission does it
 * before validation: dispatch/admit/strict-tools.ts).
 */
import type { JsonSchema, ObjectJsonSchema } from '../contract/types.js'

// Keywords strict mode accepts. Everything else is left out of the schema the model sees; toolhost
// still validates the arguments against the tool's own schema, so those constraints still hold.
const KEPT = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$ref', '$defs', 'definitions',
  'description', 'title', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minItems', 'maxItems',
])
// Formats strict mode knows; another format is left out (toolhost's own schema still has it).
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])
// Keywords that change which values are valid in a way the model must know: without them the
// schema would say something else, so a schema using them is not rewritten (the tool stays non-strict).
const STRUCTURAL = ['allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'prefixItems', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'dependentSchemas', 'dependencies', 'contains']

class NotStrict extends Error {}

const cache = new WeakMap<JsonSchema, ObjectJsonSchema | null>()

/**
 * The schema rewritten for OpenAI strict mode: every object closed (`additionalProperties: false`)
 * with every property required, the optional ones made nullable (`type: [T, 'null']`, or
 * `anyOf: [S, {type: 'null'}]`), `oneOf` read as `anyOf`, and keywords strict mode does not take
 * left out. Undefined when the schema cannot be said in strict mode (free-form objects, `allOf`,
 * tuples, …): such a tool is offered with `strict: false`. Cached per schema object.
 *
 * @example
 * toStrictSchema({ type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] })
 * // { type: 'object', properties: { path: { type: 'string' }, limit: { type: ['integer', 'null'] } }, required: ['path', 'limit'], additionalProperties: false }
 */
export function toStrictSchema(schema: JsonSchema): ObjectJsonSchema | undefined {
  const cached = cache.get(schema)
  if (cached !== undefined) return cached ?? undefined
  let strict: ObjectJsonSchema | null
  try {
    // The root is checked to be `type: 'object'` in rewrite.
    strict = rewrite(schema, true) as ObjectJsonSchema
  } catch (error) {
    if (!(error instanceof NotStrict)) throw error
    strict = null
  }
  cache.set(schema, strict)
  return strict ?? undefined
}

function rewrite(node: unknown, isRoot = false): JsonSchema {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) throw new NotStrict()
  const schema = node as JsonSchema
  for (const key of STRUCTURAL) if (key in schema) throw new NotStrict()
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'oneOf') out.anyOf = value
    else if (key === 'format') {
      if (typeof value === 'string' && FORMATS.has(value)) out.format = value
    } else if (KEPT.has(key)) out[key] = value
  }
  if (isRoot && (schema.type !== 'object' || 'anyOf' in out)) throw new NotStrict()
  const describesValue = 'type' in out || 'enum' in out || 'const' in out || '$ref' in out || 'anyOf' in out
  if (!describesValue) throw new NotStrict() // `{}` (any value) has no strict form
  if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.map((branch) => rewrite(branch))
  for (const defs of ['$defs', 'definitions'] as const) {
    if (isRecord(out[defs])) out[defs] = mapValues(out[defs], (d) => rewrite(d))
  }
  if (out.items !== undefined) {
    if (Array.isArray(out.items)) throw new NotStrict() // a draft-07 tuple
    out.items = rewrite(out.items)
  }
  if (out.type === 'object' || isRecord(out.properties)) {
    if (out.additionalProperties !== undefined && out.additionalProperties !== false) throw new NotStrict() // a map
    const properties = isRecord(out.properties) ? out.properties : undefined
    if (!properties && out.additionalProperties !== false) throw new NotStrict() // free-form object
    const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : [])
    const names = Object.keys(properties ?? {})
    out.properties = Object.fromEntries(names.map((name) => {
      const property = rewrite(properties![name])
      return [name, required.has(name) || acceptsNull(properties![name]) ? property : nullable(property)]
    }))
    out.required = names
    out.additionalProperties = false
  }
  return out
}

function nullable(schema: JsonSchema): JsonSchema {
  const { type } = schema
  if (!('enum' in schema) && !('const' in schema) && (typeof type === 'string' || Array.isArray(type))) {
    return { ...schema, type: [...(Array.isArray(type) ? type : [type]), 'null'] }
  }
  return { anyOf: [schema, { type: 'null' }] }
}

/**
 * The arguments with the nulls strict mode made the model send taken out again: a `null` for a
 * property that is optional in the tool's own schema and does not accept null there means "not
 * given". Nulls the tool's schema allows are kept. Walks nested objects, arrays, local `$ref`s and
 * `anyOf`/`oneOf` branches. Returns `args` itself when there was nothing to take out.
 *
 * Each value is walked at most once per schema node (a recursive schema whose `anyOf` branches
 * lead back to it would otherwise cost 2^depth steps on nested model data), so the work grows with
 * the size of the arguments, which admission already holds to `limits.max_argument_chars` and
 * `limits.max_argument_depth`.
 *
 * @example
 * stripIntroducedNulls(readFileSchema, { path: 'a.txt', offset: null, limit: null }) // { path: 'a.txt' }
 */
export function stripIntroducedNulls(schema: JsonSchema, args: Record<string, unknown>): Record<string, unknown> {
  return strip(schema, args, { root: schema, done: new Map() }, 0) as Record<string, unknown>
}

/** One strip walk: the schema's root (for `$ref`) and, per schema node, what each value became. */
interface StripWalk {
  root: JsonSchema
  done: Map<object, Map<object, unknown>>
}

function strip(node: unknown, value: unknown, walk: StripWalk, depth: number): unknown {
  if (depth > 64 || !isRecord(node) || typeof value !== 'object' || value === null) return value
  let byValue = walk.done.get(node)
  if (byValue === undefined) walk.done.set(node, (byValue = new Map()))
  // Known already, or being walked further up (a schema cycle that consumes no data): as it is.
  if (byValue.has(value)) return byValue.get(value)
  byValue.set(value, value)
  const out = stripOnce(node, value, walk, depth)
  byValue.set(value, out)
  return out
}

function stripOnce(node: Record<string, unknown>, value: object, walk: StripWalk, depth: number): unknown {
  const schema = resolveRef(node, walk.root)
  if (Array.isArray(value)) {
    if (!isRecord(schema.items)) return value
    let changed = false
    const out = value.map((item) => {
      const next = strip(schema.items, item, walk, depth + 1)
      if (next !== item) changed = true
      return next
    })
    return changed ? out : value
  }
  let current = value as Record<string, unknown>
  for (const branch of [...asList(schema.anyOf), ...asList(schema.oneOf)]) current = strip(branch, current, walk, depth + 1) as Record<string, unknown>
  if (!isRecord(schema.properties)) return current
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : [])
  let out: Record<string, unknown> | undefined
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(current, name)) continue
    const item = current[name]
    if (item === null && !required.has(name) && !acceptsNull(property, walk.root)) {
      out ??= { ...current }
      delete out[name]
      continue
    }
    const next = strip(property, item, walk, depth + 1)
    if (next !== item) (out ??= { ...current })[name] = next
  }
  return out ?? current
}

/** True when `null` is a valid value of the schema (by type, enum, const or a branch; each node looked at once). */
function acceptsNull(node: unknown, root?: JsonSchema, seen = new Set<unknown>()): boolean {
  if (node === true) return true
  if (!isRecord(node) || seen.has(node)) return false
  seen.add(node)
  const schema = root ? resolveRef(node, root) : node
  const { type } = schema
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true
  if ('const' in schema && schema.const === null) return true
  return [...asList(schema.anyOf), ...asList(schema.oneOf)].some((branch) => acceptsNull(branch, root, seen))
}

function resolveRef(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = schema.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema
  let node: unknown = root
  for (const part of ref.slice(2).split('/')) {
    if (!isRecord(node)) return schema
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return isRecord(node) ? node : schema
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function mapValues(record: Record<string, unknown>, fn: (value: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
