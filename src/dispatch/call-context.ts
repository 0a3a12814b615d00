import type { ToolhostConfig } from '../config/types.js'
import type { AskHandler, HostServices, Logger, SessionState, ToolContext } from '../types.js'

/** What every call of one host shares in its context. */
export interface SharedContext {
  root: string
  config: ToolhostConfig
  log: Logger
  session: SessionState
  ask: AskHandler | undefined
  services: HostServices
  env: NodeJS.ProcessEnv
}

/**
 * The context a handler receives. A class rather than an object literal on purpose: a literal with
 * a getter takes V8's slow path (microseconds per call), and the signal must stay lazy because
 * making an AbortSignal costs more than the rest of a no-op call; it is made on first read.
 *
 * @example
 * const ctx = new CallContext(shared, 'call_1', () => controller.signal, (message) => log.info(message))
 * ctx.signal.aborted // false
 */
export class CallContext implements ToolContext {
  readonly callId: string
  readonly root: string
  readonly config: ToolhostConfig
  readonly log: Logger
  readonly session: SessionState
  readonly ask: AskHandler | undefined
  readonly services: HostServices
  readonly env: NodeJS.ProcessEnv
  readonly progress: ToolContext['progress']
  readonly #signal: () => AbortSignal

  constructor(shared: SharedContext, callId: string, signal: () => AbortSignal, progress: ToolContext['progress']) {
    this.callId = callId
    this.root = shared.root
    this.config = shared.config
    this.log = shared.log
    this.session = shared.session
    this.ask = shared.ask
    this.services = shared.services
    this.env = shared.env
    this.progress = progress
    this.#signal = signal
  }

  get signal(): AbortSignal {
    return this.#signal()
  }
}
