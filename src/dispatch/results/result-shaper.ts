import { describeThrown } from '../../contract/errors.js'
import { underRoot } from '../../workspace/paths.js'
import type { AuthoriseItem } from '../admit/authorise-item.js'
import { stripRootPath } from '../../contract/messages.js'
import { redactEnvValues } from '../../registry/redact-env.js'
import type { ToolEntries } from '../../registry/registry.js'
import type { HostContext } from '../../contract/host-context.js'
import type { ToolCall, ToolError, ToolResult } from '../../contract/types.js'
import type { ResultsFolder } from '../../workspace/save-result.js'
import { isHeavy, ResultSaver } from './limit-content.js'
import type { JobOutcome, Wait } from '../schedule/scheduler-types.js'
import { shapeOutcome, spillText } from './shape-outcome.js'
import { capText } from './shape-result.js'
import { shownName } from '../admit/suggest.js'


/** Over 2 M characters of huge results (64 k and longer) not yet shaped, no handler starts. */
const HUGE_RESULTS_BUDGET = 2 * 2 ** 20

/**
 * A host's calls' outcomes as their results: a handler's value shaped and held to the text and
 * binary limits (over-long text saved under `limits.results_dir`), a failure as an error result.
 * Messages and notes never show the server's absolute root, and a handler's error never shows the
 * values of its tool's `requiresEnv` variables.
 *
 * @example
 * const results = new ResultShaper(context, registry, (high) => pool.throttle(high))
 * const result = await results.whenDone(outcome, item, false)
 */
export class ResultShaper {
  readonly #context: HostContext
  readonly #entries: ToolEntries
  readonly #saver: ResultSaver

  /**
   * `context`: the host's root, config (read per call: a reloaded config.yaml's limits apply at once)
   * and env; `entries`: the registry; `onPressure`: huge results wait to be shaped past the memory
   * budget (true), or no longer (false).
   */
  constructor(context: HostContext, entries: ToolEntries, onPressure: (high: boolean) => void) {
    this.#context = context
    this.#entries = entries
    this.#saver = new ResultSaver(HUGE_RESULTS_BUDGET, onPressure)
  }

  /** Counts a handler's value against the memory budget as it is answered (before its worker is freed). */
  claim(value: unknown): void {
    this.#saver.claim(value)
  }

  /**
   * The call's result once its job is done. A method of its own, so that its closure does not keep
   * the admission's context (every outcome of the batch) alive.
   */
  whenDone(outcome: Promise<JobOutcome>, item: AuthoriseItem, trace: boolean): Promise<ToolResult> {
    return outcome.then((done) => this.shapeDone(item, done, trace))
  }

  /**
   * The call's result from its job's outcome: at once, or a promise when it must wait (a huge value
   * waits for its turn in the memory budget; over-long text is saved to a file first).
   */
  shapeDone(item: AuthoriseItem, done: JobOutcome, trace: boolean): ToolResult | Promise<ToolResult> {
    const value = done.ran && done.outcome.ok ? done.outcome.value : undefined
    return isHeavy(value) ? this.#saver.releaseAfter(value, () => this.shape(item, done, trace)) : this.shape(item, done, trace)
  }

  /**
   * One job's outcome as its call's result. Not async: a result within its limit is shaped at once
   * (no extra promise per call); only a result that must be saved to disk returns a promise.
   */
  shape(item: AuthoriseItem, outcome: JobOutcome, trace: boolean): ToolResult | Promise<ToolResult> {
    if (!outcome.ran) return this.error(item.call, outcome.error, trace, outcome.waits)
    // Whatever goes wrong while shaping a handler's value is that call's fault and its result:
    // one call's odd value must never reject the whole batch or leave its slot unanswered.
    try {
      const result = this.#shapeRan(item, outcome, trace)
      return result instanceof Promise ? result.catch((thrown: unknown) => this.unreadable(item, outcome, trace, thrown)) : result
    } catch (thrown) {
      return this.unreadable(item, outcome, trace, thrown)
    }
  }

