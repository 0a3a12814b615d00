import { readModelStream } from '../adapters/model-stream.js'
import type { ModelStreamEvent, StreamedCall } from '../adapters/stream-types.js'
import type { DispatchMode } from '../config/types.js'
import type { ToolCall, ToolError } from '../contract/types.js'
import type { CallLifecycle } from './call-lifecycle.js'
import type { RunOptions } from './run-options.js'
import type { ResultSink } from './result-sinks.js'

/** A sink whose size grows as a model's stream brings calls (`AllResults`, `AsCompleted` without a size). */
export interface GrowingSink extends ResultSink {
  expect(count: number): void
  seal(): void
}

/**
 * Admits the calls of a model's streaming reply (`host.run(stream)`, `host.stream(stream)`) as each
 * block closes: each goes through the lifecycle on its own, at its index in the turn, the moment the
 * reader yields it, so it starts while the model is still writing. Arrival order is scheduling order:
 * a call whose before-hooks are still deciding holds back the calls after it until it has its
 * place. In `serial` and `batch` mode, whose waits are read off the whole batch, the calls are
 * gathered and admitted together when the stream ends. A call the stream cut off (it ended, threw or
 * was aborted inside the call's arguments) is answered E_ARGS_INVALID. Every other event (text and
 * reasoning deltas, the end with the whole turn) goes to `options.onStreamEvent`.
 */
export async function admitStreamedCalls(stream: AsyncIterable<unknown>, options: RunOptions, mode: DispatchMode, lifecycle: CallLifecycle, sink: GrowingSink): Promise<void> {
  let placing: Promise<void> | undefined
  const gathered: ToolCall[] = []
  // Each gathered call's index in the turn (a cut-off call between them took its own slot).
  const gatheredAt: number[] = []
  const admit = (call: ToolCall, index: number): void => {
    sink.expect(1)
    if (placing === undefined) placing = lifecycle.handle([call], options, sink, index)
    else placing = placing.then(() => lifecycle.handle([call], options, sink, index))
  }
  try {
    for await (const event of readModelStream(stream, options.signal ? { signal: options.signal } : {})) {
      if (event.type === 'call') {
        const call: ToolCall = { id: event.call.id, name: event.call.name, arguments: event.call.arguments }
        if (!event.call.finished) {
          sink.expect(1)
          lifecycle.refuse(call, cutOff(event.call), options, sink, event.call.index)
        } else if (mode === 'graph') admit(call, event.call.index)
        else {
          gathered.push(call)
          gatheredAt.push(event.call.index)
        }
      }
      tell(options, event)
    }
  } finally {
    if (gathered.length > 0) {
      sink.expect(gathered.length)
      void lifecycle.handle(gathered, options, { put: (index, result) => sink.put(gatheredAt[index]!, result) })
    }
    await placing
    sink.seal()
  }
}

function cutOff(call: StreamedCall): ToolError {
  const how = call.cutOff === 'aborted' ? 'the run was interrupted' : call.cutOff === 'error' ? 'the stream broke' : 'the stream ended'
  return { code: 'E_ARGS_INVALID', message: `${call.name} did not run: the reply was cut off inside its arguments (${how}); ask the model to send the call again` }
}

function tell(options: RunOptions, event: ModelStreamEvent): void {
  if (event.type === 'call' || options.onStreamEvent === undefined) return
  try {
    options.onStreamEvent(event)
  } catch {
    // A listener's fault is its own: the calls and their results go on.
  }
}
