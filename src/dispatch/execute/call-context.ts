import type { ToolhostConfig } from '../../config/types.js'
import type { Asker, AskHandler, AskRequest, Logger, LogLevel, SessionState, ToolContext, ToolServices } from '../../contract/types.js'

/** What every call of one host shares in its context (the host satisfies it as it is). */
export interface SharedContext {
  readonly root: string
  readonly config: ToolhostConfig
  readonly log: Logger
  readonly session: SessionState
  readonly ask: AskHandler | undefined
  readonly services: ToolServices
  readonly env: NodeJS.ProcessEnv
}

/** Takes a handler's `ctx.log` line in place of the host's log (the host also turns it into a `log` event). */
export type LogReporter = (callId: string, level: LogLevel, message: string, fields?: Record<string, unknown>) => void

/**
 * The context a handler receives. A class rather than an object literal on purpose: a literal with
 * a getter takes V8's slow path (microseconds per call), and the signal must stay lazy because
 * making an AbortSignal costs more than the rest of a no-op call; it is made on first read. The
 * call's logger and asker are lazy for the same reason.
 *
 * @example
 * const ctx = new CallContext(shared, 'call_1', () => controller.signal, (message) => log.info(message), reportLog)
 * ctx.signal.aborted // false
 */
export class CallContext implements ToolContext {
  readonly callId: string
  readonly root: string
  readonly config: ToolhostConfig
  readonly session: SessionState
  readonly services: ToolServices
  readonly env: NodeJS.ProcessEnv
  readonly progress: ToolContext['progress']
  readonly #shared: SharedContext
  readonly #report: LogReporter | undefined
  readonly #signal: () => AbortSignal
  #log: Logger | undefined
  #ask: Asker | undefined

  constructor(shared: SharedContext, callId: string, signal: () => AbortSignal, progress: ToolContext['progress'], report?: LogReporter) {
    this.callId = callId
    this.root = shared.root
    this.config = shared.config
    this.session = shared.session
    this.services = shared.services
    this.env = shared.env
    this.progress = progress
    this.#shared = shared
    this.#report = report
    this.#signal = signal
  }

  get signal(): AbortSignal {
    return this.#signal()
  }

  get log(): Logger {
    return (this.#log ??= callLogger(this.#shared.log, this.#report, this.callId))
  }

  get ask(): Asker | undefined {
    if (this.#shared.ask === undefined) return undefined
    return (this.#ask ??= bindAsker(this.#shared.ask, this.callId, this.#signal))
  }
}

/** The logger a call's handler sees: the host's log, or its lines through `report` when there is one. */
function callLogger(log: Logger, report: LogReporter | undefined, callId: string): Logger {
  if (report === undefined) return log
  const line = (level: LogLevel) => (message: string, fields?: Record<string, unknown>): void => report(callId, level, message, fields)
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') }
}

/**
 * `ctx.ask` over a host's ask handler: a string is a text question; the call's id and signal are
 * filled in; a text question gets text back and a structured one (`schema`) an object, or it throws
 * saying what the handler gave instead.
 *
 * @example
 * const ask = bindAsker(host.ask, 'call_1', () => signal)
 * const { branch } = await ask({ question: 'Which branch?', schema: { type: 'object', properties: { branch: { type: 'string' } } } })
 */
export function bindAsker(handler: AskHandler, callId: string, signal: () => AbortSignal): Asker {
  const ask = async (input: string | AskRequest, given?: AbortSignal): Promise<unknown> => {
    const request: AskRequest = typeof input === 'string' ? { question: input, callId } : { ...input, callId: input.callId ?? callId }
    const answer = await handler(request, given ?? signal())
    if (request.schema === undefined) {
      if (typeof answer === 'string') return answer
      // A handler that answered a text question with a form: its `answer` field, or the whole form.
      return typeof answer?.answer === 'string' ? answer.answer : JSON.stringify(answer)
    }
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw new Error(`the host's ask handler answered a structured question with ${typeof answer === 'string' ? 'text' : JSON.stringify(answer)}; it must return an object with the fields of request.schema`)
    }
    return answer
  }
  return ask as Asker
}
