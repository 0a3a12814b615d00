import type { Host } from '../host/host.js'
import type { ToolCall, ToolResult } from '../contract/types.js'

interface Waiting {
  call: ToolCall
  resolve: (result: ToolResult) => void
  reject: (error: unknown) => void
}

/**
 * Gathers the tool calls a framework starts together (its `execute` callbacks, called one by one)
 * into one `host.run` batch, so they are authorised together and scheduled by toolhost as the model's
 * batch would be: a read issued beside a write of the same file waits for it, permissions and limits
 * hold. Calls started in the same turn of the event loop form a batch (grouped by abort signal, as
 * one run has one signal); later calls form later batches, which the host schedules online in
 * arrival order.
 *
 * @example
 * const batcher = new CallBatcher(host)
 * const [a, b] = await Promise.all([batcher.call({ id: '1', name: 'read_file', arguments: { path: 'a' } }), batcher.call({ id: '2', name: 'write_file', arguments: { path: 'a', content: 'x' } })])
 */
export class CallBatcher {
  readonly #host: Host
  readonly #groups = new Map<AbortSignal | undefined, Waiting[]>()
  #flushing: NodeJS.Immediate | undefined

  constructor(host: Host) {
    this.#host = host
  }

  /** Runs `call` in the batch being gathered; resolves with its result (never rejects for a tool's fault). */
  call(call: ToolCall, signal?: AbortSignal): Promise<ToolResult> {
    return new Promise<ToolResult>((resolve, reject) => {
      let group = this.#groups.get(signal)
      if (!group) this.#groups.set(signal, (group = []))
      group.push({ call, resolve, reject })
      // setImmediate, not a microtask: a framework may await a little (input parsing, hooks) between
      // starting one tool call and the next of the same step.
      this.#flushing ??= setImmediate(() => this.#flush())
    })
  }

  #flush(): void {
    this.#flushing = undefined
    const groups = [...this.#groups]
    this.#groups.clear()
    for (const [signal, waiting] of groups) {
      this.#host.run(waiting.map((w) => w.call), signal ? { signal } : {}).then(
        (results) => waiting.forEach((w, i) => w.resolve(results[i]!)),
        (error: unknown) => waiting.forEach((w) => w.reject(error)),
      )
    }
  }
}
