import type { AskHandler, Logger, SettingsContext, ToolServices, WorkspaceContext } from './types.js'

/**
 * What every stage below the host reads of the host it serves, grouped by concern: where calls act,
 * what the host runs with, and what it offers them. One object per host, made once; the stages take
 * it (or the group they need) instead of the host, so no stage can reach back into `host/`.
 *
 * @example
 * function resultsDir(context: HostContext): string {
 *   return `${context.workspace.root}/${context.settings.config.limits.results_dir}`
 * }
 */
export interface HostContext {
  /** Where calls act: the canonical workspace root, whether its file system ignores case, the session's state. */
  readonly workspace: WorkspaceContext
  /** What the host runs with: the config in force (a reloaded config.yaml's live keys included) and its environment. */
  readonly settings: SettingsContext
  /** What the host offers a call: its services (processes), its log, a way to ask a person. */
  readonly offers: OffersContext
}

/** What a host offers the calls it runs. */
export interface OffersContext {
  readonly services: ToolServices
  readonly log: Logger
  /** Present when the host can ask a person (clarify, approvals). */
  readonly ask: AskHandler | undefined
}
