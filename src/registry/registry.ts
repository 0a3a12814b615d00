import { AsyncLocalStorage } from 'node:async_hooks'
import { defineTool } from '../contract/define-tool.js'
import { describeThrown, ToolhostError } from '../contract/errors.js'
import { knownSchemas, type KnownSchemas } from './known-schemas.js'
import { Listeners } from '../contract/listeners.js'
import { SchemaSlots, type ToolSlots } from './registry-schemas.js'
import { SchemaCompiler, type ValidateFunction } from './schema.js'
import { toolAvailability, type AvailabilityOptions } from './tool-availability.js'
import { PromptsAndResources } from './prompts-and-resources.js'
import { PluginHooks } from './plugin-hooks.js'
import type { PluginHook } from '../contract/hook-types.js'
import type { AnyTool, Availability, ObjectJsonSchema, OpenAIToolDefinition, ToolSpec } from '../contract/types.js'
import type { AnyPrompt, AnyResource } from '../contract/prompt-types.js'

/** A registered tool with what the registry derived from it once. */
export interface RegistryEntry {
  tool: AnyTool
  /** The plugin file that registered it, when known. */
  source: string | undefined
  /** Its schema's validator: built at registration, or on first use when the schema is known to compile. */
  readonly validate: ValidateFunction
  /** The tool's `outputSchema` as a validator (checks `structuredContent`); undefined without one. */
  readonly validateOutput: ValidateFunction | undefined
  definition: OpenAIToolDefinition
}

/** The registry as a stage reads it: a tool's entry (its validators), by name. */
export interface ToolEntries {
  entry(name: string): RegistryEntry | undefined
}

type Entry = RegistryEntry & ToolSlots

/** Which tools `getDefinitions` and `explainAvailability` cover: each tool named or in a toolset named; every tool when neither is given. */
export interface DefinitionQuery {
  names?: readonly string[]
  toolsets?: readonly string[]
}

/**
 * The tools of this process. Plugins register into it on import; the host reads from it.
 * Use the shared instance `registry` (kept on `globalThis`, so two copies of this module agree).
 *
 * @example
 * registry.register(defineTool({ name: 'now', description: 'Current time', parameters: { type: 'object' }, handler: () => new Date().toISOString() }))
 * const defs = await registry.getDefinitions()
 */
export class ToolRegistry {
  readonly #entries = new Map<string, Entry>()
  readonly #schemas: SchemaSlots
  // A listener's fault must not undo a registration.
  readonly #listeners = new Listeners<void>(() => {})
  #sorted: RegistryEntry[] | undefined
  // The plugin file whose import is running, for the code that import runs (and only that code: an
  // async context, not a field, so a tool registered meanwhile by other code is never taken for the
  // file's, staged with it, or dropped when its import fails). Given up once its load has failed.
  readonly #loading = new AsyncLocalStorage<{ readonly source: string; givenUp: boolean }>()
  // A plugin file being (re)imported: its registrations wait here until the import has succeeded.
  #staging: { source: string; entries: Map<string, Entry>; compiler: SchemaCompiler } | undefined
  #version = 0
  // Every definition when no tool has a check or needs an env var, else false; undefined until asked.
  #unconditional: OpenAIToolDefinition[] | false | undefined
  /** The prompts and resources plugins registered (`definePrompt`, `defineResource`), reloaded with their files' tools. */
  readonly promptsAndResources = new PromptsAndResources()
  /** The hooks plugins registered (`defineHook`), reloaded and removed with their files. */
  readonly hooks = new PluginHooks()

  /** `knownSchemas`: the set of schemas known to compile (default: the process's per-user cache). */
  constructor(options: { knownSchemas?: KnownSchemas } = {}) {
    this.#schemas = new SchemaSlots(options.knownSchemas ?? knownSchemas)
  }

  /** Bumps on every register/unregister; lets callers cache what they derive. */
  get version(): number {
    return this.#version
  }

