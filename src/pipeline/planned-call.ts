import type { ExplainedCall } from '../dispatch/schedule/explain-plan.js'
import type { Footprint, FootprintOrigin } from '../dispatch/admit/footprint.js'
import type { ToolError } from '../contract/types.js'

/**
 * One call of a plan, as `explain` shows it. A call the permission system would deny is left out of
 * the wait graph (it would never run); a wait on a call that asks a person carries `ifAllowed`.
 */
export interface PlannedCall extends Partial<Omit<ExplainedCall, 'waitsFor'>> {
  id: string
  name: string
  /** Present when the call would fail before running. */
  error?: ToolError
  footprint?: Footprint
  /** Who decided the kind of footprint: the tool's declarations, config `dispatch.*`, or the default. */
  footprintFrom?: FootprintOrigin
  /** What the permission system would decide (allow, ask or deny), by whom and why. */
  permission?: { outcome: 'allow' | 'ask' | 'deny'; by: string; reason: string }
  /**
   * The hooks the call would go through, in order (`before_call hooks.before_call[0]`,
   * `after_call "redact"`). `explain` runs none: what they decide is in the audit log and the
   * `hook` events when the call runs, and the permission above is before any rewrite.
   */
  hooks?: string[]
  waitsFor: ExplainedCall['waitsFor']
}