  /** The error result of a call whose value could not be shaped (`thrown`: what went wrong). */
  unreadable(item: AuthoriseItem, outcome: JobOutcome, trace: boolean, thrown: unknown): ToolResult {
    return this.error(item.call, { code: 'E_TOOL_FAILED', message: `${item.tool.name}'s result could not be read: ${describeThrown(thrown)}; a tool must return a string, content blocks or a JSON-serialisable value` }, trace, outcome.waits)
  }

  #shapeRan(item: AuthoriseItem, outcome: Extract<JobOutcome, { ran: true }>, trace: boolean): ToolResult | Promise<ToolResult> {
    const { call, tool } = item
    const timing = trace ? { startedAt: outcome.startedAt, endedAt: outcome.endedAt, waitedFor: outcome.waits.map((w) => w.id) } : undefined
    const config = this.#context.settings.config
    const limit = tool.maxResultChars === undefined ? config.limits.max_result_chars : tool.maxResultChars
    if (!outcome.outcome.ok) {
      // A handler's error message (a thrown value) is untrusted text too: keep it within the limit,
      // without the server's absolute root, and never carrying the value of an env var the tool
      // requires (a key, a webhook URL).
      const given = tool.requiresEnv.length > 0 ? redactEnvValues(outcome.outcome.error.message, tool.requiresEnv, this.#context.settings.env) : outcome.outcome.error.message
      const error = { ...outcome.outcome.error, message: capText(stripRootPath(given, this.#context.workspace.root), limit) }
      return withTiming({ id: call.id, name: call.name, ok: false, content: error.message, error }, timing)
    }
    const value = outcome.outcome.value
    if (typeof value === 'string' && tool.outputSchema === undefined) {
      // The common result: a literal of its own, no timing spread into it unless traced.
      if (limit === false || value.length <= limit) return timing === undefined ? { id: call.id, name: call.name, ok: true, content: value } : { id: call.id, name: call.name, ok: true, content: value, ...timing }
      return spillText(call, value, limit, { resultsFolder: this.#resultsFolder, shownPath: this.#shownPath, saver: this.#saver }, timing ?? {})
    }
    // Blocks, JSON or structured content (rarer): shaped, and checked against the outputSchema.
    const entry = tool.outputSchema === undefined ? undefined : this.#entries.entry(tool.name)
    const validateOutput = entry?.tool === tool ? entry.validateOutput : undefined
    return shapeOutcome(call, tool.name, value, { limit, maxBytes: config.limits.max_result_bytes, resultsFolder: this.#resultsFolder, shownPath: this.#shownPath, saver: this.#saver, validateOutput }, timing ?? {})
  }

  /** The result of a call that did not run (refused, or its job ended before it started). */
  error(call: ToolCall, given: ToolError, trace: boolean, waits: Wait[] = []): ToolResult {
    const name = shownName(typeof call.name === 'string' ? call.name : String(call.name))
    const error = { ...given, message: stripRootPath(given.message, this.#context.workspace.root) }
    return { id: call.id, name, ok: false, content: error.message, error, ...(trace ? { startedAt: null, endedAt: null, waitedFor: waits.map((w) => w.id) } : {}) }
  }

  readonly #resultsFolder = (): ResultsFolder => ({ root: this.#context.workspace.root, dir: underRoot(this.#context.workspace.root, this.#context.settings.config.limits.results_dir), caseInsensitive: this.#context.workspace.caseInsensitive })
  // The note names the saved file relative to the workspace root: clients never see server paths.
  readonly #shownPath = (file: string): string => stripRootPath(file, this.#context.workspace.root)
}

function withTiming(result: ToolResult, timing: Pick<ToolResult, 'startedAt' | 'endedAt' | 'waitedFor'> | undefined): ToolResult {
  return timing === undefined ? result : { ...result, ...timing }
}
