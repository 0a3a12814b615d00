import type { Host } from '../host/host.js'
import type { CallDetailWriter } from '../observe/call-timeline.js'

/** Who the console's calls come from, in the audit log (`principal`). */
export const CONSOLE_PRINCIPAL = 'console'

/** What the console's form gets back for a call: its id (to find it on the timeline) and its result as the call details show it. */
export interface ConsoleCallAnswer {
  id: string
  tool: string
  ok: boolean
  /** The error code of a failed call. */
  code?: string
  /** The result's text as the call details show it: secrets blanked, bounded. */
  text: string
}

/** A request the form sent that is not a call: 400 with this message. */
export interface ConsoleCallProblem {
  problem: string
}

/**
 * Calls a person makes from the console's form. Each goes through `host.run` like any call, with
 * `principal: 'console'`: parsed and validated against the tool's schema, authorised (rules, mode,
 * the tool's own check; a call that asks waits in the console's approvals), hooked, scheduled and
 * rate-limited. Nothing here decides whether it may run. Errors are worded for a person (what makes
 * a hidden tool available), whoever the host's audience is (a model, under `serve`). Ids are
 * `console-1`, `console-2`, ….
 *
 * @example
 * const answer = await hub.calls.run({ tool: 'read_file', arguments: { path: 'README.md' } }, signal)
 */
export class ConsoleCalls {
  readonly #host: Host
  readonly #detail: CallDetailWriter
  #seq = 0

  constructor(host: Host, detail: CallDetailWriter) {
    this.#host = host
    this.#detail = detail
  }

  /** Runs the call `body` names (`{ tool, arguments }`); a body that names no call is a problem, not a call. */
  async run(body: unknown, signal: AbortSignal): Promise<ConsoleCallAnswer | ConsoleCallProblem> {
    const { tool, arguments: args } = (body ?? {}) as { tool?: unknown; arguments?: unknown }
    if (typeof tool !== 'string' || tool === '' || tool.length > 256) return { problem: 'tool must be a tool name' }
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return { problem: 'arguments must be a JSON object' }
    const id = `console-${++this.#seq}`
    const [result] = await this.#host.run([{ id, name: tool, arguments: (args ?? {}) as Record<string, unknown> }], { principal: CONSOLE_PRINCIPAL, audience: 'person', signal })
    return { id, tool, ok: result!.ok, ...(result!.error ? { code: result!.error.code } : {}), text: this.#detail.result(tool, result!) }
  }
}
