import type { ToolResult } from '../contract/types.js'
import type { AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { ResultShaper } from '../dispatch/results/result-shaper.js'
import type { JobOutcome, OutcomeSink } from '../dispatch/schedule/scheduler.js'

/**
 * One batch's results in call order, filled in as its calls are answered: the scheduler's sink for
 * `host.run` (`Scheduler.submitTo`). The batch gets one promise instead of one per call, and each
 * call's result is shaped the moment its outcome is known. A result that cannot be shaped is still
 * a result, in its call's slot: the batch is always answered, once, with one result per call.
 *
 * @example
 * const into = new BatchResults(calls.length, shaper, false)
 * into.put(0, refusedResult)      // a call refused before scheduling
 * into.items.push(item)           // a scheduled call, at its index in the submission
 * scheduler.submitTo(toSchedule, into)
 * await into.promise              // every result, in call order
 */
export class BatchResults implements OutcomeSink {
  readonly promise: Promise<ToolResult[]>
  /** The item of each scheduled call, at the call's index in the submission. */
  readonly items: AuthoriseItem[] = []
  readonly #results: ToolResult[]
  readonly #shaper: ResultShaper
  readonly #trace: boolean
  #left: number
  #resolve!: (results: ToolResult[]) => void

  constructor(size: number, shaper: ResultShaper, trace: boolean) {
    this.#results = new Array<ToolResult>(size)
    this.#left = size
    this.#shaper = shaper
    this.#trace = trace
    this.promise = new Promise<ToolResult[]>((resolve) => {
      this.#resolve = resolve
    })
    if (size === 0) this.#resolve(this.#results)
  }

  /** The result of the call at `index` of the batch. */
  put(index: number, result: ToolResult): void {
    this.#results[index] = result
    if (--this.#left === 0) this.#resolve(this.#results)
  }

  answer(slot: number, outcome: JobOutcome): void {
    const item = this.items[slot]!
    let shaped: ToolResult | Promise<ToolResult>
    try {
      shaped = this.#shaper.shapeDone(item, outcome, this.#trace)
    } catch (thrown) {
      shaped = this.#shaper.unreadable(item, outcome, this.#trace, thrown)
    }
    if (shaped instanceof Promise) {
      shaped.then(
        (result) => this.put(item.index, result),
        (thrown: unknown) => this.put(item.index, this.#shaper.unreadable(item, outcome, this.#trace, thrown)),
      )
    } else {
      this.put(item.index, shaped)
    }
  }
}
