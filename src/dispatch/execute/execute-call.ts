import { describeThrown, isErrorCode, isToolhostError } from '../../contract/errors.js'
import type { AnyTool, ToolContext, ToolError } from '../../contract/types.js'
import { CALL_ERRORS } from '../../contract/call-errors.js'
import { thrownAt } from './thrown-at.js'

const MAX_TIMER_MS = 2 ** 31 - 1

export type Outcome = { ok: true; value: unknown } | { ok: false; error: ToolError }

/** A handler in flight. `answered` may come before `settled` (timeout, interrupt). */
export interface Execution {
  /** The call's outcome: the handler's value or error, a timeout, or an interrupt; first wins. */
  answered: Promise<Outcome>
  /** The handler really finished, or was abandoned after ignoring its abort (never rejects). */
  settled: Promise<{ abandoned: boolean }>
  /** The run was interrupted: abort the handler and answer E_INTERRUPTED unless it finishes within the grace. */
  interrupt(): void
  /** Set when the handler finished before `executeCall` returned (no promise): the outcome, already known. */
  done?: Outcome
}

export interface ExecuteOptions {
  timeoutMs: number
  /** How long a handler may take to finish after its abort, before it is answered/abandoned. */
  graceMs: number
  /** Called once if the handler ignores its abort for `graceMs` and is abandoned (with the call's id). */
  onAbandon?: (why: string, callId: string) => void
  /** Where each tool was registered from (the registry), read only when a handler throws: its message names the plugin file and line. */
  sources?: ToolSources
}

/** The tools' plugin files, by tool name (`ToolRegistry` is one). */
export interface ToolSources {
  entry(name: string): { readonly source: string | undefined } | undefined
}

/**
 * Runs one handler with a timeout counted from now (the call's start) and an abort signal.
 * On timeout the call is answered E_TIMEOUT at once; the handler keeps its reservations until it
 * settles (or is abandoned after ignoring the abort for `graceMs`).
 *
 * `controller` is the one whose signal `context` hands the handler (an AbortController makes its
 * signal on first use: most handlers never look at it, and making one is costly).
 *
 * @example
 * const controller = new AbortController()
 * const execution = executeCall(tool, args, new CallContext(shared, 'c1', controller, reporter), controller, { timeoutMs: 120_000, graceMs: 2000 })
 * const outcome = await execution.answered // { ok: true, value } or { ok: false, error: { code: 'E_TIMEOUT', … } }
 * await execution.settled                 // release the call's reservations after this
 */
export function executeCall(tool: AnyTool, args: Record<string, unknown>, context: ToolContext, controller: AbortController, options: ExecuteOptions): Execution {
  let value: unknown
  try {
    value = tool.handler(args, context)
  } catch (error) {
    return doneExecution(failedOutcome(tool.name, error, context, options))
  }
  // A handler that returned without a promise has finished: nothing can time out or be interrupted.
  let thenable: boolean
  try {
    thenable = isThenable(value)
  } catch (error) {
    return doneExecution(failedOutcome(tool.name, error, context, options)) // a returned Proxy whose `then` throws
  }
  if (!thenable) return doneExecution({ ok: true, value })
  return new RunningExecution(tool.name, value as PromiseLike<unknown>, context, controller, options)
}

/**
 * A handler that returned a promise: its answer (first of its value, its timeout, an interrupt)
 * and its settling. A class, not closures over locals: one object holds the timers and the two
 * promises' resolvers, and no per-call closure needs a name (tsx wraps each named one in a
 * defineProperty call, seen in BENCHMARKS.md's "async no-op handlers" rows).
 */
class RunningExecution implements Execution {
  readonly answered: Promise<Outcome>
  readonly settled: Promise<{ abandoned: boolean }>
  #answer!: (outcome: Outcome) => void
  #settle!: (how: { abandoned: boolean }) => void
  #isAnswered = false
  #isSettled = false
  #interrupted = false
  readonly #timer: NodeJS.Timeout
  #abandonTimer: NodeJS.Timeout | undefined
  #graceTimer: NodeJS.Timeout | undefined
  readonly #name: string
  readonly #context: ToolContext
  readonly #controller: AbortController
  readonly #options: ExecuteOptions

