// The authorisation stage as the host calls it, and the part of a host an authoriser reads. The
// host satisfies `AuthorisingHost` as it is; permissions never import the host.
import type { ToolhostConfig } from '../config/types.js'
import type { AuthoriseDecision, AuthoriseItem } from '../dispatch/admit/authorise-item.js'
import type { RegistryEntry } from '../registry/registry.js'
import type { AskHandler, Logger, SessionState, ToolServices } from '../contract/types.js'
import type { StandbyApprover } from './approvals.js'
import type { AuditEntry } from './audit.js'

/**
 * What an authoriser may read of the host whose calls it decides: what a tool's `checkPermissions`
 * gets in its context (root, config, log, session, ask, services, env), and the registry, to check
 * the arguments a permission check put in place of the model's.
 */
export interface AuthorisingHost {
  readonly root: string
  /** The config in force (a reloaded config.yaml's live keys included). */
  readonly config: ToolhostConfig
  readonly log: Logger
  readonly session: SessionState
  readonly ask: AskHandler | undefined
  readonly services: ToolServices
  readonly env: NodeJS.ProcessEnv
  readonly registry: { entry(name: string): RegistryEntry | undefined }
}

/** What an authoriser is told besides the calls: the run's signal, and the host asking. */
export interface AuthoriseContext {
  signal?: AbortSignal
  host: AuthorisingHost
}

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
  preview?(items: readonly AuthoriseItem[], context: { host: AuthorisingHost }): Promise<Array<{ outcome: 'allow' | 'ask' | 'deny'; by: string; reason: string }>>
}
