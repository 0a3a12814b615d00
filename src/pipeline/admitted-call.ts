import type { Footprint } from '../dispatch/admit/footprint.js'
import type { AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { ToolProfile } from '../dispatch/schedule/duration-estimates.js'
import type { Execution } from '../dispatch/execute/execute-call.js'
import type { SchedulableCall } from '../dispatch/schedule/scheduler.js'
import type { ToolError } from '../contract/types.js'

/** How the host starts a call's handler with the arguments it was allowed to run with. */
export type StartCall = (item: AuthoriseItem, args: Record<string, unknown>) => Execution

/**
 * A call decided at once, as the host hands it to the scheduler: its footprint, profile and gate, and
 * how to start it (the host's one start function with this call's item and arguments), in one
 * object per call instead of a call object and a closure.
 *
 * @example
 * const call = new AdmittedCall(item, args, footprint, profile, (item, args) => executeCall(…))
 * scheduler.submit([call])
 */
export class AdmittedCall implements SchedulableCall {
  readonly id: string
  readonly footprint: Footprint
  readonly profile: ToolProfile
  gate: Promise<ToolError | undefined> | undefined = undefined
  crossHost: boolean | undefined = undefined
  readonly #item: AuthoriseItem
  readonly #args: Record<string, unknown>
  readonly #start: StartCall

  constructor(item: AuthoriseItem, args: Record<string, unknown>, footprint: Footprint, profile: ToolProfile, start: StartCall) {
    this.id = item.call.id
    this.footprint = footprint
    this.profile = profile
    this.#item = item
    this.#args = args
    this.#start = start
  }

  start(): Execution {
    return this.#start(this.#item, this.#args)
  }
}
