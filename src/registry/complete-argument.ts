import { ToolhostError } from '../contract/errors.js'
import type { Completer, Completion } from '../contract/prompt-types.js'
import { DEFAULT_MAX_INPUT_CHARS, type PromptCatalogue, type PromptRequestOptions } from './prompt-entries.js'
import { availablePrompt } from './render-prompt.js'
import { runWithLimit } from './run-with-limit.js'
import { copyStringArguments } from './string-arguments.js'
import { toolAvailability } from './tool-availability.js'

/** What is completed (MCP `ref/prompt` by name, `ref/resource` by template or URI). */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }

/** MCP caps a completion at 100 values. */
export const MAX_COMPLETION_VALUES = 100

/**
 * Completes one argument of a prompt or one variable of a resource template (MCP
 * `completion/complete`): the prompt or template must be registered and available now
 * (`E_NOT_FOUND`), the argument one it declares (`E_ARGS_INVALID`). A fixed list offers the values
 * that start with the partial value, ignoring case; a function's answer is taken as it is. Without
 * a completer there are no values. At most 100 values, with `total` and `hasMore`.
 *
 * @example
 * await completeArgument(catalogue, { type: 'ref/prompt', name: 'review' }, { name: 'path', value: 'RE' }, {}, {})
 * // { values: ['README.md'], total: 1, hasMore: false }
 */
export async function completeArgument(
  catalogue: PromptCatalogue,
  ref: CompletionRef,
  argument: { name: string; value: string },
  context: unknown,
  options: PromptRequestOptions,
): Promise<Completion> {
  const { what, names, completers } = await completable(catalogue, ref, options)
  const limit = options.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS
  if (typeof argument?.name !== 'string' || !names.includes(argument.name)) {
    throw new ToolhostError('E_ARGS_INVALID', `${what} has no argument ${JSON.stringify(argument?.name)}${names.length > 0 ? `; its arguments are ${names.join(', ')}` : ''}`)
  }
  if (typeof argument.value !== 'string' || argument.value.length > limit) throw new ToolhostError('E_ARGS_INVALID', `the value to complete must be a string of at most ${limit} characters`)
  const others = copyStringArguments(context, limit, 'the context arguments')
  if (typeof others === 'string') throw new ToolhostError('E_ARGS_INVALID', `${what}: ${others}`)
  const completer: Completer | undefined = Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined
  const values = await valuesOf(completer, argument.value, others, `the completer of ${argument.name} of ${what}`, options)
  return { values: values.slice(0, MAX_COMPLETION_VALUES), total: values.length, hasMore: values.length > MAX_COMPLETION_VALUES }
}

async function completable(catalogue: PromptCatalogue, ref: CompletionRef, options: PromptRequestOptions): Promise<{ what: string; names: string[]; completers: Readonly<Record<string, Completer>> }> {
  if (ref?.type === 'ref/prompt') {
    const { prompt } = await availablePrompt(catalogue, ref.name, options)
    const properties = (prompt.arguments as { properties?: Record<string, unknown> }).properties ?? {}
    return { what: `prompt "${prompt.name}"`, names: Object.keys(properties), completers: prompt.complete }
  }
  if (ref?.type === 'ref/resource') {
    const entry = typeof ref.uri === 'string' ? catalogue.getResource(ref.uri) : undefined
    if (!entry) throw new ToolhostError('E_NOT_FOUND', `no resource template ${JSON.stringify(ref.uri)} is registered; resources/templates/list names those on offer`)
    const [availability] = await toolAvailability([{ tool: entry.gate }], options)
    if (!availability!.available) throw new ToolhostError('E_NOT_FOUND', `resource template ${JSON.stringify(entry.key)} is not available now: ${availability!.reason ?? 'hidden'}`)
    return { what: `resource template ${JSON.stringify(entry.key)}`, names: entry.resource.variables, completers: entry.resource.complete }
  }
  throw new ToolhostError('E_ARGS_INVALID', 'the completion reference must be { type: "ref/prompt", name } or { type: "ref/resource", uri }')
}

async function valuesOf(completer: Completer | undefined, value: string, others: Record<string, string>, what: string, options: PromptRequestOptions): Promise<string[]> {
  if (completer === undefined) return []
  if (typeof completer !== 'function') {
    const start = value.toLowerCase()
    return completer.filter((v) => v.toLowerCase().startsWith(start))
  }
  const env = options.env ?? process.env
  const answer: unknown = await runWithLimit(what, (signal) => completer(value, { arguments: others, signal, env }), options)
  if (!Array.isArray(answer) || answer.some((v) => typeof v !== 'string')) {
    throw new ToolhostError('E_HANDLER_FAILED', `${what} returned something that is not a list of strings`)
  }
  return answer as string[]
}
