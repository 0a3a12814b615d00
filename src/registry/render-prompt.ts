import { isContentBlock } from '../contract/content-blocks.js'
import { ToolhostError } from '../contract/errors.js'
import type { AnyPrompt, PromptMessage, RenderedPrompt } from '../contract/prompt-types.js'
import { DEFAULT_MAX_INPUT_CHARS, type PromptCatalogue, type PromptEntry, type PromptRequestOptions } from './prompt-entries.js'
import { runWithLimit } from './run-with-limit.js'
import { describeSchemaErrors } from './schema.js'
import { copyStringArguments } from './string-arguments.js'
import { toolAvailability } from './tool-availability.js'

/**
 * Renders a prompt (MCP `prompts/get`): the prompt must be registered and available now
 * (`E_NOT_FOUND` otherwise, saying why), its arguments a plain object of strings within the size
 * limit that passes its schema (`E_ARGS_INVALID` naming each bad field), and its handler must
 * return messages in time (`E_HANDLER_FAILED`, `E_TIMEOUT`). The description defaults to the prompt's.
 *
 * @example
 * await renderPrompt(registry.promptsAndResources, 'review', { path: 'README.md' }, {})
 * // { description: 'Review a file.', messages: [{ role: 'user', content: { type: 'text', text: 'Review README.md for bugs.' } }] }
 */
export async function renderPrompt(catalogue: PromptCatalogue, name: string, args: unknown, options: PromptRequestOptions): Promise<RenderedPrompt> {
  const entry = await availablePrompt(catalogue, name, options)
  const copied = copyStringArguments(args, options.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS, 'the prompt arguments')
  if (typeof copied === 'string') throw new ToolhostError('E_ARGS_INVALID', `prompt "${name}": ${copied}`)
  if (!entry.validate(copied)) {
    const problems = describeSchemaErrors(entry.validate.errors, copied, 'the prompt arguments')
    throw new ToolhostError('E_ARGS_INVALID', `prompt "${name}": ${problems.join('; ')}`, { details: { problems } })
  }
  const env = options.env ?? process.env
  const value = await runWithLimit(`prompt "${name}"`, (signal) => entry.prompt.handler(copied, { signal, env }), options)
  return shapePromptResult(value, entry.prompt)
}

/**
 * The prompt named, when it is registered and available now; else `E_NOT_FOUND` saying which.
 *
 * @example
 * const entry = await availablePrompt(catalogue, 'review', { env: process.env })
 */
export async function availablePrompt(catalogue: PromptCatalogue, name: string, options: PromptRequestOptions): Promise<PromptEntry> {
  const entry = typeof name === 'string' ? catalogue.getPrompt(name) : undefined
  if (!entry) throw new ToolhostError('E_NOT_FOUND', `prompt ${JSON.stringify(name)} is not registered; prompts/list names the prompts on offer`)
  const [availability] = await toolAvailability([{ tool: entry.gate }], options)
  if (!availability!.available) throw new ToolhostError('E_NOT_FOUND', `prompt "${name}" is not available now: ${availability!.reason ?? 'hidden'}`)
  return entry
}

// A handler's value as MCP `GetPromptResult`, or E_HANDLER_FAILED saying what is wrong with it.
function shapePromptResult(value: unknown, prompt: AnyPrompt): RenderedPrompt {
  const fail = (what: string): never => {
    throw new ToolhostError('E_HANDLER_FAILED', `prompt "${prompt.name}" returned ${what}; return a string, a list of { role: 'user' | 'assistant', content } messages, or { description?, messages }`)
  }
  if (typeof value === 'string') return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: value } }] }
  let description: unknown = prompt.description
  let list: unknown = value
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { description: given, messages } = value as { description?: unknown; messages?: unknown }
    if (given !== undefined && typeof given !== 'string') fail('a `description` that is not a string')
    description = given ?? prompt.description
    list = messages
  }
  if (!Array.isArray(list)) fail('no list of messages')
  const messages = (list as unknown[]).map((message, i): PromptMessage => {
    if (typeof message !== 'object' || message === null) return fail(`message ${i}, which is not an object`)
    const { role, content } = message as { role?: unknown; content?: unknown }
    if (role !== 'user' && role !== 'assistant') return fail(`message ${i} with role ${JSON.stringify(role)} (not "user" or "assistant")`)
    if (typeof content === 'string') return { role, content: { type: 'text', text: content } }
    if (!isContentBlock(content)) return fail(`message ${i}, whose content is not a text, image, audio, resource_link or resource block`)
    return { role, content }
  })
  return { description: description as string, messages }
}
