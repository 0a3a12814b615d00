/**
 * The one catalogue of error codes. A fault of the host or its configuration throws a `ToolhostError`
 * at start-up; a failed tool call becomes a result carrying one of these codes in that call's slot.
 */

/** Every code toolhost produces, with what it means (walked by `test/contract/errors.test.ts`). */
export const ERROR_CODES = {
  E_TOOL_UNKNOWN: 'the call names a tool that is not registered',
  E_TOOL_UNAVAILABLE: 'the tool is registered but hidden right now (missing env var, failing check)',
  E_ARGS_INVALID: 'the arguments are not valid JSON, not an object, too large, or fail the schema',
  E_DENIED: 'the permission system or the person refused the call',
  E_PATH_OUTSIDE_ROOT: 'a path leads outside the workspace root or into a denied place',
  E_CONTROL_PLANE: 'a file tool was asked to change what configures or programs the host (config file, plugin folders, .env, hook scripts, .toolhost/): the person edits these',
  E_TIMEOUT: 'the handler ran past its time limit and was aborted',
  E_ABORTED: 'the call was skipped: interrupted before it started',
  E_INTERRUPTED: 'the call was interrupted while running; it may have partly run',
  E_TOOL_FAILED: 'the handler threw, rejected, or returned something that is not a result',
  E_LIMIT: 'a configured limit was reached (running processes, sizes)',
  E_NOT_FOUND: 'a thing the call names (file, process id) does not exist',
  E_PLUGIN_LOAD: 'a plugin file failed to import',
  E_DUPLICATE_TOOL: 'two plugins registered the same tool name, prompt name or resource URI',
  E_SCHEMA_INVALID: 'a tool, prompt, resource or hook definition or its JSON Schema is invalid',
  E_CONFIG_INVALID: 'config.yaml (or an option) has an unknown key, a wrong type or a bad value',
  E_USAGE: 'the command line is wrong',
  E_REQUEST_STATE_INVALID: 'an MCP retry carried a requestState this host did not seal (tampered, truncated, or sealed with another key)',
  E_REQUEST_STATE_EXPIRED: 'an MCP retry carried a requestState past its expiry: the question was asked too long ago; call again',
  E_REQUEST_STATE_MISMATCH: 'an MCP retry carried a requestState sealed for another call, method or client',
  E_REQUEST_STATE_REPLAYED: 'an MCP retry carried a requestState that was already used once (an approval is consumed at most once)',
  E_HANDLER_FAILED: 'a prompt\'s handler, a resource\'s read or list, or a completer threw, rejected, or returned something of the wrong shape',
  E_STORE_UNAVAILABLE: 'the coordination store shared with other hosts (.toolhost/store, or a remote store) cannot be used; the call did not run',
} as const

/** A code of the catalogue (`ERROR_CODES`): `E_TOOL_UNKNOWN`, `E_ARGS_INVALID`, `E_DENIED`, …. */
export type ErrorCode = keyof typeof ERROR_CODES

const BRAND = Symbol.for('toolhost.error')

/**
 * An error with a stable string `code`. Its message says what happened and what to do.
 *
 * @example
 * throw new ToolhostError('E_CONFIG_INVALID', 'config.yaml: dispatch.max_workers must be an integer ≥ 1, got "eight" (string)')
 */
export class ToolhostError extends Error {
  readonly code: ErrorCode
  readonly details: Record<string, unknown> | undefined

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ToolhostError'
    this.code = code
    this.details = options?.details
    Object.defineProperty(this, BRAND, { value: true })
  }
}

/**
 * True for a `ToolhostError` from any copy of this module (plugins loaded through tsx get their own
 * copy, so `instanceof` alone is not enough).
 */
export function isToolhostError(value: unknown): value is ToolhostError {
  // A plugin's thrown value may be a Proxy whose traps throw: asking what it is never throws.
  try {
    return (
      value instanceof ToolhostError ||
      (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true)
    )
  } catch {
    return false
  }
}

/** True when `code` is one of the catalogue's codes. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code)
}

/**
 * The message of anything thrown, without a stack. Never throws: a plugin's thrown value may carry a
 * getter or be a Proxy that throws when read, and the host reads it while answering the call.
 *
 * @example
 * describeThrown(new Error('disk full')) // 'disk full'
 * describeThrown({ code: 7 })             // '{"code":7}'
 */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) {
      const message: unknown = thrown.message
      return typeof message === 'string' && message !== '' ? message : String(thrown.name)
    }
    if (typeof thrown === 'string') return thrown
    return JSON.stringify(thrown) ?? String(thrown)
  } catch {
    try {
      return String(thrown)
    } catch {
      return 'a thrown value that cannot be read (its properties throw)'
    }
  }
}
