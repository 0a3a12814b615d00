import type { AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { JobOutcome, OutcomeSink } from '../dispatch/schedule/scheduler-types.js'
import type { ToolResult } from '../contract/types.js'
import type { CallHookSet } from '../hooks/call-hooks.js'
import type { RunOptions } from './run-options.js'
import type { ResultSink } from './result-sinks.js'

/** What the lifecycle does with a scheduled call's outcome (its shape and answer stages). */
export type OnOutcome = (batch: Batch, slot: number, outcome: JobOutcome) => void

/**
 * One batch on its way through the lifecycle: its number (events name it), its options, the hooks
 * in force when it arrived, and, for each call it scheduled, the call's item and what it runs with.
 * It is the scheduler's sink for the batch (`Scheduler.submitTo`): each outcome is handed back to
 * the lifecycle's shape stage with its slot, and each result goes into the caller's sink at the
 * call's index (`base` shifts it for the calls of a model's stream, admitted one by one).
 *
 * @example
 * const batch = new Batch(1, options, undefined, sink, 0, (batch, slot, outcome) => shape(batch, slot, outcome))
 * batch.schedule(item, args)             // slot 0
 * scheduler.submitTo([call], batch)
 */
export class Batch implements OutcomeSink {
  readonly number: number
  readonly options: RunOptions
  readonly trace: boolean
  readonly hooks: CallHookSet | undefined
  /** The item of each scheduled call, at its slot. */
  readonly items: AuthoriseItem[] = []
  // What each scheduled call runs with (after-hooks read it): its arguments, or, for a call held at a
  // gate whose permission check may narrow them, how to read them then. Kept only when the batch has
  // hooks. Model arguments are parsed JSON, never a function.
  readonly #ran: Array<Record<string, unknown> | (() => Record<string, unknown>)> | undefined
  readonly #sink: ResultSink
  readonly #base: number
  readonly #onOutcome: OnOutcome

  constructor(number: number, options: RunOptions, hooks: CallHookSet | undefined, sink: ResultSink, base: number, onOutcome: OnOutcome) {
    this.number = number
    this.options = options
    this.trace = options.trace ?? false
    this.hooks = hooks
    this.#ran = hooks === undefined ? undefined : []
    this.#sink = sink
    this.#base = base
    this.#onOutcome = onOutcome
  }

  /** Takes the next slot for a scheduled call. */
  schedule(item: AuthoriseItem, ran: Record<string, unknown> | (() => Record<string, unknown>)): void {
    this.items.push(item)
    this.#ran?.push(ran)
  }

  /** The arguments the call of `slot` ran with. */
  ranWith(slot: number): Record<string, unknown> {
    const ran = this.#ran?.[slot]
    if (ran === undefined) return this.items[slot]!.args
    return typeof ran === 'function' ? ran() : ran
  }

  answer(slot: number, outcome: JobOutcome): void {
    this.#onOutcome(this, slot, outcome)
  }

  /** The result of the call at `index` of the batch, into the caller's sink. */
  put(index: number, result: ToolResult): void {
    this.#sink.put(this.#base + index, result)
  }
}

