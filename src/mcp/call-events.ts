import type { HostEvent } from '../observe/host-events.js'
import type { Host } from '../host/host.js'
import type { LogLevel } from '../contract/types.js'

/** MCP log levels, least severe first (`logging/setLevel`, `notifications/message`). */
export const MCP_LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type McpLogLevel = (typeof MCP_LOG_LEVELS)[number]

const FROM_LOG_LEVEL: Record<LogLevel, McpLogLevel> = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' }

/** The MCP level of a `ctx.report.log` level (`warn` is MCP's `warning`). */
export function mcpLevelOf(level: LogLevel): McpLogLevel {
  return FROM_LOG_LEVEL[level]
}

/** True when a message at `level` passes a session's `minimum` (set by `logging/setLevel`). */
export function isLevelShown(level: McpLogLevel, minimum: McpLogLevel): boolean {
  return MCP_LOG_LEVELS.indexOf(level) >= MCP_LOG_LEVELS.indexOf(minimum)
}

/**
 * Turns a handler's `ctx.report.progress` reports into MCP progress values, which must increase: a first
 * report of 0 is sent as 0; a report with no number, or one that does not pass the last, counts up
 * by one from the last value sent.
 *
 * @example
 * const next = progressCounter()
 * next(0) // 0
 * next(undefined) // 1
 * next(50) // 50
 */
export function progressCounter(): (reported: number | undefined) => number {
  let last: number | undefined
  return (reported) => {
    if (reported !== undefined && (last === undefined || reported > last)) last = reported
    else last = last === undefined ? 1 : last + 1
    return last
  }
}

type CallListener = (event: Extract<HostEvent, { type: 'progress' | 'log' }>) => void

/**
 * Routes a host's `progress` and `log` events to the MCP request of the call they belong to. One
 * host listener serves every call in flight (registered only while some call listens), instead of
 * one listener per call that would see every other call's events.
 */
class CallEventRouter {
  readonly #host: Host
  readonly #calls = new Map<string, CallListener>()
  #stop: (() => void) | undefined

  constructor(host: Host) {
    this.#host = host
  }

  listen(callId: string, listener: CallListener): () => void {
    this.#calls.set(callId, listener)
    this.#stop ??= this.#host.onEvent((event) => {
      if (event.type === 'progress' || event.type === 'log') this.#calls.get(event.id)?.(event)
    })
    return () => {
      this.#calls.delete(callId)
      if (this.#calls.size === 0) {
        this.#stop?.()
        this.#stop = undefined
      }
    }
  }
}

const routers = new WeakMap<Host, CallEventRouter>()

/**
 * Listens to the `progress` and `log` events of one call of `host`; returns the function that stops.
 *
 * @example
 * const stop = listenToCall(host, 'mcp-1', (event) => send(event))
 */
export function listenToCall(host: Host, callId: string, listener: CallListener): () => void {
  let router = routers.get(host)
  if (!router) routers.set(host, (router = new CallEventRouter(host)))
  return router.listen(callId, listener)
}
