import { ToolhostError } from '../contract/errors.js'
import type { ContentBlock } from '../contract/types.js'
import type { PromptMessage, ResourceContents } from '../contract/prompt-types.js'
import type { Host } from '../host/host.js'
import type { PromptRequestOptions } from '../registry/prompt-entries.js'
import type { CliArgs } from './args.js'

// What these commands print to (commands.ts's Output, which imports this file: stated here, no circle).
interface Output {
  out(text: string): void
  err(text: string): void
}

/** A plugin's prompt as `toolhost list` shows it. */
export interface ListedPrompt {
  name: string
  description: string
  /** Its arguments' names, required ones first as the schema lists them. */
  arguments: string[]
  available: boolean
  reason?: string
}

/** A plugin's resource (`uri`) or resource template (`uriTemplate`) as `toolhost list` shows it. */
export interface ListedResource {
  uri?: string
  uriTemplate?: string
  name: string
  description: string
  mimeType: string
  available: boolean
  reason?: string
}

/** The host's prompts and resources, each with whether it is offered now and why not, as the tools are. */
export async function listPromptsAndResources(host: Host): Promise<{ prompts: ListedPrompt[]; resources: ListedResource[] }> {
  const catalogue = host.registry.promptsAndResources
  const availability = new Map((await catalogue.explainAvailability(availabilityOf(host))).map((a) => [a.name, a]))
  const why = (name: string): { available: boolean; reason?: string } => {
    const a = availability.get(name)
    return { available: a?.available ?? false, ...(a?.reason ? { reason: a.reason } : {}) }
  }
  const prompts = catalogue.prompts().map(({ prompt }) => ({
    name: prompt.name,
    description: prompt.description,
    arguments: Object.keys((prompt.arguments as { properties?: Record<string, unknown> }).properties ?? {}),
    ...why(`prompt ${prompt.name}`),
  }))
  const resources = catalogue.resources().map(({ resource, key }) => ({
    ...(resource.uri !== undefined ? { uri: resource.uri } : { uriTemplate: key }),
    name: resource.name,
    description: resource.description,
    mimeType: resource.mimeType,
    ...why(`resource ${key}`),
  }))
  return { prompts, resources }
}

/** The lines `toolhost list` prints under its tools: a plugin's prompts, then its resources (none when there are none). */
export function promptAndResourceLines(listed: { prompts: ListedPrompt[]; resources: ListedResource[] }): string[] {
  const lines: string[] = []
  const status = (e: { available: boolean; reason?: string }): string => (e.available ? 'available' : `hidden: ${e.reason}`)
  if (listed.prompts.length > 0) {
    const width = Math.max(6, ...listed.prompts.map((p) => p.name.length))
    const named = listed.prompts.map((p) => p.arguments.join(', ') || '-')
    const argsWidth = Math.max(9, ...named.map((a) => a.length))
    lines.push('', `${'prompt'.padEnd(width)}  ${'arguments'.padEnd(argsWidth)}  status`)
    listed.prompts.forEach((p, i) => lines.push(`${p.name.padEnd(width)}  ${named[i]!.padEnd(argsWidth)}  ${status(p)}`))
  }
  if (listed.resources.length > 0) {
    const shown = listed.resources.map((r) => r.uri ?? `${r.uriTemplate} (template)`)
    const width = Math.max(8, ...shown.map((s) => s.length))
    lines.push('', `${'resource'.padEnd(width)}  status`)
    listed.resources.forEach((r, i) => lines.push(`${shown[i]!.padEnd(width)}  ${status(r)}`))
  }
  if (lines.length > 0) lines.push('', 'toolhost prompt NAME [--arg KEY=VALUE] renders a prompt; toolhost resource URI reads a resource.')
  return lines
}

/**
 * `toolhost prompt NAME [--arg KEY=VALUE]…`: a plugin's prompt rendered, as an MCP client's
 * `prompts/get` would get it: each message's role and text (`--json`: `{description?, messages}`).
 * Its arguments are checked against the prompt's schema; an unknown prompt or a bad argument exits 1.
 */
export async function promptCommand(host: Host, args: CliArgs, io: Output): Promise<number> {
  const name = args.positionals[0]
  if (name === undefined) throw new ToolhostError('E_USAGE', 'prompt needs the name of a prompt: toolhost prompt NAME [--arg KEY=VALUE]; toolhost list shows the prompts')
  const rendered = await answered(io, () => host.registry.promptsAndResources.renderPrompt(name, argumentsOf(args.args), requestOptions(host)))
  if (rendered === undefined) return 1
  if (args.json) {
    io.out(JSON.stringify(rendered, null, 2))
    return 0
  }
  if (rendered.description) io.out(`# ${rendered.description}`)
  for (const message of rendered.messages) io.out(`${message.role}: ${describeBlock(message.content)}`)
  return 0
}

/**
 * `toolhost resource URI`: a plugin's resource read (a fixed URI, or one a template matches), as
 * `resources/read` answers it: its text, or what its binary part is (`--json`: `{contents}`, blobs in base64).
 */
export async function resourceCommand(host: Host, args: CliArgs, io: Output): Promise<number> {
  const uri = args.positionals[0]
  if (uri === undefined) throw new ToolhostError('E_USAGE', 'resource needs a URI: toolhost resource URI; toolhost list shows the resources')
  const contents = await answered(io, () => host.registry.promptsAndResources.readResource(uri, requestOptions(host)))
  if (contents === undefined) return 1
  if (args.json) {
    io.out(JSON.stringify({ contents }, null, 2))
    return 0
  }
  for (const part of contents) io.out(describePart(part, contents.length > 1))
  return 0
}

// A prompt or resource that cannot be answered (unknown, hidden, bad arguments, its handler threw)
// is said on stderr with its code, as a failed call is.
async function answered<T>(io: Output, ask: () => Promise<T>): Promise<T | undefined> {
  try {
    return await ask()
  } catch (error) {
    if (error instanceof ToolhostError && error.code !== 'E_USAGE') {
      io.err(`error ${error.code}: ${error.message}`)
      return undefined
    }
    throw error
  }
}

function argumentsOf(pairs: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {}
  for (const pair of pairs) {
    const at = pair.indexOf('=')
    if (at <= 0) throw new ToolhostError('E_USAGE', `--arg takes KEY=VALUE; got ${JSON.stringify(pair)}`)
    values[pair.slice(0, at)] = pair.slice(at + 1)
  }
  return values
}

function availabilityOf(host: Host): PromptRequestOptions {
  return { env: host.env, checkTimeoutMs: host.config.availability.check_timeout_ms, canAsk: host.ask !== undefined }
}

function requestOptions(host: Host): PromptRequestOptions {
  return { ...availabilityOf(host), report: (message) => host.log.warn(message) }
}

function describeBlock(block: PromptMessage['content'] | ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text
    case 'resource':
      return 'text' in block.resource ? `[resource ${block.resource.uri}]\n${block.resource.text}` : `[resource ${block.resource.uri}: ${block.resource.mimeType ?? 'binary'}, base64 (--json shows it)]`
    default:
      return `[${block.type}${'mimeType' in block && typeof block.mimeType === 'string' ? ` ${block.mimeType}` : ''} (--json shows it)]`
  }
}

function describePart(part: ResourceContents, named: boolean): string {
  const head = named ? `[${part.uri}${part.mimeType ? ` ${part.mimeType}` : ''}]\n` : ''
  if ('text' in part) return head + part.text
  return `${head}[${part.mimeType ?? 'binary'}, ${Buffer.from(part.blob, 'base64').length} bytes; --json gives it in base64]`
}
