import type { AuthoriseDecision, AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { Footprint } from '../dispatch/admit/footprint.js'
import { openHeld, type HeldCall } from '../dispatch/admit/held-calls.js'
import type { SchedulableCall } from '../dispatch/schedule/scheduler.js'
import type { Listeners } from '../contract/listeners.js'
import type { AnyTool, ToolError } from '../contract/types.js'
import type { HostEvent } from '../observe/host-events.js'

/** What the lifecycle's announcements need: the host's listeners and clock. */
export interface Announcer {
  readonly events: Listeners<HostEvent>
  readonly now: () => number
}

/**
 * For listeners, just before a call decided at once is submitted: 'admitted' (its tool, batch,
 * footprint kind, and whether it waits for a person), and an 'approval' event when its gate opens
 * or refuses.
 */
export function announce({ events, now }: Announcer, item: AuthoriseItem, call: SchedulableCall, batch: number, args: Record<string, unknown>): void {
  const id = item.call.id
  const gate = call.gate
  if (gate) {
    call.gate = gate.then((error) => {
      events.emit({ type: 'approval', id, at: now(), outcome: error ? 'denied' : 'approved', ...(error ? { code: error.code } : {}) })
      return error
    })
  }
  events.emit({ type: 'admitted', id, name: item.tool.name, batch, at: now(), footprint: call.footprint.kind, permission: gate ? 'ask' : 'allow', arguments: args })
}

/**
 * A held call's gate, told to listeners as it comes out: allowed, refused, or asking a person, whose
 * answer is then an 'approval' event. Only a person's answer is an approval.
 */
export function openAnnounced({ events, now }: Announcer, h: HeldCall, decision: AuthoriseDecision | ToolError, footprintOf: (tool: AnyTool, args: Record<string, unknown>) => Footprint): ReturnType<typeof openHeld> {
  const id = h.item.call.id
  const opened = openHeld(h, decision, footprintOf)
  if (!(opened instanceof Promise)) {
    events.emit({ type: 'checked', id, at: now(), outcome: opened ? 'refused' : 'allowed', ...(opened ? { code: opened.code } : {}) })
    return opened
  }
  events.emit({ type: 'checked', id, at: now(), outcome: 'asking' })
  return opened.then((error) => {
    events.emit({ type: 'approval', id, at: now(), outcome: error ? 'denied' : 'approved', ...(error ? { code: error.code } : {}) })
    return error
  })
}
