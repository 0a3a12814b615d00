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

/**
 * Where a call's `ctx.progress` and `ctx.log` lines go (the host's admission, which turns them into
 * `progress` and `log` events). One per host: a call's context passes its id, so no closure is made
 * per call.
 */
export interface CallReporter {
  progress(callId: string, message: string, progress?: number, total?: number): void
  log(callId: string, level: LogLevel, message: string, fields?: Record<string, unknown>): void
}

/**
 * The context a handler receives. A class rather than an object literal on purpose: a literal with
 * a getter takes V8's slow path (microseconds per call), and the signal must stay lazy because
 * making an AbortSignal costs more than the rest of a no-op call; it is made on first read (an
 * AbortController makes its signal on first use). The call's progress, logger and asker are lazy
 * for the same reason.
 *
 * @example
 * const ctx = new CallContext(shared, 'call_1', new AbortController(), reporter)
 * ctx.signal.aborted // false
 */
export class CallContext implements ToolContext {
  readonly callId: string
  readonly root: string
  readonly config: ToolhostConfig
  readonly session: SessionState
  readonly services: ToolServices
  readonly env: NodeJS.ProcessEnv
  readonly #shared: SharedContext
  readonly #reporter: CallReporter | undefined
  readonly #controller: AbortController
  #progress: ToolContext['progress'] | undefined
  #log: Logger | undefined
  #ask: Asker | undefined

  /** `controller`: aborts the call (timeout, interrupt); `reporter`: where progress and log lines go besides the host's log. */
  constructor(shared: SharedContext, callId: string, controller: AbortController, reporter?: CallReporter) {
    this.callId = callId
    this.root = shared.root
    this.config = shared.config
    this.session = shared.session
    this.services = shared.services
    this.env = shared.env
    this.#shared = shared
    this.#reporter = reporter
    this.#controller = controller
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  get progress(): ToolContext['progress'] {
    return (this.#progress ??= progressOf(this.#reporter, this.callId))
  }

  get log(): Logger {
    return (this.#log ??= callLogger(this.#shared.log, this.#reporter, this.callId))
  }

  get ask(): Asker | undefined {
    if (this.#shared.ask === undefined) return undefined
    return (this.#ask ??= bindAsker(this.#shared.ask, this.callId, () => this.#controller.signal))
  }
}

// `ctx.progress` of a call: its reports go to the reporter (nowhere without one).
function progressOf(reporter: CallReporter | undefined, callId: string): ToolContext['progress'] {
  return (message, progress, total) => reporter?.progress(callId, message, progress, total)
}

/** The logger a call's handler sees: the host's log, or its lines through `reporter` when there is one. */
function callLogger(log: Logger, reporter: CallReporter | undefined, callId: string): Logger {
  if (reporter === undefined) return log
  const line = (level: LogLevel) => (message: string, fields?: Record<string, unknown>): void => reporter.log(callId, level, message, fields)
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
