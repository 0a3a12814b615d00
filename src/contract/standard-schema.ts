/**
 * Schemas from validation libraries (zod 4, or any Standard Schema that can give JSON Schema) as
 * `parameters` and `outputSchema`. Detected by shape (`~standard`), never by importing a library:
 * zod stays an optional peer that toolhost loads only because the user's plugin did.
 */
import { describeThrown, ToolhostError } from './errors.js'
import type { StandardIssue, StandardJsonSchema } from './standard-schema-types.js'
import type { JsonSchema, ToolContext, ToolHandler } from './types.js'

/**
 * Whether `value` is a Standard Schema (zod 4, valibot, ArkType, …) rather than a JSON Schema: it has
 * a `~standard` object of version 1. A JSON Schema has no such key.
 *
 * @example
 * isStandardSchema(z.object({ path: z.string() })) // true
 * isStandardSchema({ type: 'object' })             // false
 */
export function isStandardSchema(value: unknown): value is StandardJsonSchema {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  const props = (value as { '~standard'?: unknown })['~standard']
  return typeof props === 'object' && props !== null && (props as { version?: unknown }).version === 1
}

/**
 * The JSON Schema (2020-12) of a Standard Schema, converted once: its input side for `parameters`
 * (what the model may send), its output side for `outputSchema`. A schema that cannot give one (no
 * converter, or a part JSON Schema cannot say, such as a `Date` or a transform) throws E_SCHEMA_INVALID
 * saying which tool and key.
 *
 * @example
 * jsonSchemaOf(z.object({ path: z.string() }), 'input', 'read: `parameters`')
 * // { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
 */
export function jsonSchemaOf(schema: StandardJsonSchema, side: 'input' | 'output', where: string): JsonSchema {
  const props = schema['~standard']
  const vendor = typeof props.vendor === 'string' ? props.vendor : 'a validation library'
  const convert = (props as { jsonSchema?: Partial<StandardJsonSchema['~standard']['jsonSchema']> }).jsonSchema?.[side]
  if (typeof convert !== 'function') {
    throw new ToolhostError(
      'E_SCHEMA_INVALID',
      `${where} is a ${vendor} schema that cannot give JSON Schema (it has no \`~standard.jsonSchema\` converter); use a version of ${vendor} that implements Standard JSON Schema (zod 4 does from 4.2), or pass a JSON Schema (for zod: z.toJSONSchema(schema))`,
    )
  }
  let converted: unknown
  try {
    converted = convert({ target: 'draft-2020-12' })
  } catch (error) {
    throw new ToolhostError('E_SCHEMA_INVALID', `${where}: the ${vendor} schema cannot be written as JSON Schema: ${describeThrown(error)}; keep to what JSON can carry (no dates, transforms or custom types in what the model sends)`, { cause: error })
  }
  if (typeof converted !== 'object' || converted === null || Array.isArray(converted)) {
    throw new ToolhostError('E_SCHEMA_INVALID', `${where}: the ${vendor} schema's JSON Schema converter returned ${converted === null ? 'null' : typeof converted}, not a schema object`)
  }
  // 2020-12 is the dialect a schema without `$schema` is read in: the model is shown the schema without it.
  const { $schema, ...rest } = converted as Record<string, unknown>
  return typeof $schema === 'string' && /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/.test($schema) ? rest : (converted as JsonSchema)
}

/**
 * The handler a tool with a Standard Schema runs: the arguments (already checked against the JSON
 * Schema) go through the schema's own `validate` first, so its defaults, transforms and refinements
 * (which JSON Schema cannot say) apply, as they do in the MCP, AI and Agents SDKs. A refusal is
 * E_ARGS_INVALID naming each field, in the call's own result.
 */
export function handlerParsingWith<Input, Output>(schema: StandardJsonSchema<Input, Output>, handler: ToolHandler<Output>, toolName: string): ToolHandler<Input> {
  const validate = schema['~standard'].validate
  if (typeof validate !== 'function') return handler as unknown as ToolHandler<Input>
  return async (args: Input, ctx: ToolContext) => {
    const result = await validate.call(schema['~standard'], args)
    if (result.issues !== undefined) throw new ToolhostError('E_ARGS_INVALID', `invalid arguments for ${toolName}: ${describeIssues(result.issues).join('; ')}. Fix these fields and call again.`)
    return handler(result.value, ctx)
  }
}

/**
 * One line per issue, each naming its field by path as schema errors do (`items[0].name: Required`).
 *
 * @example
 * describeIssues([{ message: 'no ".." allowed', path: ['path'] }]) // ['`path`: no ".." allowed']
 */
export function describeIssues(issues: ReadonlyArray<StandardIssue>): string[] {
  const lines = new Set<string>()
  for (const issue of issues.slice(0, MAX_ISSUES)) {
    const keys = (issue.path ?? []).map((p) => (typeof p === 'object' && p !== null ? p.key : p))
    const field = keys.length === 0 ? 'the arguments object' : '`' + keys.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`)).join('') + '`'
    lines.add(`${field}: ${String(issue.message)}`)
  }
  if (issues.length > MAX_ISSUES) lines.add(`and ${issues.length - MAX_ISSUES} more`)
  return [...lines]
}

const MAX_ISSUES = 20
