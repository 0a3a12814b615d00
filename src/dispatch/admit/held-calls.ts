// Calls scheduled before their availability and permission were decided (see Host's admission):
// what they hold, how the batch's decision is made, and the gate that lets each one run.
import { describeThrown } from '../../contract/errors.js'
import type { AuthoriseDecision, AuthoriseItem } from './authorise-item.js'
import type { ToolError } from '../../contract/types.js'
import { unavailableError, type AdmitContext, type HiddenTools } from './admit.js'
import { footprintCovers, type Footprint } from './footprint.js'

/** A call holding its place in the schedule: the footprint it holds, and the arguments it will run with. */
export interface HeldCall {
  item: AuthoriseItem
  footprint: Footprint
  args: Record<string, unknown>
}

/** The decision when an authoriser gave none for a call. */
export const NO_DECISION: { readonly run: false; readonly error: ToolError } = { run: false, error: { code: 'E_DENIED', message: 'no permission decision was made for this call' } }

/**
 * One decision for the held calls of a batch, once availability is known: a hidden tool's calls get
 * E_TOOL_UNAVAILABLE, the others are authorised together (approvals are asked together). Never rejects.
 *
 * @example
 * const decided = decideHeld(held, hiddenPromise, (items) => authoriser.authorise(items, context), { env, audience: 'model' })
 */
export async function decideHeld(held: readonly HeldCall[], known: Promise<HiddenTools>, authorise: (items: readonly AuthoriseItem[]) => AuthoriseDecision[] | Promise<AuthoriseDecision[]>, context: Pick<AdmitContext, 'env' | 'audience'>): Promise<(AuthoriseDecision | ToolError)[]> {
  try {
    const hidden = await known
    const out: (AuthoriseDecision | ToolError)[] = new Array(held.length)
    const available: number[] = []
    held.forEach((h, k) => {
      const reason = hidden.get(h.item.tool.name)
      if (reason === undefined) available.push(k)
      else out[k] = unavailableError(h.item.tool, reason, context)
    })
    if (available.length > 0) {
      const decisions = await authorise(available.map((k) => held[k]!.item))
      available.forEach((k, i) => (out[k] = decisions[i] ?? NO_DECISION))
    }
    return out
  } catch (error) {
    const refused: ToolError = { code: 'E_DENIED', message: `the call was not run: deciding its permission failed (${describeThrown(error)}); try again` }
    return held.map(() => refused)
  }
}

/**
 * A held call's gate: undefined to run (maybe after a person's approval), or the error that stops it.
 * New arguments from the permission system must stay within the place the call holds: they may
 * narrow what it touches, never widen it (later calls were scheduled around that place).
 *
 * @example
 * gate: decided.then((all) => openHeld(held[k], all[k], (tool, args) => host.footprintOf(tool, args)))
 */
export function openHeld(h: HeldCall, decided: AuthoriseDecision | ToolError, footprintOf: (tool: AuthoriseItem['tool'], args: Record<string, unknown>) => Footprint): ToolError | undefined | Promise<ToolError | undefined> {
  if (!('run' in decided)) return decided
  if (!decided.run) return decided.error
  if (decided.args !== h.args) {
    if (!footprintCovers(h.footprint, footprintOf(h.item.tool, decided.args))) {
      return { code: 'E_DENIED', message: `${h.item.tool.name} did not run: its permission check changed the arguments so that the call would touch more than it was scheduled for; a permission check may narrow a call, not widen it. This is a fault in the tool, not in your call` }
    }
    h.args = decided.args
  }
  return decided.gate
}

/**
 * A fault in the authoriser must not reject the batch: each of its calls is refused instead.
 *
 * @example
 * items.map(() => authoriserFailed(error))
 */
export function authoriserFailed(error: unknown): AuthoriseDecision {
  return { run: false, error: { code: 'E_DENIED', message: `the permission check failed (${describeThrown(error)}), so the call was not run; try again, or ask the user to check the permission settings` } }
}
