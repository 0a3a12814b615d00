import type { ObjectJsonSchema } from '../contract/types.js'

/**
 * The parameters of a strict definition: toolhost's strict rewrite, closed, every property listed
 * in `required` (what OpenAI strict mode asks, and the Agents SDK's `JsonObjectSchemaStrict`).
 */
export interface StrictParametersSchema {
  type: 'object'
  properties: Record<string, Record<string, unknown>>
  required: string[]
  additionalProperties: false
  description?: string
  [keyword: string]: unknown
}

/**
 * The parameters of a non-strict definition: the tool's schema as registered, with `properties`
 * and `required` always present (`{}` and `[]` when the schema has none, which means the same).
 * `additionalProperties` is typed `true` because that is how the Agents SDK types every non-strict
 * schema (`JsonObjectSchemaNonStrict`): the API does not enforce a non-strict schema, so extra keys
 * can come back whatever it says. At run time it is what the tool wrote: a closed schema keeps
 * `false` (toolhost's validation refuses the extra keys), an open one says `true`.
 */
export interface NonStrictParametersSchema {
  type: 'object'
  properties: Record<string, Record<string, unknown>>
  required: string[]
  additionalProperties: true
  description?: string
  [keyword: string]: unknown
}

// `properties` and `required` stated even when empty (the same schema), so the definition has the
// shape the SDKs type; the registry's object is never changed. The cast is the documented typing of
// `additionalProperties` (see NonStrictParametersSchema).
export function withListsStated(parameters: ObjectJsonSchema): NonStrictParametersSchema {
  if (parameters.properties !== undefined && parameters.required !== undefined) return parameters as NonStrictParametersSchema
  return { ...parameters, properties: parameters.properties ?? {}, required: parameters.required ?? [] } as unknown as NonStrictParametersSchema
}
