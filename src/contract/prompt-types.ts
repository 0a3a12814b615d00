/**
 * The contract of prompts and resources a plugin offers (MCP `prompts/*`, `resources/*`,
 * `completion/complete`). Types only; `definePrompt` and `defineResource` fill and check them.
 */
import type { AvailabilityContext, CheckOutcome, ContentBlock, JsonSchema } from './types.js'

/** What a prompt's handler, a resource's `read` or `list` and a completer receive besides their input. */
export interface PromptContext {
  /** Aborts when the request is cancelled or runs past its time limit; stop soon after. */
  readonly signal: AbortSignal
  /** The host's environment (the one `requiresEnv` is checked against). */
  readonly env: NodeJS.ProcessEnv
}

/** What a resource's `read` and `list` receive besides their input (the same as a prompt's). */
export type ResourceContext = PromptContext

/** One message of a rendered prompt (MCP `PromptMessage`). */
export interface PromptMessage {
  role: 'user' | 'assistant'
  content: ContentBlock
}

/**
 * What a prompt's handler may return: a string (one user text message), a list of messages, or
 * `{ description?, messages }`. A message's `content` may be a string, short for a text block.
 */
export type PromptHandlerResult =
  | string
  | readonly (PromptMessage | { role: 'user' | 'assistant'; content: string })[]
  | { description?: string; messages: readonly (PromptMessage | { role: 'user' | 'assistant'; content: string })[] }

/** A rendered prompt (MCP `GetPromptResult`). */
export interface RenderedPrompt {
  description?: string
  messages: PromptMessage[]
}

/** Context a completer gets: the other arguments (or template variables) filled in so far. */
export interface CompletionContext extends PromptContext {
  readonly arguments: Readonly<Record<string, string>>
}

/**
 * Completes one argument or template variable: a function of the partial value, or a fixed list
 * (offered when it starts with the value, ignoring case).
 */
export type Completer = readonly string[] | ((value: string, context: CompletionContext) => readonly string[] | Promise<readonly string[]>)

/** The completion of one argument (MCP `completion`): at most 100 values. */
export interface Completion {
  values: string[]
  total?: number
  hasMore?: boolean
}

/** What a plugin author writes for a prompt. */
export interface PromptSpec<Args = Record<string, string>> {
  /** 1 to 128 letters, digits, `_`, `-` or `.`. */
  name: string
  title?: string
  description: string
  /**
   * The prompt's arguments as an object JSON Schema whose properties are strings (MCP sends prompt
   * arguments as strings); `required` marks the required ones. Checked with ajv before the handler runs.
   */
  arguments?: JsonSchema
  /** Completions for arguments, by argument name. */
  complete?: { readonly [K in keyof Args & string]?: Completer }
  /** Availability, as a tool's: false, `{ available: false, reason }`, a throw or a timeout hides the prompt. */
  check?: (context: AvailabilityContext) => CheckOutcome | Promise<CheckOutcome>
  requiresEnv?: readonly string[]
  handler: (args: Args, ctx: PromptContext) => PromptHandlerResult | Promise<PromptHandlerResult>
}

/** A prompt after `definePrompt`. */
export interface Prompt<Args = Record<string, string>> {
  readonly kind: 'prompt'
  name: string
  title: string | undefined
  description: string
  arguments: JsonSchema
  complete: Readonly<Record<string, Completer>>
  check: ((context: AvailabilityContext) => CheckOutcome | Promise<CheckOutcome>) | undefined
  requiresEnv: string[]
  handler: (args: Args, ctx: PromptContext) => PromptHandlerResult | Promise<PromptHandlerResult>
}

/** A prompt of any argument type: what the registry holds. */
// Prompts are stored without their argument type; handlers see validated arguments.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPrompt = Prompt<any>

/** One piece of a resource's contents (MCP `TextResourceContents` or `BlobResourceContents`; `blob` is base64). */
export type ResourceContents = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string }

/** One piece `read` may return: `uri` defaults to the URI read, `mimeType` to the resource's. */
export type ResourcePart = { uri?: string; mimeType?: string; text: string } | { uri?: string; mimeType?: string; blob: string | Uint8Array }

/**
 * What a resource's `read` may return: text, bytes (sent as a base64 blob), one part, a list of
 * parts, or `{ contents: [...] }`.
 */
export type ReadResult = string | Uint8Array | ResourcePart | readonly ResourcePart[] | { contents: readonly ResourcePart[] }

/** A concrete resource a template's `list` names (shown in `resources/list`). */
export interface ListedResource {
  uri: string
  name?: string
  title?: string
  description?: string
  mimeType?: string
}

/** The variables of an RFC 6570 level 1 template: `'notes://{folder}/{name}'` → `'folder' | 'name'`. */
export type TemplateVariables<T extends string> = T extends `${string}{${infer V}}${infer Rest}` ? V | TemplateVariables<Rest> : never

/** The `vars` a template's `read` receives: one string per variable (none for a fixed URI). */
export type VarsOfTemplate<T extends string> = string extends T ? Record<string, string> : { [K in TemplateVariables<T>]: string }

/** What a plugin author writes for a resource: exactly one of `uri` (fixed) or `uriTemplate`. */
export interface ResourceSpec<Vars = Record<string, string>> {
  /** A fixed URI with a scheme (`notes://index`). */
  uri?: string
  /** An RFC 6570 level 1 template (`notes://{name}`): each `{variable}` stands for one piece of the URI, without `/`, `?` or `#`. */
  uriTemplate?: string
  name: string
  title?: string
  description: string
  mimeType: string
  /** A template's concrete resources now (offered in `resources/list`). */
  list?: (ctx: ResourceContext) => readonly ListedResource[] | Promise<readonly ListedResource[]>
  /** Completions for template variables, by variable name. */
  complete?: { readonly [K in keyof Vars & string]?: Completer }
  check?: (context: AvailabilityContext) => CheckOutcome | Promise<CheckOutcome>
  requiresEnv?: readonly string[]
  /** Reads the resource: `uri` as asked for, `vars` the template's variables decoded (untrusted input, like a model's arguments). */
  read: (uri: string, vars: Vars, ctx: ResourceContext) => ReadResult | Promise<ReadResult>
}

/** A resource after `defineResource`. */
export interface Resource<Vars = Record<string, string>> {
  readonly kind: 'resource'
  uri: string | undefined
  uriTemplate: string | undefined
  /** The template's variables in order (empty for a fixed URI). */
  variables: string[]
  name: string
  title: string | undefined
  description: string
  mimeType: string
  list: ((ctx: ResourceContext) => readonly ListedResource[] | Promise<readonly ListedResource[]>) | undefined
  complete: Readonly<Record<string, Completer>>
  check: ((context: AvailabilityContext) => CheckOutcome | Promise<CheckOutcome>) | undefined
  requiresEnv: string[]
  read: (uri: string, vars: Vars, ctx: ResourceContext) => ReadResult | Promise<ReadResult>
}

/** A resource of any template variables: what the registry holds. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyResource = Resource<any>
