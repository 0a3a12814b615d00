import type { ArgsOfSchema, ObjectSchema } from './define-tool.js'
import { ToolhostError } from './errors.js'
import type { Completer, Prompt, PromptSpec } from './prompt-types.js'
import { assertCompleters, assertGating, describeValue, isObject } from './spec-checks.js'

/** Prompt names: 1 to 128 letters, digits, `_`, `-` or `.` (the names MCP recommends for tools, SEP-986). */
export const PROMPT_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/

/** Argument names of a prompt: 1 to 64 letters, digits, `_`, `-` or `.`. */
export const PROMPT_ARGUMENT_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/

/**
 * The handler's argument type for a prompt's `arguments` schema `S`: `ArgsOfSchema<S>` (as a tool's)
 * for a literal schema with `properties`; any other gives `Record<string, string>`.
 */
export type ArgsOfPromptSchema<S> = S extends { readonly properties: object } ? ArgsOfSchema<S> : Record<string, string>

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const

/**
 * Checks a prompt spec and fills its defaults: a prompt (MCP `prompts/get`) renders messages from
 * its arguments. `arguments` is an object JSON Schema whose properties are strings; the handler's
 * `args` type comes from it, as a tool's does from `parameters`. A spec that breaks a rule throws
 * `E_SCHEMA_INVALID` saying which.
 *
 * @example
 * registry.register(definePrompt({
 *   name: 'review', description: 'Review a file.',
 *   arguments: { type: 'object', properties: { path: { type: 'string', description: 'File to review' } }, required: ['path'] },
 *   complete: { path: ['README.md', 'src/index.ts'] },
 *   handler: (args) => `Review ${args.path} for bugs.`,
 * }))
 */
export function definePrompt<const S extends ObjectSchema>(spec: PromptSpec<NoInfer<ArgsOfPromptSchema<S>>> & { arguments: S }): Prompt<ArgsOfPromptSchema<S>>
export function definePrompt(spec: PromptSpec<Record<string, never>> & { arguments?: undefined }): Prompt<Record<string, never>>
export function definePrompt<Args = Record<string, string>>(spec: PromptSpec<Args>): Prompt<Args>
export function definePrompt<Args>(spec: PromptSpec<Args>): Prompt<Args> {
  assertPromptShape(spec as PromptSpec<never>)
  return {
    kind: 'prompt',
    name: spec.name,
    title: spec.title,
    description: spec.description,
    arguments: spec.arguments ?? NO_ARGUMENTS,
    complete: { ...(spec.complete as Record<string, Completer> | undefined) },
    check: spec.check,
    requiresEnv: [...(spec.requiresEnv ?? [])],
    handler: spec.handler,
  }
}

function assertPromptShape(spec: PromptSpec<never>): void {
  const fail = (what: string, got: unknown): never => {
    throw new ToolhostError('E_SCHEMA_INVALID', `definePrompt: ${what}; got ${describeValue(got)}`)
  }
  if (typeof spec !== 'object' || spec === null) fail('expected a prompt spec object', spec)
  if (typeof spec.name !== 'string' || !PROMPT_NAME_PATTERN.test(spec.name)) fail('`name` must be 1 to 128 letters, digits, `_`, `-` or `.`', spec.name)
  const at = `prompt "${spec.name}"`
  if (spec.title !== undefined && typeof spec.title !== 'string') fail(`${at}: \`title\` must be a string`, spec.title)
  if (typeof spec.description !== 'string' || spec.description.trim() === '') fail(`${at}: \`description\` must be a non-empty string`, spec.description)
  if (typeof spec.handler !== 'function') fail(`${at}: \`handler\` must be a function`, spec.handler)
  const names = spec.arguments === undefined ? [] : argumentNames(spec.arguments, (what, got) => fail(`${at}: ${what}`, got))
  assertGating(spec, at, fail)
  assertCompleters(spec.complete, names, 'argument', at, fail)
}

// The declared argument names of a prompt's `arguments` schema, after checking it is an object
// schema of string properties whose `required` names only those.
function argumentNames(schema: unknown, fail: (what: string, got: unknown) => never): string[] {
  if (!isObject(schema) || schema.type !== 'object') fail('`arguments` must be a JSON Schema with type "object"', schema)
  const { properties, required } = schema as { properties?: unknown; required?: unknown }
  if (properties !== undefined && !isObject(properties)) fail('`arguments.properties` must be an object', properties)
  const names = Object.keys(properties ?? {})
  for (const name of names) {
    if (!PROMPT_ARGUMENT_PATTERN.test(name)) fail('argument names must be 1 to 64 letters, digits, `_`, `-` or `.`', name)
    const property = (properties as Record<string, unknown>)[name]
    if (!isObject(property) || property.type !== 'string') fail(`argument \`${name}\` must be a schema with type "string" (MCP sends prompt arguments as strings)`, property)
  }
  if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== 'string' || !names.includes(r)))) {
    fail('`arguments.required` must list argument names declared in `properties`', required)
  }
  return names
}
