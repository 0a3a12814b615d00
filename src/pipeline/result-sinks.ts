import type { ToolResult } from '../contract/types.js'

/**
 * Where a batch's results go: the lifecycle's last stage puts each call's result into its slot,
 * exactly once. A caller picks the sink that suits it: every result as one promise (`AllResults`,
 * `host.run`), or each as it completes (`AsCompleted`, `host.stream`); no promise is made per call.
 */
export interface ResultSink {
  put(index: number, result: ToolResult): void
}

/**
 * Every result in call order, as one promise that resolves once the last slot is filled.
 *
 * @example
 * const all = new AllResults(calls.length)
 * lifecycle.handle(calls, {}, all)
 * const results = await all.promise
 */
export class AllResults implements ResultSink {
  readonly promise: Promise<ToolResult[]>
  readonly #results: ToolResult[]
  #left: number
  #sealed: boolean
  #resolve!: (results: ToolResult[]) => void

  /** `size`: the results to wait for; without it the sink grows by `expect` until `seal()` (a model's stream). */
  constructor(size?: number) {
    this.#results = new Array<ToolResult>(size ?? 0)
    this.#left = size ?? 0
    this.#sealed = size !== undefined
    this.promise = new Promise<ToolResult[]>((resolve) => {
      this.#resolve = resolve
    })
    this.#settle()
  }

  /** `count` more results will come. */
  expect(count: number): void {
    this.#left += count
  }

  /** No more results will be expected: the promise resolves once those expected are in. */
  seal(): void {
    this.#sealed = true
    this.#settle()
  }

  put(index: number, result: ToolResult): void {
    this.#results[index] = result
    this.#left--
    this.#settle()
  }

  #settle(): void {
    if (this.#sealed && this.#left === 0) this.#resolve(this.#results)
  }
}

/**
 * The results as each completes (completion order), read with `for await`. Its size may grow while
 * it is read (`expect`: calls of a model's stream arrive one by one) until `seal()` says no more will
 * come. One wake-up per wait: a `Promise.race` over every open result per yield would cost O(n²)
 * reactions on a large batch.
 *
 * @example
 * const done = new AsCompleted(calls.length)
 * lifecycle.handle(calls, {}, done)
 * for await (const result of done) console.log(result.id)
 */
export class AsCompleted implements ResultSink, AsyncIterable<ToolResult> {
  readonly #done: ToolResult[] = []
  #size: number
  #sealed: boolean
  #wake: (() => void) | undefined

  /** `size`: the results to wait for; without it the sink grows by `expect` until `seal()`. */
  constructor(size?: number) {
    this.#size = size ?? 0
    this.#sealed = size !== undefined
  }

  /** `count` more results will come. */
  expect(count: number): void {
    this.#size += count
  }

  /** No more results will be expected: the reader stops after the last one. */
  seal(): void {
    this.#sealed = true
    this.#poke()
  }

  put(_index: number, result: ToolResult): void {
    this.#done.push(result)
    this.#poke()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ToolResult, void, undefined> {
    for (let next = 0; ; next++) {
      while (this.#done.length <= next) {
        if (this.#sealed && next >= this.#size) return
        await new Promise<void>((resolve) => (this.#wake = resolve))
      }
      yield this.#done[next]!
    }
  }

  #poke(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }
}
