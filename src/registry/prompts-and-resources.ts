import { definePrompt } from '../contract/define-prompt.js'
import { defineResource } from '../contract/define-resource.js'
import { describeThrown, ToolhostError } from '../contract/errors.js'
import { Listeners } from '../contract/listeners.js'
import { parseUriTemplate, type ParsedUriTemplate } from '../contract/uri-template.js'
import type { AnyPrompt, AnyResource, Completion, RenderedPrompt, ResourceContents } from '../contract/prompt-types.js'
import type { Availability, JsonSchema } from '../contract/types.js'
import { completeArgument, type CompletionRef } from './complete-argument.js'
import { listResources, type ResourceListing } from './list-resources.js'
import { compileUriTemplate } from './match-uri-template.js'
import type { ListChange, PromptEntry, PromptRequestOptions, ResourceEntry } from './prompt-entries.js'
import { readResource } from './read-resource.js'
import { renderPrompt } from './render-prompt.js'
import { SchemaCompiler, type ValidateFunction } from './schema.js'
import { toolAvailability, type AvailabilityOptions, type Gated } from './tool-availability.js'

// Each prompt keeps the compiler holding its validator (a staged file compiles apart, as tools do).
type Entry = PromptEntry & { compiler: SchemaCompiler }

interface Staging {
  source: string
  prompts: Map<string, Entry>
  resources: Map<string, ResourceEntry>
  compiler: SchemaCompiler
}

/**
 * The prompts and resources plugins offer, beside the tools in the same `ToolRegistry`
 * (`registry.promptsAndResources`): plugin files register them on import with `registry.register`,
 * hot reload replaces them with their file's tools, and availability is decided per request with
 * `check` and `requiresEnv`, fail closed, like a tool's. Lists are sorted (prompts by name,
 * resources by URI or template).
 *
 * @example
 * const { messages } = await registry.promptsAndResources.renderPrompt('review', { path: 'README.md' })
 * const contents = await registry.promptsAndResources.readResource('notes://todo')
 * const off = registry.promptsAndResources.onListChanged((change) => change.prompts && console.log('the prompts changed'))
 */
export class PromptsAndResources {
  readonly #prompts = new Map<string, Entry>()
  readonly #resources = new Map<string, ResourceEntry>()
  readonly #compiler = new SchemaCompiler()
  readonly #listeners = new Listeners<ListChange>(() => {})
  #staging: Staging | undefined
  #sortedPrompts: PromptEntry[] | undefined
  #sortedResources: ResourceEntry[] | undefined

