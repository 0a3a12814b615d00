import type { HostContext } from '../../contract/host-context.js'
import type { Asker, AskHandler, AskRequest, CallInfo, CallReport, Logger, LogLevel, SessionState, SettingsContext, ToolContext, ToolServices, WorkspaceContext } from '../../contract/types.js'

/**
 * Where a call's `ctx.report.progress` and `ctx.report.log` lines go (the host's admission, which turns them into
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
 * AbortController makes its signal on first use). The groups that are the host's (`workspace`,
 * `settings`) are the host's own objects, shared by every call; the call's own groups (`call`,
 * `report`) and its asker are made on first read for the same reason. The flat names of earlier
 * releases (`ctx.callId`, `ctx.root`, …) still read, as getters over the groups.
 *
 * @example
 * const ctx = new CallContext(hostContext, 'call_1', 'echo', new AbortController(), reporter)
 * ctx.call.signal.aborted // false
 */
export class CallContext implements ToolContext {
  readonly workspace: WorkspaceContext
  readonly settings: SettingsContext
  readonly services: ToolServices
  readonly #id: string
  readonly #tool: string
  readonly #offers: HostContext['offers']
  readonly #reporter: CallReporter | undefined
  readonly #controller: AbortController
  #call: CallInfo | undefined
  #report: CallReport | undefined
  #ask: Asker | undefined

  /** `controller`: aborts the call (timeout, interrupt); `reporter`: where progress and log lines go besides the host's log. */
  constructor(host: HostContext, callId: string, tool: string, controller: AbortController, reporter?: CallReporter) {
    this.workspace = host.workspace
    this.settings = host.settings
    this.services = host.offers.services
    this.#offers = host.offers
    this.#id = callId
    this.#tool = tool
    this.#reporter = reporter
    this.#controller = controller
  }

  get call(): CallInfo {
    return (this.#call ??= new ThisCall(this.#id, this.#tool, this.#controller))
  }

  get report(): CallReport {
    return (this.#report ??= { progress: progressOf(this.#reporter, this.#id), log: callLogger(this.#offers.log, this.#reporter, this.#id) })
  }

  get ask(): Asker | undefined {
    const handler = this.#offers.ask
    if (handler === undefined) return undefined
    return (this.#ask ??= bindAsker(handler, this.#id, () => this.#controller.signal))
  }

  // The flat names of earlier releases, each over its group (deprecated as ToolContext's are).

  /** @deprecated Read `ctx.call.signal`. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** @deprecated Read `ctx.call.id`. */
  get callId(): string {
    return this.#id
  }

  /** @deprecated Read `ctx.workspace.root`. */
  get root(): string {
    return this.workspace.root
  }

  /** @deprecated Read `ctx.workspace.session`. */
  get session(): SessionState {
    return this.workspace.session
  }

  /** @deprecated Read `ctx.settings.config`. */
  get config(): SettingsContext['config'] {
    return this.settings.config
  }

  /** @deprecated Read `ctx.settings.env`. */
  get env(): NodeJS.ProcessEnv {
    return this.settings.env
  }

  /** @deprecated Call `ctx.report.progress`. */
  get progress(): CallReport['progress'] {
    return this.report.progress
  }

  /** @deprecated Read `ctx.report.log`. */
  get log(): Logger {
    return this.report.log
  }
}

// `ctx.call`: the call's id and tool, and its signal (made on first read, as the context's is).
class ThisCall implements CallInfo {
  readonly id: string
  readonly tool: string
  readonly #controller: AbortController

  constructor(id: string, tool: string, controller: AbortController) {
    this.id = id
    this.tool = tool
    this.#controller = controller
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }
}

// `ctx.report.progress` of a call: its reports go to the reporter (nowhere without one).
function progressOf(reporter: CallReporter | undefined, callId: string): CallReport['progress'] {
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
