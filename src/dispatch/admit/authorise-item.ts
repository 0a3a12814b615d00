// What admission hands the authorisation stage for each call, and the decision it gets back. The
// authoriser itself (permissions/authoriser.ts) sits above dispatch and speaks these types.
import type { Audience } from '../../contract/messages.js'
import type { AnyTool, ToolCall, ToolError } from '../../contract/types.js'

/** One call handed to the authorisation stage. */
export interface AuthoriseItem {
  index: number
  call: ToolCall
  tool: AnyTool
  args: Record<string, unknown>
  /** A before-hook asked for a person's approval, and why (the permission system asks, as for an ask rule). */
  hookAsk?: string
  /** Who sent the call (`RunOptions.principal`), for the audit log; absent for the embedding's own calls. */
  principal?: string
  /** Who reads the call's error, when not the authoriser's own reader (`RunOptions.audience`). */
  audience?: Audience
}

/** Run (with possibly updated arguments, maybe after an approval `gate`), or refuse with an error. */
export type AuthoriseDecision =
  | { run: true; args: Record<string, unknown>; gate?: Promise<ToolError | undefined> }
  | { run: false; error: ToolError }
