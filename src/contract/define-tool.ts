import { ToolhostError } from './errors.js'
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import { handlerParsingWith, isStandardSchema, jsonSchemaOf } from './standard-schema.js'
import type { StandardInput, StandardJsonSchema, StandardOutput } from './standard-schema-types.js'
import type { JsonSchema, Tool, ToolHandler, ToolSpec } from './types.js'

/**
 * Tool names every model API accepts: letters, digits, `_` and `-`; 1 to 64 characters (OpenAI's
 * `^[a-zA-Z0-9_-]{1,64}$`; Anthropic's is the same set). A name outside it, a dot included, would
 * make the API refuse the whole request.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

const no = (): boolean => false

/** An object JSON Schema whose literal type `defineTool` reads to type the handler's arguments. */
export interface ObjectSchema {
  readonly type: 'object'
}

/**
 * The handler's argument type for schema `S`: `FromSchema<S>` for a literal schema; a schema typed
 * only as a record (built at run time, e.g. from an MCP server) gives `Record<string, unknown>`.
 */
export type ArgsOfSchema<S> = string extends keyof S ? Record<string, unknown> : S extends JSONSchema ? FromSchema<S> : Record<string, unknown>

/**
 * A tool spec whose `parameters` is a zod 4 object schema (or another Standard Schema that gives JSON
 * Schema): the handler gets what the schema's `validate` produces (defaults and transforms applied);
 * `readOnly`, `scope` and the other per-call functions get the arguments as sent, checked.
 */
export type StandardToolSpec<S> = Omit<ToolSpec<StandardInput<S>>, 'parameters' | 'handler' | 'outputSchema'> & {
  parameters: S
  handler: ToolHandler<StandardOutput<S>>
  /** The structured content's schema: JSON Schema, or a zod object schema (its output side is used). */
  outputSchema?: JsonSchema | StandardJsonSchema
}

/**
 * Fills a tool spec with conservative defaults: not parallel-safe, not read-only, not destructive,
 * no scope, no check. A tool must opt in to every optimisation.
 *
 * Typed arguments: the handler's `args` type comes from the schema itself (json-schema-to-ts
 * `FromSchema`): in the first example, `args` is `{ text: string }` and `args.txt` is a type error.
 * An explicit type argument (`defineTool<{ text: string }>({...})`) still works and wins.
 *
 * zod: `parameters` (and `outputSchema`) may be a zod 4 object schema, or any Standard Schema with a
 * JSON Schema converter. It is converted to JSON Schema once, here; the handler's `args` is its
 * output type and goes through its `validate` (refinements, defaults) before the handler runs (the
 * second example).
 *
 * @example
 * registry.register(defineTool({
 *   name: 'echo', toolset: 'demo', description: 'Echo a message back.',
 *   parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
 *   handler: async (args) => args.text,
 * }))
 *
 * @example
 * import { z } from 'zod'
 *
 * registry.register(defineTool({
 *   name: 'read_head', description: 'First lines of a file.',
 *   parameters: z.object({ path: z.string(), lines: z.number().int().min(1).default(10) }),
 *   handler: async (args) => `${args.path}: ${args.lines}`, // args: { path: string; lines: number }
 * }))
 */
export function defineTool<const S extends StandardJsonSchema<Record<string, unknown>, Record<string, unknown>>>(spec: StandardToolSpec<S>): Tool<StandardInput<S>>
export function defineTool<const S extends ObjectSchema>(spec: ToolSpec<ArgsOfSchema<S>> & { parameters: S }): Tool<ArgsOfSchema<S>>
export function defineTool<Args = Record<string, unknown>>(spec: ToolSpec<Args>): Tool<Args>
export function defineTool<Args>(given: ToolSpec<Args> | StandardToolSpec<unknown>): Tool<Args> {
  const spec = withJsonSchemas(given as ToolSpec<Args>)
  assertSpecShape(spec)
  return {
    name: spec.name,
    toolset: spec.toolset ?? 'default',
    description: spec.description,
    parameters: spec.parameters,
    handler: spec.handler,
    check: spec.check,
    requiresEnv: [...(spec.requiresEnv ?? [])],
    parallelSafe: spec.parallelSafe ?? false,
    neverParallel: spec.neverParallel ?? false,
    // Declaring `scope` is declaring path-scoping: the author meant the scheduler to use it.
    pathScoped: spec.pathScoped ?? spec.scope !== undefined,
    changesContext: spec.changesContext ?? false,
    readOnly: spec.readOnly ?? no,
    destructive: spec.destructive ?? no,
    idempotent: spec.idempotent ?? false,
    openWorld: spec.openWorld ?? false,
    scope: spec.scope,
    checkPermissions: spec.checkPermissions,
    needsApproval: spec.needsApproval ?? false,
    outputSchema: spec.outputSchema,
    maxResultChars: spec.maxResultChars,
    timeoutMs: spec.timeoutMs,
  }
}

