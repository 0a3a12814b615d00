/** The shape of config.yaml after defaults are merged: generated from the schema (schema.ts), and where a config came from. */
import type { DispatchMode, PermissionMode, ToolhostConfig } from './generated-types.js'

export type {
  DispatchMode,
  HookConfig,
  LiveKey,
  McpServerConfig,
  PermissionMode,
  ProcessContainment,
  RateLimitConfig,
  TerminalSandbox,
  ToolhostConfig,
} from './generated-types.js'

/** Every dispatch mode and permission mode (config.yaml's schema, the CLI and createHost check against these). */
export const DISPATCH_MODES: readonly DispatchMode[] = ['graph', 'partition', 'batch', 'serial']
export const PERMISSION_MODES: readonly PermissionMode[] = ['ask', 'accept-edits', 'auto', 'plan', 'bypass']

/** A loaded config and where it came from (for error messages and relative paths). */
export interface LoadedConfig {
  config: ToolhostConfig
  /** Absolute path of the config file, or undefined when none was found and defaults apply. */
  file: string | undefined
  /** Folder that relative paths in the config file resolve against. */
  baseDir: string
}