  constructor(name: string, value: PromiseLike<unknown>, context: ToolContext, controller: AbortController, options: ExecuteOptions) {
    this.#name = name
    this.#context = context
    this.#controller = controller
    this.#options = options
    this.answered = new Promise<Outcome>((resolve) => {
      this.#answer = resolve
    })
    this.settled = new Promise<{ abandoned: boolean }>((resolve) => {
      this.#settle = resolve
    })
    // setTimeout fires at once for delays past 2^31-1 ms (about 24.8 days); cap it there.
    this.#timer = setTimeout(() => this.#timedOut(), Math.min(options.timeoutMs, MAX_TIMER_MS))
    Promise.resolve(value).then(
      (result: unknown) => this.#finished({ ok: true, value: result }),
      (error: unknown) => this.#finished(this.#interrupted ? interruptedOutcome(name) : failedOutcome(name, error, context, options)),
    )
  }

  /** The run was interrupted: abort the handler and answer E_INTERRUPTED unless it finishes within the grace. */
  interrupt(): void {
    if (this.#interrupted || this.#isAnswered) return
    this.#interrupted = true
    // The interrupt decides the answer now; a timeout firing later must not change it.
    clearTimeout(this.#timer)
    this.#controller.abort(new Error('interrupted by the user'))
    this.#graceTimer = setTimeout(() => this.#resolveAnswer(interruptedOutcome(this.#name)), this.#options.graceMs)
    this.#startAbandonClock(`${this.#name} ignored its interrupt for ${this.#options.graceMs} ms`)
  }

  // The handler's promise settled: its outcome answers the call unless something answered first,
  // and the call is released (answered first, so its result comes before its release).
  #finished(outcome: Outcome): void {
    this.#resolveAnswer(outcome)
    clearTimeout(this.#timer)
    clearTimeout(this.#abandonTimer)
    clearTimeout(this.#graceTimer)
    this.#resolveSettled({ abandoned: false })
  }

  #timedOut(): void {
    const error = CALL_ERRORS.timedOut(this.#name, this.#options.timeoutMs)
    this.#controller.abort(new Error(error.message))
    this.#resolveAnswer({ ok: false, error })
    this.#startAbandonClock(`${this.#name} ignored its abort ${this.#options.graceMs} ms after timing out`)
  }

  #startAbandonClock(why: string): void {
    if (this.#abandonTimer || this.#isSettled) return
    // Not unref'd: a CLI waiting for this call's release (a conflicting call behind it) must not see
    // its event loop empty and exit before the abandonment answers.
    this.#abandonTimer = setTimeout(() => {
      if (this.#isSettled) return
      this.#options.onAbandon?.(why, this.#context.call.id)
      this.#resolveSettled({ abandoned: true })
    }, this.#options.graceMs)
  }

  #resolveAnswer(outcome: Outcome): void {
    if (this.#isAnswered) return
    this.#isAnswered = true
    this.#answer(outcome)
  }

  #resolveSettled(how: { abandoned: boolean }): void {
    if (this.#isSettled) return
    this.#isSettled = true
    this.#settle(how)
  }
}

function interruptedOutcome(name: string): Outcome {
  return { ok: false, error: CALL_ERRORS.interruptedRunning(name) }
}

function failedOutcome(name: string, error: unknown, context: ToolContext, options: ExecuteOptions): Outcome {
  // A tool may throw a coded ToolhostError (E_PATH_OUTSIDE_ROOT, E_NOT_FOUND, …); keep its code.
  // Read in a guard: this runs in a promise reaction, where a throwing getter would leave the call unanswered.
  try {
    if (isToolhostError(error) && isErrorCode(error.code)) return { ok: false, error: { code: error.code, message: String(error.message) } }
  } catch {
    // not readable as a ToolhostError: described below like any thrown value
  }
  let at: string | undefined
  try {
    at = thrownAt(error, options.sources?.entry(name)?.source, context.workspace.root)
  } catch {
    at = undefined // a place that cannot be read costs the call nothing but the place
  }
  return { ok: false, error: { code: 'E_TOOL_FAILED', message: `${name} failed: ${describeThrown(error)}${at === undefined ? '' : ` (thrown at ${at})`}` } }
}

const SETTLED = Promise.resolve({ abandoned: false })

function doneExecution(outcome: Outcome): Execution {
  return new DoneExecution(outcome)
}

// A class, not an object literal: the answered promise is made only if someone asks for it.
class DoneExecution implements Execution {
  readonly done: Outcome
  readonly settled = SETTLED
  #answered: Promise<Outcome> | undefined

  constructor(outcome: Outcome) {
    this.done = outcome
  }

  get answered(): Promise<Outcome> {
    return (this.#answered ??= Promise.resolve(this.done))
  }

  interrupt(): void {}
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
}