  /**
   * Adds a tool. An invalid schema or a taken name throws, naming the plugin files involved. A bare
   * spec (not passed through `defineTool`) is checked and filled the same way, so a malformed tool
   * fails here and never later, while listing. A schema (`parameters`, `outputSchema`) is compiled
   * (ajv, strict, in its dialect) here unless it compiled before, in an earlier run with the same
   * ajv set-up (`known-schemas.ts`): then its validator is built on first use, which keeps start-up
   * from compiling every schema.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  register(spec: AnyTool | ToolSpec<any> | AnyPrompt | AnyResource | PluginHook, options: { source?: string } = {}): void {
    const loading = options.source === undefined ? this.#loading.getStore() : undefined
    if (loading?.givenUp) throw new ToolhostError('E_PLUGIN_LOAD', `${loading.source}: this tool was registered after the file's load had failed or run out of time (plugins.import_timeout_ms); it is not taken`)
    const source = options.source ?? loading?.source
    if (isPromptOrResource(spec)) return this.promptsAndResources.register(spec, source)
    if (isHook(spec)) return this.hooks.register(spec, source)
    let tool: AnyTool
    try {
      tool = defineTool(spec)
    } catch (error) {
      if (source === undefined) throw error
      throw new ToolhostError('E_SCHEMA_INVALID', `${source}: ${describeThrown(error)}`, { cause: error })
    }
    const staging = this.#staging !== undefined && this.#staging.source === source ? this.#staging : undefined
    // While a file is staged, its own current tools are about to be replaced, not duplicated.
    const current = this.#entries.get(tool.name)
    const existing = staging ? (staging.entries.get(tool.name) ?? (current?.source === source ? undefined : current)) : current
    if (existing) throw duplicateTool(tool.name, existing.source, source)
    // A staged file compiles apart: its previous version's schemas (and their $id) are still in use.
    const { slot, outputSlot } = this.#schemas.take(tool, source, staging?.compiler ?? this.#schemas.compiler)
    // The tool keeps the schemas as registered (the slots' copies), whatever its plugin does to its own objects later.
    tool = { ...tool, parameters: slot.schema as AnyTool['parameters'], ...(outputSlot ? { outputSchema: outputSlot.schema as AnyTool['outputSchema'] } : {}) }
    const definition: OpenAIToolDefinition = {
      type: 'function',
      // defineTool has checked that `parameters` is an object schema.
      function: { name: tool.name, description: tool.description, parameters: tool.parameters as ObjectJsonSchema },
    }
    const schemas = this.#schemas
    const entry: Entry = {
      tool,
      source,
      definition,
      slot,
      outputSlot,
      get validate() {
        return schemas.validator(tool, slot, 'parameters schema')
      },
      get validateOutput() {
        return outputSlot === undefined ? undefined : schemas.validator(tool, outputSlot, 'outputSchema')
      },
    }
    if (staging) {
      staging.entries.set(tool.name, entry)
      return
    }
    this.#entries.set(tool.name, entry)
    this.#changed()
  }

  /**
   * Imports (or re-imports) a plugin file through `load` with its registrations held aside, then puts
   * them in place of the file's current tools in one step, with no moment in between when a call
   * could find a tool missing (hot reload). If `load` fails, nothing changes: the file's current
   * tools stay. Resolves with the names of the tools now registered by `source`, sorted.
   *
   * @example
   * const file = '/w/plugins/weather.js'
   * await registry.replaceSource(file, () => import(file))
   */
  async replaceSource(source: string, load: () => Promise<unknown>): Promise<string[]> {
    if (this.#staging !== undefined) throw new Error(`${source} cannot be loaded while ${this.#staging.source} is loading`)
    const staging = { source, entries: new Map<string, Entry>(), compiler: new SchemaCompiler() }
    this.#staging = staging
    this.promptsAndResources.stage(source)
    this.hooks.stage(source)
    const loading = { source, givenUp: false }
    try {
      await this.#loading.run(loading, load)
      for (const name of staging.entries.keys()) {
        const taken = this.#entries.get(name)
        if (taken !== undefined && taken.source !== source) throw duplicateTool(name, taken.source, source)
      }
      this.promptsAndResources.checkStaged()
    } catch (error) {
      // Nothing changes: the staged registrations give back the schemas they took, and what the
      // import still registers later (it ran out of time; it cannot be stopped) is refused.
      loading.givenUp = true
      for (const entry of staging.entries.values()) this.#schemas.release(entry)
      this.promptsAndResources.discardStaged()
      this.hooks.discardStaged()
      throw error
    } finally {
      this.#staging = undefined
    }
    const old = this.#entriesFrom(source)
    for (const entry of old) this.#forget(entry)
    for (const [name, entry] of staging.entries) this.#entries.set(name, entry)
    if (old.length > 0 || staging.entries.size > 0) this.#changed()
    this.promptsAndResources.commitStaged()
    this.hooks.commitStaged()
    return [...staging.entries.keys()].sort()
  }

  /** Writes the schemas compiled so far to the known-schemas cache now (the plugin loader calls it after a load). */
  saveKnownSchemas(): void {
    this.#schemas.saveKnown()
  }

  /** The names of the tools a plugin file registered (in registration order; no sorting, so loading n files stays linear). */
  namesFrom(source: string): string[] {
    const names: string[] = []
    for (const entry of this.#entries.values()) if (entry.source === source) names.push(entry.tool.name)
    return names
  }

  /** Removes a tool; returns whether it was there. */
  unregister(name: string): boolean {
    const entry = this.#entries.get(name)
    if (!entry) return false
    this.#forget(entry)
    this.#changed()
    return true
  }

  /** True when a plugin file registered a tool, prompt, resource or hook here (it counts as loaded). */
  hasSource(source: string): boolean {
    for (const entry of this.#entries.values()) if (entry.source === source) return true
    return this.promptsAndResources.hasSource(source) || this.hooks.hasSource(source)
  }

  /** Removes every tool (and prompt, resource and hook) a plugin file registered; returns the tools' names. */
  unregisterSource(source: string): string[] {
    this.promptsAndResources.unregisterSource(source)
    this.hooks.unregisterSource(source)
    const entries = this.#entriesFrom(source)
    for (const entry of entries) this.#forget(entry)
    if (entries.length > 0) this.#changed()
    return entries.map((e) => e.tool.name)
  }

  /**
   * Runs `load` with `source` recorded as the file registering tools: for the code `load` runs (its
   * async context), not for other code that registers tools meanwhile.
   */
  loadingFrom<T>(source: string, load: () => Promise<T>): Promise<T> {
    return this.#loading.run({ source, givenUp: false }, load)
  }

  get(name: string): AnyTool | undefined {
    return this.#entries.get(name)?.tool
  }

  entry(name: string): RegistryEntry | undefined {
    return this.#entries.get(name)
  }

  has(name: string): boolean {
    return this.#entries.has(name)
  }

  /** Every registered tool, sorted by name, available or not. */
  list(): AnyTool[] {
    return this.#sortedEntries().map((e) => e.tool)
  }

  /** The names of all toolsets, sorted. */
  toolsets(): string[] {
    return [...new Set(this.#sortedEntries().map((e) => e.tool.toolset))].sort()
  }

  /** Calls `listener` after every register/unregister; returns a function that removes it. */
  onChange(listener: () => void): () => void {
    return this.#listeners.add(listener)
  }

  /**
   * OpenAI function-tool definitions of the tools available now, sorted by name, optionally only
   * those named or in the given toolsets. Each distinct `check` runs once per call.
   */
  async getDefinitions(query: DefinitionQuery | readonly string[] = {}, options: AvailabilityOptions = {}): Promise<OpenAIToolDefinition[]> {
    const selection = selectionOf(query)
    // No tool has a check or needs an env var: every tool is available, and that holds until the
    // registry changes. Serve the whole list from a cache (a copy, so callers may change it).
    if (!selection.names && !selection.toolsets) {
      if (this.#unconditional === undefined) {
        const all = this.#sortedEntries()
        this.#unconditional = all.every((e) => !e.tool.check && e.tool.requiresEnv.length === 0) ? all.map((e) => e.definition) : false
      }
      if (this.#unconditional) return this.#unconditional.slice()
    }
    const entries = this.#select(selection)
    const available = await toolAvailability(entries, options)
    const out: OpenAIToolDefinition[] = []
    for (let i = 0; i < entries.length; i++) if (available[i]!.available) out.push(entries[i]!.definition)
    return out
  }

  /** For every registered tool (or those asked for): is it offered now, and if not, why. */
  async explainAvailability(query: DefinitionQuery | readonly string[] = {}, options: AvailabilityOptions = {}): Promise<Availability[]> {
    const entries = this.#select(selectionOf(query))
    return toolAvailability(entries, options)
  }

  /** Whether one tool is available now (re-checked at call time: a hidden tool never runs). */
  async availabilityOf(name: string, options: AvailabilityOptions = {}): Promise<Availability> {
    const entry = this.#entries.get(name)
    if (!entry) return { name, available: false, reason: 'not registered' }
    const [result] = await toolAvailability([entry], options)
    return result!
  }

  /** Removes every tool, prompt, resource and hook (tests and hot reload start from a clean slate). */
  clear(): void {
    this.promptsAndResources.clear()
    this.hooks.clear()
    if (this.#entries.size === 0) return
    for (const entry of [...this.#entries.values()]) this.#forget(entry)
    this.#changed()
  }

  #forget(entry: Entry): void {
    this.#entries.delete(entry.tool.name)
    this.#schemas.release(entry)
  }

  #entriesFrom(source: string): Entry[] {
    return [...this.#entries.values()].filter((e) => e.source === source)
  }

  #changed(): void {
    this.#version++
    this.#sorted = undefined
    this.#unconditional = undefined
    this.#listeners.emit()
  }

  #sortedEntries(): RegistryEntry[] {
    this.#sorted ??= [...this.#entries.values()].sort((a, b) => (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0))
    return this.#sorted
  }

  #select(query: DefinitionQuery): RegistryEntry[] {
    const all = this.#sortedEntries()
    if (!query.names && !query.toolsets) return all
    const names = query.names ? new Set(query.names) : undefined
    const toolsets = query.toolsets ? new Set(query.toolsets) : undefined
    return all.filter((e) => (names?.has(e.tool.name) ?? false) || (toolsets?.has(e.tool.toolset) ?? false))
  }
}

// definePrompt and defineResource mark what they make; a tool has no `kind`.
function isPromptOrResource(spec: object): spec is AnyPrompt | AnyResource {
  const kind = (spec as { kind?: unknown }).kind
  return kind === 'prompt' || kind === 'resource'
}

function isHook(spec: object): spec is PluginHook {
  return (spec as { kind?: unknown }).kind === 'hook'
}

function duplicateTool(name: string, first: string | undefined, second: string | undefined): ToolhostError {
  const where = (source: string | undefined): string => source ?? '(code outside a plugin file)'
  return new ToolhostError('E_DUPLICATE_TOOL', `tool "${name}" is registered twice: by ${where(first)} and by ${where(second)}; rename one of them`, { details: { name, first, second } })
}

// A list of names is short for `{ names }`.
function selectionOf(query: DefinitionQuery | readonly string[]): DefinitionQuery {
  return Array.isArray(query) ? { names: query } : (query as DefinitionQuery)
}

const REGISTRY_KEY = Symbol.for('toolhost.registry')

/** The registry of this process, shared by every copy of this module. */
export const registry: ToolRegistry = ((globalThis as Record<symbol, unknown>)[REGISTRY_KEY] ??= new ToolRegistry()) as ToolRegistry
