/** What the registry keeps of each prompt and resource, and what a request on them may say. Types only. */
import type { AnyPrompt, AnyResource } from '../contract/prompt-types.js'
import type { AnyTool } from '../contract/types.js'
import type { UriTemplateMatcher } from './match-uri-template.js'
import type { ValidateFunction } from './schema.js'
import type { AvailabilityOptions } from './tool-availability.js'

/** A registered prompt with what the registry derived from it once. */
export interface PromptEntry {
  readonly prompt: AnyPrompt
  /** The plugin file that registered it, when known. */
  readonly source: string | undefined
  /** Its `arguments` schema's validator, compiled at registration. */
  readonly validate: ValidateFunction
  /** What availability is decided from: its name, `check` and `requiresEnv`. */
  readonly gate: Pick<AnyTool, 'name' | 'check' | 'requiresEnv'>
}

/** A registered resource or resource template. */
export interface ResourceEntry {
  readonly resource: AnyResource
  readonly source: string | undefined
  /** Its `uri`, or its `uriTemplate`: what it is known by (two resources never share one). */
  readonly key: string
  /** A template's matcher; undefined for a fixed URI. */
  readonly match: UriTemplateMatcher | undefined
  readonly gate: Pick<AnyTool, 'name' | 'check' | 'requiresEnv'>
}

/** Which lists changed (MCP `notifications/prompts/list_changed`, `notifications/resources/list_changed`). */
export interface ListChange {
  prompts: boolean
  /** Resources or resource templates. */
  resources: boolean
}

/** What a request on prompts or resources may say: availability as for tools, and its limits. */
export interface PromptRequestOptions extends AvailabilityOptions {
  /** The caller's signal (an MCP request's): aborting it aborts the handler (`E_INTERRUPTED`). */
  signal?: AbortSignal
  /** How long a handler, `read`, `list` or completer may run; default 30 s (`E_TIMEOUT`). */
  timeoutMs?: number
  /** Characters a prompt's arguments (names and values), a URI, or a value to complete may have. Default 100,000. */
  maxInputChars?: number
  /** Hears what went wrong in a template's `list` (its listings are left out). */
  report?: (message: string) => void
}

/** The default of `maxInputChars`. */
export const DEFAULT_MAX_INPUT_CHARS = 100_000

/** The part of `PromptsAndResources` a request needs: lookups and availability. */
export interface PromptCatalogue {
  getPrompt(name: string): PromptEntry | undefined
  getResource(key: string): ResourceEntry | undefined
  /** Every resource and template, sorted by URI or template. */
  resources(): ResourceEntry[]
  availableResources(templates: boolean, options?: AvailabilityOptions): Promise<ResourceEntry[]>
}