// A Standard Schema (zod) in `parameters` or `outputSchema` becomes its JSON Schema, once; the
// handler then parses its arguments with it. Anything else is left for assertSpecShape to judge.
function withJsonSchemas<Args>(spec: ToolSpec<Args>): ToolSpec<Args> {
  if (typeof spec !== 'object' || spec === null) return spec
  const { parameters, outputSchema } = spec as { parameters: unknown; outputSchema?: unknown }
  if (!isStandardSchema(parameters) && !isStandardSchema(outputSchema)) return spec
  const where = (key: string): string => `defineTool: tool "${String(spec.name)}": \`${key}\``
  const out: ToolSpec<Args> = { ...spec }
  if (isStandardSchema(parameters)) {
    out.parameters = jsonSchemaOf(parameters, 'input', where('parameters'))
    if (typeof spec.handler === 'function') out.handler = handlerParsingWith(parameters, spec.handler as ToolHandler<unknown>, String(spec.name)) as ToolHandler<Args>
  }
  if (isStandardSchema(outputSchema)) out.outputSchema = jsonSchemaOf(outputSchema, 'output', where('outputSchema'))
  return out
}

function assertSpecShape(spec: ToolSpec<never>): void {
  const fail = (what: string, got: unknown): never => {
    throw new ToolhostError(
      'E_SCHEMA_INVALID',
      `defineTool: ${what}; got ${JSON.stringify(got) ?? String(got)} (${got === null ? 'null' : typeof got})`,
    )
  }
  if (typeof spec !== 'object' || spec === null) fail('expected a tool spec object', spec)
  if (typeof spec.name !== 'string' || !TOOL_NAME_PATTERN.test(spec.name))
    fail('`name` must match ^[a-zA-Z0-9_-]{1,64}$: 1 to 64 letters, digits, `_` or `-` (OpenAI and Anthropic refuse a request holding any other tool name; use `_` for a dot)', spec.name)
  if (typeof spec.description !== 'string' || spec.description.trim() === '')
    fail(`tool "${spec.name}": \`description\` must be a non-empty string`, spec.description)
  if (typeof spec.handler !== 'function') fail(`tool "${spec.name}": \`handler\` must be a function`, spec.handler)
  // The MCP SDK takes a raw zod shape ({ a: z.string() }); here it must be one schema (issue 31).
  if (isRawShape(spec.parameters))
    fail(`tool "${spec.name}": \`parameters\` is a raw zod shape ({ ${Object.keys(spec.parameters as object).join(', ')} }), as the MCP SDK takes it; wrap it in z.object(): parameters: z.object({ ... })`, Object.keys(spec.parameters as object))
  if (typeof spec.parameters !== 'object' || spec.parameters === null || spec.parameters.type !== 'object')
    fail(`tool "${spec.name}": \`parameters\` must be a JSON Schema with type "object"`, spec.parameters)
  if (spec.outputSchema !== undefined && (typeof spec.outputSchema !== 'object' || spec.outputSchema === null || spec.outputSchema.type !== 'object'))
    fail(`tool "${spec.name}": \`outputSchema\` must be a JSON Schema with type "object" (it describes the structured content)`, spec.outputSchema)
  if (spec.toolset !== undefined && (typeof spec.toolset !== 'string' || spec.toolset === ''))
    fail(`tool "${spec.name}": \`toolset\` must be a non-empty string`, spec.toolset)
  if (spec.requiresEnv !== undefined && (!Array.isArray(spec.requiresEnv) || spec.requiresEnv.some((v) => typeof v !== 'string' || v === '')))
    fail(`tool "${spec.name}": \`requiresEnv\` must be a list of variable names`, spec.requiresEnv)
  if (spec.timeoutMs !== undefined && !(Number.isInteger(spec.timeoutMs) && spec.timeoutMs > 0))
    fail(`tool "${spec.name}": \`timeoutMs\` must be a positive integer`, spec.timeoutMs)
  if (spec.maxResultChars !== undefined && spec.maxResultChars !== false && !(Number.isInteger(spec.maxResultChars) && spec.maxResultChars > 0))
    fail(`tool "${spec.name}": \`maxResultChars\` must be a positive integer or false`, spec.maxResultChars)
  for (const fn of ['check', 'readOnly', 'destructive', 'scope', 'checkPermissions'] as const) {
    if (spec[fn] !== undefined && typeof spec[fn] !== 'function') fail(`tool "${spec.name}": \`${fn}\` must be a function`, spec[fn])
  }
  if (spec.needsApproval !== undefined && typeof spec.needsApproval !== 'boolean' && typeof spec.needsApproval !== 'function')
    fail(`tool "${spec.name}": \`needsApproval\` must be true, false or a function (args, ctx) => boolean`, spec.needsApproval)
  if (spec.scope !== undefined && spec.pathScoped === false) {
    fail(`tool "${spec.name}": \`scope\` says what each call touches, so the tool is path-scoped, but \`pathScoped\` is false; remove \`pathScoped: false\` (or remove \`scope\` if the tool should not be scheduled by path)`, spec.pathScoped)
  }
}

// An object of Standard Schemas with no JSON Schema `type`: the shape z.object() would take.
function isRawShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || 'type' in value) return false
  const values = Object.values(value)
  return values.length > 0 && values.every(isStandardSchema)
}
