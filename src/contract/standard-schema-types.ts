/**
 * The Standard Schema and Standard JSON Schema interfaces (standardschema.dev), copied as the spec
 * asks, so toolhost depends on no validation library. Types only.
 */

/** One issue of a failed Standard Schema validation. */
export interface StandardIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

/** What a Standard Schema's `validate` answers: the value (defaults and transforms applied) or the issues. */
export type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> }

/**
 * A schema of a validation library that can give JSON Schema: the Standard Schema interface
 * (`~standard` with `validate`) and the Standard JSON Schema converter (`~standard.jsonSchema`),
 * which zod 4's schemas carry. The types are the spec's, copied (as the spec asks), so toolhost
 * depends on no library.
 */
export interface StandardJsonSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate?: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>
      readonly output: (options: { readonly target: string }) => Record<string, unknown>
    }
    readonly types?: { readonly input: Input; readonly output: Output } | undefined
  }
}

/** The type a Standard Schema accepts (what the model sends, checked against the JSON Schema). */
export type StandardInput<S> = S extends { readonly '~standard': { readonly types?: infer T } } ? (NonNullable<T> extends { readonly input: infer I } ? I : Record<string, unknown>) : never
/** The type a Standard Schema produces (what its `validate` hands the handler). */
export type StandardOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } } ? (NonNullable<T> extends { readonly output: infer O } ? O : Record<string, unknown>) : never
