import type { ErrorObject } from 'ajv'

/**
 * Turns ajv errors (all of them: ajv runs with `allErrors`) into one line per problem, each naming
 * the field by its path, in words a model can act on ("`path` is required", "`limit` must be
 * integer, got string"). A failed `anyOf`/`oneOf` is one line saying what each allowed form wanted,
 * not one line per branch. At most `MAX_PROBLEMS` lines: a huge wrong array is not echoed item by item.
 */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined, data: unknown, root = 'the arguments object'): string[] {
  if (!errors || errors.length === 0) return []
  const lines = [...new Set(describeAll(errors, data, root))]
  return lines.length <= MAX_PROBLEMS ? lines : [...lines.slice(0, MAX_PROBLEMS), `and ${lines.length - MAX_PROBLEMS} more problems`]
}

/** The most lines one validation failure is described in. */
export const MAX_PROBLEMS = 20

// Keywords whose failure ajv reports beside the failures of their subschemas: the keyword's own
// line says it all, so the subschemas' errors are read only through it.
const GROUPING = new Set(['anyOf', 'oneOf', 'contains', 'propertyNames', 'if'])

function describeAll(errors: readonly ErrorObject[], data: unknown, root: string): string[] {
  const groups = errors.filter((e) => GROUPING.has(e.keyword))
  const inside = (error: ErrorObject, group: ErrorObject): boolean => error !== group && groupBases(group).some((base) => error.schemaPath.startsWith(`${base}/`))
  const lines: string[] = []
  for (const error of errors) {
    if (groups.some((g) => inside(error, g))) continue
    const members = GROUPING.has(error.keyword) ? errors.filter((e) => inside(e, error)) : []
    lines.push(describeOne(error, members, data, root))
  }
  return lines
}

// Where a grouping keyword's subschemas sit: `…/anyOf`, `…/propertyNames`; an `if`'s are its `then` and `else`.
function groupBases(group: ErrorObject): string[] {
  if (group.keyword !== 'if') return [group.schemaPath]
  const parent = group.schemaPath.replace(/\/if$/, '')
  return [`${parent}/then`, `${parent}/else`]
}

function describeOne(error: ErrorObject, members: readonly ErrorObject[], data: unknown, root: string): string {
  const fieldName = (instancePath: string): string => nameField(instancePath, root)
  const at = fieldName(error.instancePath)
  const value = valueAt(data, error.instancePath)
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return `${fieldName(`${error.instancePath}/${String(params.missingProperty)}`)} is required but missing`
    case 'additionalProperties':
      return `${fieldName(`${error.instancePath}/${String(params.additionalProperty)}`)} is not an accepted field; remove it`
    case 'unevaluatedProperties':
      return `${fieldName(`${error.instancePath}/${String(params.unevaluatedProperty)}`)} is not an accepted field; remove it`
    case 'false schema':
      return `${at} is not accepted here; remove it`
    case 'dependentRequired':
    case 'dependencies':
      return `${fieldName(`${error.instancePath}/${String(params.missingProperty)}`)} is required when ${fieldName(`${error.instancePath}/${String(params.property)}`)} is given`
    case 'type':
      return `${at} must be ${[params.type].flat().map(String).join(' or ')}, got ${typeName(value)}`
    case 'enum':
      return `${at} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}${gotScalar(value)}`
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return `${at} ${sizeRule(error.keyword, Number(params.limit))}${gotScalar(value)}`
    case 'const':
      return `${at} must be ${JSON.stringify(params.allowedValue)}${gotScalar(value)}`
    case 'multipleOf':
      return `${at} must be a multiple of ${String(params.multipleOf)}${gotScalar(value)}`
    case 'uniqueItems':
      return `${at} must not repeat an item: [${Math.min(Number(params.i), Number(params.j))}] and [${Math.max(Number(params.i), Number(params.j))}] are the same`
    case 'not':
      return `${at} must not match the schema under \`not\`${gotScalar(value)}`
    case 'contains':
      return `${at} must hold at least ${String(params.minContains ?? 1)}${params.maxContains === undefined ? '' : ` and at most ${String(params.maxContains)}`} item${params.minContains === 1 ? '' : 's'} matching its \`contains\` schema`
    case 'propertyNames':
      return `${at} has a field name that is not accepted, ${JSON.stringify(params.propertyName)}: ${members.map((m) => m.message ?? 'invalid').join(', ') || 'it does not match `propertyNames`'}`
    case 'if':
      return members.length > 0 ? describeAll(members, data, root).join('; ') : `${at} does not meet the schema its \`if\` condition selects`
    case 'anyOf':
    case 'oneOf':
      return describeAlternatives(error, members, data, root)
    default:
      return `${at} ${error.message ?? 'is invalid'}${gotScalar(value)}`
  }
}

/**
 * A failed `anyOf`/`oneOf` as one line: "`x` must be string or number, got boolean" when each
 * allowed form asked only for a type or value; else what each form found wrong.
 */
function describeAlternatives(error: ErrorObject, members: readonly ErrorObject[], data: unknown, root: string): string {
  const at = nameField(error.instancePath, root)
  const passing = (error.params as { passingSchemas?: unknown }).passingSchemas
  if (Array.isArray(passing)) return `${at} matches more than one of its allowed forms (forms ${passing.map((i) => Number(i) + 1).join(' and ')}); it must match exactly one`
  const forms = new Map<string, ErrorObject[]>()
  for (const member of members) {
    const form = member.schemaPath.slice(error.schemaPath.length + 1).split('/')[0]!
    forms.set(form, [...(forms.get(form) ?? []), member])
  }
  const value = valueAt(data, error.instancePath)
  const simple = [...forms.values()].every((f) => f.length === 1 && f[0]!.instancePath === error.instancePath && ['type', 'const', 'enum'].includes(f[0]!.keyword))
  if (simple && forms.size > 0) {
    const wanted = [...forms.values()].map(([f]) => {
      const params = f!.params as Record<string, unknown>
      if (f!.keyword === 'type') return [params.type].flat().map(String).join(' or ')
      if (f!.keyword === 'const') return JSON.stringify(params.allowedValue)
      return `one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    })
    return `${at} must be ${[...new Set(wanted)].join(' or ')}, got ${gotScalar(value).replace(/^, got /, '') || typeName(value)}`
  }
  const described = [...forms.values()].map((f, i) => `(${i + 1}) ${describeAll(f, data, root).join(', ')}`)
  return `${at} matches none of its ${forms.size || ''} allowed forms${described.length > 0 ? `: ${described.join('; ')}` : ''}`.replace('its  allowed', 'its allowed')
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
