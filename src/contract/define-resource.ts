import { ToolhostError } from './errors.js'
import type { Completer, Resource, ResourceSpec, VarsOfTemplate } from './prompt-types.js'
import { assertCompleters, assertGating, describeValue } from './spec-checks.js'
import { fixedUriProblem, parseUriTemplate } from './uri-template.js'

/**
 * Checks a resource spec and fills its defaults. A resource has a fixed `uri` or a `uriTemplate`
 * (RFC 6570 level 1, `notes://{name}`); `read(uri, vars, ctx)` returns its contents as text, bytes
 * or parts. A template may `list` its concrete resources and `complete` its variables. The `vars`
 * type comes from the template's text. A spec that breaks a rule (no scheme, a level 2 expression,
 * both or neither of `uri` and `uriTemplate`) throws `E_SCHEMA_INVALID` saying which.
 *
 * @example
 * registry.register(defineResource({
 *   uriTemplate: 'notes://{name}', name: 'note', description: 'A note by name.', mimeType: 'text/markdown',
 *   list: () => [{ uri: 'notes://todo', name: 'todo' }],
 *   complete: { name: (value) => ['todo', 'ideas'].filter((n) => n.startsWith(value)) },
 *   read: (uri, vars) => `# ${vars.name}\n`,
 * }))
 */
export function defineResource<const T extends string>(spec: ResourceSpec<VarsOfTemplate<T>> & { uriTemplate: T; uri?: undefined }): Resource<VarsOfTemplate<T>>
export function defineResource(spec: ResourceSpec<Record<string, never>> & { uri: string; uriTemplate?: undefined; list?: undefined; complete?: undefined }): Resource<Record<string, never>>
export function defineResource<Vars = Record<string, string>>(spec: ResourceSpec<Vars>): Resource<Vars>
export function defineResource<Vars>(spec: ResourceSpec<Vars>): Resource<Vars> {
  const variables = assertResourceShape(spec as ResourceSpec<never>)
  return {
    kind: 'resource',
    uri: spec.uri,
    uriTemplate: spec.uriTemplate,
    variables,
    name: spec.name,
    title: spec.title,
    description: spec.description,
    mimeType: spec.mimeType,
    list: spec.list,
    complete: { ...(spec.complete as Record<string, Completer> | undefined) },
    check: spec.check,
    requiresEnv: [...(spec.requiresEnv ?? [])],
    read: spec.read,
  }
}

// Checks the spec; returns the template's variables (none for a fixed URI).
function assertResourceShape(spec: ResourceSpec<never>): string[] {
  const fail = (what: string, got: unknown): never => {
    throw new ToolhostError('E_SCHEMA_INVALID', `defineResource: ${what}; got ${describeValue(got)}`)
  }
  if (typeof spec !== 'object' || spec === null) fail('expected a resource spec object', spec)
  const hasUri = spec.uri !== undefined
  const hasTemplate = spec.uriTemplate !== undefined
  if (hasUri === hasTemplate) fail('give exactly one of `uri` (a fixed URI) and `uriTemplate` (an RFC 6570 template such as "notes://{name}")', { uri: spec.uri, uriTemplate: spec.uriTemplate })
  let variables: string[] = []
  let at: string
  if (hasUri) {
    at = `resource ${JSON.stringify(spec.uri)}`
    const problem = typeof spec.uri === 'string' ? fixedUriProblem(spec.uri) : 'it must be a string'
    if (problem !== undefined) fail(`\`uri\` is not a URI: ${problem}`, spec.uri)
    if (spec.list !== undefined) fail(`${at}: \`list\` is for templates; a fixed URI is listed as it is`, spec.list)
  } else {
    at = `resource template ${JSON.stringify(spec.uriTemplate)}`
    const parsed = typeof spec.uriTemplate === 'string' ? parseUriTemplate(spec.uriTemplate) : 'it must be a string'
    if (typeof parsed === 'string') fail(`\`uriTemplate\` is not an RFC 6570 level 1 template: ${parsed}`, spec.uriTemplate)
    else variables = parsed.variables
    if (spec.list !== undefined && typeof spec.list !== 'function') fail(`${at}: \`list\` must be a function`, spec.list)
  }
  if (typeof spec.name !== 'string' || spec.name.trim() === '') fail(`${at}: \`name\` must be a non-empty string`, spec.name)
  if (spec.title !== undefined && typeof spec.title !== 'string') fail(`${at}: \`title\` must be a string`, spec.title)
  if (typeof spec.description !== 'string' || spec.description.trim() === '') fail(`${at}: \`description\` must be a non-empty string`, spec.description)
  if (typeof spec.mimeType !== 'string' || !/^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/.test(spec.mimeType)) fail(`${at}: \`mimeType\` must be a media type such as "text/plain"`, spec.mimeType)
  if (typeof spec.read !== 'function') fail(`${at}: \`read\` must be a function`, spec.read)
  assertGating(spec, at, fail)
  assertCompleters(spec.complete, variables, 'variable', at, fail)
  return variables
}
