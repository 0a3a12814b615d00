import { describeThrown, isErrorCode, isToolhostError, ToolhostError } from '../contract/errors.js'

/** How long a prompt's handler, a resource's read or list, or a completer may run, unless the caller says. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000

export interface RunLimits {
  /** The caller's signal (an MCP request's): aborting it aborts the run (`E_INTERRUPTED`). */
  signal?: AbortSignal
  /** Default `DEFAULT_HANDLER_TIMEOUT_MS`; past it the run's signal aborts (`E_TIMEOUT`). */
  timeoutMs?: number
}

/**
 * Runs plugin code (`what` names it in messages: `prompt "review"`) with a signal that aborts when
 * the caller's does or the time limit passes, and answers at once then, without waiting for code
 * that ignores its signal. A throw keeps its code when it is a `ToolhostError` of the catalogue (a
 * `read` may throw `E_NOT_FOUND`); any other throw is `E_HANDLER_FAILED` with its message.
 *
 * @example
 * const messages = await runWithLimit('prompt "review"', (signal) => prompt.handler(args, { signal, env }), { timeoutMs: 5000 })
 */
export async function runWithLimit<T>(what: string, run: (signal: AbortSignal) => T | Promise<T>, limits: RunLimits = {}): Promise<T> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS
  if (limits.signal?.aborted) throw new ToolhostError('E_INTERRUPTED', `${what} was cancelled before it started`)
  const controller = new AbortController()
  let stop: ((error: ToolhostError) => void) | undefined
  const stopped = new Promise<never>((_, reject) => {
    stop = (error) => {
      controller.abort(error)
      reject(error)
    }
  })
  const onAbort = (): void => stop!(new ToolhostError('E_INTERRUPTED', `${what} was cancelled while it ran`))
  limits.signal?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => stop!(new ToolhostError('E_TIMEOUT', `${what} did not finish within ${timeoutMs} ms and was aborted`)), timeoutMs)
  try {
    const work = Promise.resolve().then(() => run(controller.signal))
    work.catch(() => undefined) // a late failure after a timeout is absorbed
    return await Promise.race([work, stopped])
  } catch (error) {
    if (isToolhostError(error) && isErrorCode(error.code)) throw error
    throw new ToolhostError('E_HANDLER_FAILED', `${what} failed: ${describeThrown(error)}`, { cause: error })
  } finally {
    clearTimeout(timer)
    limits.signal?.removeEventListener('abort', onAbort)
  }
}
