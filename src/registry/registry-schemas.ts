import { describeThrown, ToolhostError } from '../contract/errors.js'
import type { KnownSchemas } from './known-schemas.js'
import { SchemaCompiler, type ValidateFunction } from './schema.js'
import { describeCompileFailure } from './schema-problems.js'
import type { AnyTool, JsonSchema } from '../contract/types.js'

/** One compiled (or known-good, not yet compiled) schema, shared by the tools whose schema has the same text. */
export interface SchemaSlot {
  text: string
  /** The schema as it was at registration (parsed from `text`): what ajv compiles and the model is shown. */
  schema: JsonSchema
  /** The compiler holding it (a staged file's own, while its previous version is still in use). */
  compiler: SchemaCompiler
  validate: ValidateFunction | undefined
  /** The ajv key it was added under, when compiled on first use. */
  key?: string
  users: number
}

/** The slots of one tool: its parameters schema, and its outputSchema if it has one. */
export interface ToolSlots {
  slot: SchemaSlot
  outputSlot: SchemaSlot | undefined
}

/**
 * The registry's schemas, by text: each compiled once (ajv, strict) and shared by the tools whose
 * schema reads the same, or, when it is known to compile (`known-schemas.ts`), compiled on first use
 * without the meta-schema check. A schema leaves ajv with its last tool.
 *
 * @example
 * const schemas = new SchemaSlots(knownSchemas)
 * const slots = schemas.take(tool, 'plugins/x.ts', schemas.compiler)
 * schemas.validator(tool, slots.slot, 'parameters schema')({ n: 1 }) // true
 */
export class SchemaSlots {
  /** The registry's compiler (a staged plugin file compiles apart, in its own). */
  readonly compiler = new SchemaCompiler()
  readonly #slots = new Map<string, SchemaSlot>()
  readonly #known: KnownSchemas
  #knownSeq = 0

  constructor(known: KnownSchemas) {
    this.#known = known
  }

  /** The slots for a tool's schemas; an invalid schema throws E_SCHEMA_INVALID naming the tool and `source`. */
  take(tool: AnyTool, source: string | undefined, compiler: SchemaCompiler): ToolSlots {
    const slot = this.#slotFor(tool.parameters, compiler, (error) => invalidSchema(tool, source, 'parameters schema', error))
    let outputSlot: SchemaSlot | undefined
    try {
      outputSlot = tool.outputSchema === undefined ? undefined : this.#slotFor(tool.outputSchema, compiler, (error) => invalidSchema(tool, source, 'outputSchema', error))
    } catch (error) {
      this.#release(slot)
      throw error
    }
    return { slot, outputSlot }
  }

  /**
   * Gives back what `take` took. ajv keeps every compiled schema (and its `$id`): it is dropped with
   * its last tool, or re-registering a schema with an `$id` after a reload would fail with "schema
   * with key or id already exists".
   */
  release(slots: ToolSlots): void {
    this.#release(slots.slot)
    if (slots.outputSlot) this.#release(slots.outputSlot)
  }

  /** The slot's validator, compiled now if it was known to compile and not yet used. */
  validator(tool: AnyTool, slot: SchemaSlot, what: string): ValidateFunction {
    return slot.validate ?? this.#compileLate(tool, slot, what)
  }

  /** Writes the schemas compiled so far to the known-schemas cache now. */
  saveKnown(): void {
    this.#known.save()
  }

  // Tools with the same schema text share one validator. A schema with an `$id`, or a `$ref` to
  // another document, depends on what else ajv holds: it always compiles at registration.
  #slotFor(schema: JsonSchema, compiler: SchemaCompiler, invalid: (error: unknown) => ToolhostError): SchemaSlot {
    let text: string
    try {
      text = JSON.stringify(schema)
    } catch (error) {
      throw invalid(error)
    }
    const existing = this.#slots.get(text)
    if (existing) {
      existing.users++
      return existing
    }
    const key = /"\$id"|"\$ref":"(?!#)/.test(text) ? undefined : this.#known.keyOf(text)
    // A copy, not the plugin's object: a schema changed after registration must change neither what
    // is checked (a validator compiled on first use) nor what the model is shown.
    const slot: SchemaSlot = { text, schema: JSON.parse(text) as JsonSchema, compiler, validate: undefined, users: 1 }
    if (key === undefined || !this.#known.has(key)) {
      try {
        slot.validate = compiler.compile(slot.schema)
      } catch (error) {
        // Every fault at once, in plain words with its place in the schema, not ajv's first.
        throw invalid(new Error(describeCompileFailure(slot.schema, error), { cause: error }))
      }
      if (key !== undefined) this.#known.add(key)
    }
    this.#slots.set(text, slot)
    return slot
  }

  // First use of a schema known to compile. It is not checked against the meta-schema again (it
  // passed, under the same set-up; compiling the meta-schema is most of a first compile's cost).
  // Should it fail after all (the cache outlived a change it could not see), the tool's calls are
  // refused with the reason instead of the batch throwing.
  #compileLate(tool: AnyTool, slot: SchemaSlot, what: string): ValidateFunction {
    try {
      slot.key = `toolhost:known:${++this.#knownSeq}`
      slot.validate = slot.compiler.compileKnown(slot.schema, slot.key)
    } catch (error) {
      const refuse = (() => false) as unknown as ValidateFunction
      refuse.errors = [{ keyword: 'schema', instancePath: '', schemaPath: '#', params: {}, message: `cannot be checked: the tool ${tool.name} has an invalid ${what} (${describeThrown(error)})` }]
      slot.validate = refuse
    }
    return slot.validate
  }

  #release(slot: SchemaSlot): void {
    if (--slot.users > 0) return
    this.#slots.delete(slot.text)
    if (slot.validate) slot.compiler.removeSchema(slot.schema, slot.key)
  }
}

function invalidSchema(tool: AnyTool, source: string | undefined, what: string, error: unknown): ToolhostError {
  return new ToolhostError('E_SCHEMA_INVALID', `tool "${tool.name}"${source ? ` (${source})` : ''} has an invalid ${what}: ${describeThrown(error)}`, { cause: error })
}
