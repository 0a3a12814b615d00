// The authorisation stage as the host calls it, and the part of a host an authoriser reads. Permissions
// never import the host: they read the `HostContext` it hands them.
import type { AuthoriseDecision, AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { ToolEntries } from '../registry/registry.js'
import type { HostContext } from '../contract/host-context.js'
import type { StandbyApprover } from './approvals.js'
import type { AuditEntry } from './audit.js'

/** What an authoriser is told besides the calls: the run's signal, and the host asking. */
export interface AuthoriseContext {
  signal?: AbortSignal
  /** The host asking: its workspace, settings (the config in force) and what it offers calls. */
  host: HostContext
  /** The registry's entries: to check the arguments a permission check put in place of the model's. */
  tools: ToolEntries
}

/** What a judgement reads besides the calls: the host asking and the registry's entries. */
export type DecidingFor = Pick<AuthoriseContext, 'host' | 'tools'>

/** The authorisation stage: sees a whole batch at once, so approvals can be asked together. */
export interface Authoriser {
  authorise(items: readonly AuthoriseItem[], context: AuthoriseContext): Promise<AuthoriseDecision[]>
  /**
   * The same decisions made synchronously when they need no waiting (calls needing a person still
   * get their `gate`); undefined when they do. Optional: without it every batch is decided through
   * `authorise`, its calls holding their places in the schedule meanwhile.
   */
  authoriseNow?(items: readonly AuthoriseItem[], context: AuthoriseContext): AuthoriseDecision[] | undefined
  /**
   * The host is closing: stop waiting for people and for checks (refuse calls still waiting for an
   * approval or a permission check). Calls it leaves undecided get the interrupt grace, then E_ABORTED.
   */
  shutdown?(): void
  /** Adds an approver asked when no one else can be (the console while open); returns its remover. */
  attachStandby?(approver: StandbyApprover): () => void
  /** Its audit log, when it keeps one: the host adds each hook's decision to it. */
  readonly audit?: { record(entry: AuditEntry): void }
  /** What it would decide for each call, with no side effects (for `explain`). */
  preview?(items: readonly AuthoriseItem[], context: DecidingFor): Promise<Array<{ outcome: 'allow' | 'ask' | 'deny'; by: string; reason: string }>>
}