  /**
   * Adds a prompt or resource (checked again, as `definePrompt`/`defineResource` do). A name or URI
   * taken by another file throws `E_DUPLICATE_TOOL` naming both files; while `source` is being
   * (re)loaded, its registrations wait until the load has succeeded.
   */
  register(item: AnyPrompt | AnyResource, source: string | undefined): void {
    let checked: AnyPrompt | AnyResource
    try {
      checked = item.kind === 'prompt' ? definePrompt(item) : defineResource(item)
    } catch (error) {
      if (source === undefined) throw error
      throw new ToolhostError('E_SCHEMA_INVALID', `${source}: ${describeThrown(error)}`, { cause: error })
    }
    const staging = this.#staging !== undefined && this.#staging.source === source ? this.#staging : undefined
    if (checked.kind === 'prompt') {
      const taken = staging ? (staging.prompts.get(checked.name) ?? otherSource(this.#prompts.get(checked.name), source)) : this.#prompts.get(checked.name)
      if (taken) throw duplicate(`prompt "${checked.name}"`, taken.source, source)
      const entry = promptEntry(checked, source, staging?.compiler ?? this.#compiler)
      if (staging) staging.prompts.set(checked.name, entry)
      else this.#setPrompt(entry)
    } else {
      const entry = resourceEntry(checked, source)
      const taken = staging ? (staging.resources.get(entry.key) ?? otherSource(this.#resources.get(entry.key), source)) : this.#resources.get(entry.key)
      if (taken) throw duplicate(`resource ${JSON.stringify(entry.key)}`, taken.source, source)
      if (staging) staging.resources.set(entry.key, entry)
      else this.#setResource(entry)
    }
    if (!staging) this.#changed({ prompts: checked.kind === 'prompt', resources: checked.kind === 'resource' })
  }

  /** Holds the registrations of `source` aside until `commitStaged` or `discardStaged` (`ToolRegistry.replaceSource` calls these). */
  stage(source: string): void {
    this.#staging = { source, prompts: new Map(), resources: new Map(), compiler: new SchemaCompiler() }
  }

  /** Throws when a staged name or URI was taken meanwhile by another file. */
  checkStaged(): void {
    const staging = this.#staging
    if (!staging) return
    for (const [name, entry] of staging.prompts) {
      const taken = otherSource(this.#prompts.get(name), staging.source)
      if (taken) throw duplicate(`prompt "${name}"`, taken.source, entry.source)
    }
    for (const [key, entry] of staging.resources) {
      const taken = otherSource(this.#resources.get(key), staging.source)
      if (taken) throw duplicate(`resource ${JSON.stringify(key)}`, taken.source, entry.source)
    }
  }

  /** Puts the staged registrations in place of the file's current ones, in one step. */
  commitStaged(): void {
    const staging = this.#staging
    if (!staging) return
    this.#staging = undefined
    const removed = this.#removeSource(staging.source)
    for (const entry of staging.prompts.values()) this.#setPrompt(entry)
    for (const entry of staging.resources.values()) this.#setResource(entry)
    this.#changed({ prompts: removed.prompts || staging.prompts.size > 0, resources: removed.resources || staging.resources.size > 0 })
  }

  /** Drops the staged registrations: the file's current ones stay. */
  discardStaged(): void {
    // The staged validators go with the staging's own compiler.
    this.#staging = undefined
  }

  /** Removes what a plugin file registered. */
  unregisterSource(source: string): void {
    this.#changed(this.#removeSource(source))
  }

  /** True when `source` registered a prompt or resource. */
  hasSource(source: string): boolean {
    for (const entry of this.#prompts.values()) if (entry.source === source) return true
    for (const entry of this.#resources.values()) if (entry.source === source) return true
    return false
  }

  /** Removes every prompt and resource. */
  clear(): void {
    const change = { prompts: this.#prompts.size > 0, resources: this.#resources.size > 0 }
    for (const entry of this.#prompts.values()) entry.compiler.removeSchema(entry.prompt.arguments)
    this.#prompts.clear()
    this.#resources.clear()
    this.#changed(change)
  }

  /** Calls `listener` after every change of the prompts or the resources registered; returns a function that removes it. */
  onListChanged(listener: (change: ListChange) => void): () => void {
    return this.#listeners.add(listener)
  }

  getPrompt(name: string): PromptEntry | undefined {
    return this.#prompts.get(name)
  }

  /** A resource by its `uri`, or a template by its `uriTemplate`. */
  getResource(key: string): ResourceEntry | undefined {
    return this.#resources.get(key)
  }

  /** Every prompt, sorted by name, available or not. */
  prompts(): PromptEntry[] {
    this.#sortedPrompts ??= [...this.#prompts.values()].sort((a, b) => compare(a.prompt.name, b.prompt.name))
    return this.#sortedPrompts
  }

  /** Every resource and template, sorted by URI or template, available or not. */
  resources(): ResourceEntry[] {
    this.#sortedResources ??= [...this.#resources.values()].sort((a, b) => compare(a.key, b.key))
    return this.#sortedResources
  }

  /** The prompts available now, sorted by name. */
  async availablePrompts(options: AvailabilityOptions = {}): Promise<PromptEntry[]> {
    return onlyAvailable(this.prompts(), options)
  }

  /** The fixed resources (`templates: false`) or the templates (`true`) available now, sorted. */
  async availableResources(templates: boolean, options: AvailabilityOptions = {}): Promise<ResourceEntry[]> {
    return onlyAvailable(this.resources().filter((e) => (e.match !== undefined) === templates), options)
  }

  /** For every prompt and resource: is it offered now, and if not, why (`name` is `prompt NAME` or `resource URI`). */
  async explainAvailability(options: AvailabilityOptions = {}): Promise<Availability[]> {
    const gates = [...this.prompts().map((e) => ({ tool: { ...e.gate, name: `prompt ${e.prompt.name}` } })), ...this.resources().map((e) => ({ tool: { ...e.gate, name: `resource ${e.key}` } }))]
    return toolAvailability(gates, options)
  }

  /** Renders a prompt: its arguments checked like a tool's, then its handler's messages checked. */
  renderPrompt(name: string, args: unknown = {}, options: PromptRequestOptions = {}): Promise<RenderedPrompt> {
    return renderPrompt(this, name, args, options)
  }

  /** The resources on offer now: fixed ones, and what each available template's `list` names. */
  listResources(options: PromptRequestOptions = {}): Promise<ResourceListing[]> {
    return listResources(this, options)
  }

  /** Reads a resource by URI: a fixed one first, else the first available template (sorted) that matches. */
  readResource(uri: string, options: PromptRequestOptions = {}): Promise<ResourceContents[]> {
    return readResource(this, uri, options)
  }

  /** Completes an argument of a prompt or a variable of a resource template. */
  complete(ref: CompletionRef, argument: { name: string; value: string }, context: Record<string, string> = {}, options: PromptRequestOptions = {}): Promise<Completion> {
    return completeArgument(this, ref, argument, context, options)
  }

  #setPrompt(entry: Entry): void {
    this.#prompts.set(entry.prompt.name, entry)
    this.#sortedPrompts = undefined
  }

  #setResource(entry: ResourceEntry): void {
    this.#resources.set(entry.key, entry)
    this.#sortedResources = undefined
  }

  #removeSource(source: string): ListChange {
    const change = { prompts: false, resources: false }
    for (const [name, entry] of this.#prompts) {
      if (entry.source !== source) continue
      entry.compiler.removeSchema(entry.prompt.arguments)
      this.#prompts.delete(name)
      change.prompts = true
    }
    for (const [key, entry] of this.#resources) {
      if (entry.source !== source) continue
      this.#resources.delete(key)
      change.resources = true
    }
    return change
  }

  #changed(change: ListChange): void {
    if (change.prompts) this.#sortedPrompts = undefined
    if (change.resources) this.#sortedResources = undefined
    if (change.prompts || change.resources) this.#listeners.emit(change)
  }
}

function promptEntry(prompt: AnyPrompt, source: string | undefined, compiler: SchemaCompiler): Entry {
  // A copy, not the plugin's object: what is checked and what is listed cannot change later.
  const schema = JSON.parse(JSON.stringify(prompt.arguments)) as JsonSchema
  let validate: ValidateFunction
  try {
    validate = compiler.compile(schema)
  } catch (error) {
    throw new ToolhostError('E_SCHEMA_INVALID', `prompt "${prompt.name}"${source ? ` (${source})` : ''} has an invalid arguments schema: ${describeThrown(error)}`, { cause: error })
  }
  return { prompt: { ...prompt, arguments: schema }, source, validate, compiler, gate: { name: prompt.name, check: prompt.check, requiresEnv: prompt.requiresEnv } }
}

function resourceEntry(resource: AnyResource, source: string | undefined): ResourceEntry {
  const key = resource.uri ?? resource.uriTemplate!
  const match = resource.uriTemplate === undefined ? undefined : compileUriTemplate(parseUriTemplate(resource.uriTemplate) as ParsedUriTemplate)
  return { resource, source, key, match, gate: { name: key, check: resource.check, requiresEnv: resource.requiresEnv } }
}

async function onlyAvailable<E extends { gate: Gated }>(entries: readonly E[], options: AvailabilityOptions): Promise<E[]> {
  const available = await toolAvailability(entries.map((e) => ({ tool: e.gate })), options)
  return entries.filter((_, i) => available[i]!.available)
}

function otherSource<E extends { source: string | undefined }>(entry: E | undefined, source: string | undefined): E | undefined {
  return entry !== undefined && entry.source !== source ? entry : undefined
}

function duplicate(what: string, first: string | undefined, second: string | undefined): ToolhostError {
  const where = (source: string | undefined): string => source ?? '(code outside a plugin file)'
  return new ToolhostError('E_DUPLICATE_TOOL', `${what} is registered twice: by ${where(first)} and by ${where(second)}; rename one of them`, { details: { name: what, first, second } })
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
