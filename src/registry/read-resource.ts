import { ToolhostError } from '../contract/errors.js'
import type { AnyResource, ResourceContents } from '../contract/prompt-types.js'
import { DEFAULT_MAX_INPUT_CHARS, type PromptCatalogue, type PromptRequestOptions, type ResourceEntry } from './prompt-entries.js'
import type { UriMatch } from './match-uri-template.js'
import { runWithLimit } from './run-with-limit.js'
import { toolAvailability } from './tool-availability.js'

/**
 * Reads a resource by URI (MCP `resources/read`): the fixed resource of that URI, else the first
 * template (in sorted order) that matches it, among those available now. No match, or only hidden
 * ones, is `E_NOT_FOUND` saying which; a URI over the size limit or with broken percent-encoding
 * is `E_ARGS_INVALID`; `read` failing or returning something unreadable is `E_HANDLER_FAILED`.
 * Each part's `uri` defaults to the URI read and its `mimeType` to the resource's; bytes are sent
 * as base64 `blob`.
 *
 * @example
 * await readResource(registry.promptsAndResources, 'notes://todo', {})
 * // [{ uri: 'notes://todo', mimeType: 'text/markdown', text: '# todo\n' }]
 */
export async function readResource(catalogue: PromptCatalogue, uri: string, options: PromptRequestOptions): Promise<ResourceContents[]> {
  const { entry, vars } = await resolveUri(catalogue, uri, options)
  const env = options.env ?? process.env
  const what = entry.match ? `resource template ${JSON.stringify(entry.key)}` : `resource ${JSON.stringify(entry.key)}`
  const value = await runWithLimit(what, (signal) => entry.resource.read(uri, vars, { signal, env }), options)
  return shapeContents(value, uri, entry.resource, what)
}

/**
 * The resource that answers `uri` now and the template's variables; see `readResource`.
 *
 * @example
 * const { entry, vars } = await resolveUri(catalogue, 'notes://todo', {}) // vars: { name: 'todo' }
 */
export async function resolveUri(catalogue: PromptCatalogue, uri: string, options: PromptRequestOptions): Promise<{ entry: ResourceEntry; vars: Record<string, string> }> {
  const limit = options.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS
  if (typeof uri !== 'string' || uri === '') throw new ToolhostError('E_ARGS_INVALID', 'the resource URI must be a non-empty string')
  if (uri.length > limit) throw new ToolhostError('E_ARGS_INVALID', `the resource URI is over ${limit} characters, the limit`)
  const candidates: { entry: ResourceEntry; match: UriMatch }[] = []
  const fixed = catalogue.getResource(uri)
  if (fixed && fixed.match === undefined) candidates.push({ entry: fixed, match: { ok: true, vars: {} } })
  for (const entry of catalogue.resources()) {
    const match = entry.match?.(uri)
    if (match !== undefined) candidates.push({ entry, match })
  }
  if (candidates.length === 0) throw notFound(uri, 'no resource or resource template matches it; resources/list and resources/templates/list name those on offer')
  const availability = await toolAvailability(candidates.map((c) => ({ tool: c.entry.gate })), options)
  const index = availability.findIndex((a) => a.available)
  if (index === -1) throw notFound(uri, `it is not available now: ${availability.map((a) => `${a.name}: ${a.reason ?? 'hidden'}`).join('; ')}`)
  const { entry, match } = candidates[index]!
  if (!match.ok) throw new ToolhostError('E_ARGS_INVALID', `${uri}: ${match.problem}`)
  return { entry, vars: match.vars }
}

function notFound(uri: string, why: string): ToolhostError {
  return new ToolhostError('E_NOT_FOUND', `resource ${JSON.stringify(uri.length > 200 ? `${uri.slice(0, 200)}…` : uri)} not found: ${why}`, { details: { uri } })
}

// Standard base64 (RFC 4648 §4), padded or not.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

// What `read` returned as MCP resource contents, or E_HANDLER_FAILED saying what is wrong.
function shapeContents(value: unknown, uri: string, resource: AnyResource, what: string): ResourceContents[] {
  const fail = (problem: string): never => {
    throw new ToolhostError('E_HANDLER_FAILED', `${what} returned ${problem}; return text, bytes, { text } or { blob } parts (with optional uri and mimeType), a list of them, or { contents: [...] }`)
  }
  if (typeof value === 'string') return [{ uri, mimeType: resource.mimeType, text: value }]
  const listed = typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && Array.isArray((value as { contents?: unknown }).contents)
  const parts: unknown[] = Array.isArray(value) ? value : listed ? (value as { contents: unknown[] }).contents : [value]
  return parts.map((part, i): ResourceContents => {
    if (part instanceof Uint8Array) part = { blob: part }
    if (typeof part === 'string') part = { text: part }
    if (typeof part !== 'object' || part === null) return fail(`part ${i}, which is not an object`)
    const { uri: partUri = uri, mimeType = resource.mimeType, text, blob } = part as { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown }
    if (typeof partUri !== 'string' || partUri === '') return fail(`part ${i} with a \`uri\` that is not a non-empty string`)
    if (typeof mimeType !== 'string') return fail(`part ${i} with a \`mimeType\` that is not a string`)
    if (text !== undefined && blob !== undefined) return fail(`part ${i} with both \`text\` and \`blob\``)
    if (typeof text === 'string') return { uri: partUri, mimeType, text }
    if (blob instanceof Uint8Array) return { uri: partUri, mimeType, blob: Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength).toString('base64') }
    if (typeof blob === 'string' && blob.length % 4 !== 1 && BASE64.test(blob)) return { uri: partUri, mimeType, blob }
    return fail(`part ${i} without text, bytes or base64 \`blob\``)
  })
}
