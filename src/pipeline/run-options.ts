import type { DispatchMode } from '../config/types.js'
import type { Audience } from '../contract/messages.js'
import type { ModelStreamEvent } from '../adapters/stream-types.js'

/** How one batch runs (`host.run`, `host.stream`, `host.call`). */
export interface RunOptions {
  signal?: AbortSignal
  mode?: DispatchMode
  /** Add startedAt/endedAt/waitedFor to each result. */
  trace?: boolean
  /**
   * Who sent these calls, when it is not the embedding itself: written as `principal` on each of
   * their audit lines (the permission system's and the hooks'), e.g. `console` for the console's
   * form. It grants nothing: the calls are validated, authorised, hooked and rate-limited like any.
   */
  principal?: string
  /**
   * Who reads these calls' errors, when not the host's `audience`: the advice in a message (what
   * makes a hidden tool available, how to allow a call) suits them. The console's form says `person`.
   */
  audience?: Audience
  /**
   * For a model's streaming reply (`host.run(stream)`, `host.stream(stream)`): each text and reasoning
   * delta as it arrives (for a UI), and last the `end` event with the whole assistant turn as the API
   * would have returned it (`end.turn`: give it to the next request as with a whole reply).
   */
  onStreamEvent?: (event: Exclude<ModelStreamEvent, { type: 'call' }>) => void
}
