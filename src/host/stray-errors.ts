import { pathToFileURL } from 'node:url'
import { describeThrown } from '../contract/errors.js'
import type { ToolRegistry } from '../registry/registry.js'
import type { Logger } from '../contract/types.js'

/**
 * Keeps a process that serves tools alive through a plugin's stray fault: a promise it rejected with
 * nobody listening, or a throw from one of its timers, would end the process (Node's default for
 * both) and with it every session and every call in flight. Each stray error is logged instead,
 * naming the plugin file and its tools when the error's stack leads to one, and the process goes on.
 * The CLI and `toolhost serve` install this; an application embedding a host decides for itself
 * (it owns the process). Returns a function that removes the handlers.
 *
 * @example
 * const stop = guardStrayErrors({ log: createLogger(), registry })
 */
export function guardStrayErrors(options: { log: Logger; registry: ToolRegistry }): () => void {
  const report = (kind: string, error: unknown): void => {
    // Reading the stray value may itself throw (a getter, a Proxy): a throw from this handler would
    // end the process, the very thing it is here to prevent.
    let culprit: { file: string; tools: string[] } | undefined
    let stack: string | undefined
    try {
      culprit = culpritOf(error, options.registry)
      stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : undefined
    } catch {
      culprit = undefined
    }
    const from = culprit === undefined ? 'from code that is not a plugin file' : `from plugin ${culprit.file} (tools: ${culprit.tools.join(', ') || 'none'})`
    options.log.error(`${kind} ${from} was ignored so the host keeps serving: ${describeThrown(error)}. A tool should await its promises and catch its errors`)
    if (stack !== undefined) options.log.debug(`stack of the ignored error: ${stack}`)
  }
  const onRejection = (reason: unknown): void => report('an unhandled promise rejection', reason)
  const onException = (error: unknown): void => report('an uncaught exception', error)
  process.on('unhandledRejection', onRejection)
  process.on('uncaughtException', onException)
  return () => {
    process.off('unhandledRejection', onRejection)
    process.off('uncaughtException', onException)
  }
}

/**
 * The plugin file (and its tools) whose code appears first in the error's stack, when any does.
 *
 * @example
 * culpritOf(new Error('x'), registry) // { file: '/w/plugins/flaky.ts', tools: ['flaky'] } when thrown there
 */
export function culpritOf(error: unknown, registry: ToolRegistry): { file: string; tools: string[] } | undefined {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : undefined
  if (stack === undefined) return undefined
  const bySource = new Map<string, string[]>()
  for (const tool of registry.list()) {
    const source = registry.entry(tool.name)?.source
    if (source !== undefined) bySource.set(source, [...(bySource.get(source) ?? []), tool.name])
  }
  let first: { file: string; at: number } | undefined
  for (const file of bySource.keys()) {
    for (const form of [file, pathToFileURL(file).href]) {
      const at = stack.indexOf(form)
      if (at !== -1 && (first === undefined || at < first.at)) first = { file, at }
    }
  }
  return first === undefined ? undefined : { file: first.file, tools: bySource.get(first.file)! }
}
