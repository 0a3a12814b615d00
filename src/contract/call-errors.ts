import type { ErrorCode } from './errors.js'
import type { ToolError } from './types.js'

/**
 * The messages of the errors the call path gives a call in its slot, each with its code — as
 * fastify keeps its `createError(code, message)` list in one file. A stage answers a call with
 * `CALL_ERRORS.name(...)`, never a message of its own; docs/embedding.md's table shows what these
 * render, and test/contract/call-errors.test.ts holds the two to each other and to ERROR_CODES.
 * (Messages that depend on a subsystem's own detail — a schema's faults, a rule that denied, a
 * store's fault — are built where that detail is, with their code from the catalogue.)
 */
function template<C extends ErrorCode, A extends unknown[]>(code: C, message: (...args: A) => string): ((...args: A) => ToolError & { code: C }) & { code: C } {
  return Object.assign((...args: A) => ({ code, message: message(...args) }), { code })
}

export const CALL_ERRORS = {
  /** A call names no registered tool; up to three close names are suggested. */
  unknownTool: template('E_TOOL_UNKNOWN', (name: string, suggestions: readonly string[]) =>
    `there is no tool named "${name}".${suggestions.length > 0 ? ` Did you mean ${suggestions.map((n) => `"${n}"`).join(' or ')}?` : ' Call one of the tools you were given.'}`),
  /** The tool was unregistered (a hot reload) between a call's admission and a later stage. */
  removedTool: template('E_TOOL_UNKNOWN', (name: string) => `the tool "${name}" was removed`),
  /** The handler ran past its time limit. */
  timedOut: template('E_TIMEOUT', (tool: string, ms: number) =>
    `timed out after ${ms} ms running ${tool}; the call was aborted and may have partly run. Try again with less work per call, or a longer timeout if the tool takes one.`),
  /** The handler was running when the run was interrupted. */
  interruptedRunning: template('E_INTERRUPTED', (tool: string) => `${tool} was interrupted while running; it may have partly run. Check its effects before retrying.`),
  /** The handler ran, but the run was interrupted while an after-call hook read its result. */
  interruptedInHook: template('E_INTERRUPTED', (tool: string, hook: string) => `${tool} ran, but the run was interrupted while its hook ${hook} read the result, so the result is withheld`),
  /** The call had not started when the run was interrupted. */
  skipped: template('E_ABORTED', () => 'skipped: interrupted before it started; it did not run'),
  /** Interrupted (or the host closing) while a before-call hook ran. */
  stoppedInHook: template('E_ABORTED', (tool: string, hook: string) => `${tool} did not run: it was interrupted (the run, or the host closing) while its hook ${hook} ran`),
  /** Interrupted (or the host closing) while the tool's permission check ran. */
  stoppedInCheck: template('E_ABORTED', (tool: string) => `${tool} did not run: the run was interrupted or the host closed while its permission check was running`),
  /** The person was asked to approve the call and has not answered yet (an MCP 2026 round): it runs again with the answer. */
  awaitingAnswer: template('E_ABORTED', (tool: string, note: string) => `${tool} did not run yet: ${note}`),
  /** The host closed while the batch's hooks ran. */
  closedInHooks: template('E_ABORTED', () => 'the call was not run: the host closed while its batch\'s hooks ran'),
  /** The host closed before anyone decided the call's availability or permission. */
  closedUndecided: template('E_ABORTED', (graceMs: number) =>
    `skipped: the host closed before the call's availability or permission was decided (nothing answered within the interrupt grace, dispatch.interrupt_grace_ms = ${graceMs} ms); it did not run`),
} as const
