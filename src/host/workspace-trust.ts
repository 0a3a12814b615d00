import type { ToolhostConfig } from '../config/types.js'
import { createLogger } from '../contract/logger.js'
import { describeCode, isEmptyCode, isWorkspaceConfig, workspaceCodeOf, type WorkspaceCode } from '../loader/workspace-code.js'
import { isWithin } from '../workspace/paths.js'
import type { HostOptions } from './host-types.js'
import type { ResolvedSetup } from './setup.js'

// Workspace trust as createHost applies it (HostOptions.workspaceTrust): what a workspace's config
// may run at start-up, on a config reload and on a hot reload of its plugin folders.

/**
 * Asks `options.workspaceTrust` about the code a workspace config brings: trusted (or nothing to
 * ask), the config as loaded; untrusted, the config without its plugin folders, hooks, MCP servers,
 * allow rules and looser permission mode, and a warning naming what was left out and the command that trusts the folder.
 */
export async function askWorkspaceTrust(resolved: ResolvedSetup, options: HostOptions): Promise<{ config: ToolhostConfig; gated: boolean; withheld?: WorkspaceCode }> {
  const ask = options.workspaceTrust
  if (ask === undefined || !isWorkspaceConfig(resolved.file, resolved.root, options.configExplicit === true || typeof options.config === 'string')) return { config: resolved.config, gated: false }
  const code = await workspaceCodeOf(resolved)
  if (isEmptyCode(code) || ask(code)) return { config: resolved.config, gated: true }
  const log = options.log ?? createLogger()
  log.warn(`${describeCode(code)} not loaded: ${resolved.root} is not trusted to run its own code; to run it, trust the folder: toolhost trust --root ${shellWord(resolved.root)}`)
  const config = resolved.config
  return {
    gated: true,
    withheld: code,
    // Its permission rules and mode loosen nothing until trusted: the defaults ask (an explicit
    // --permission-mode or createHost({ permissionMode }) is the person's, and still wins).
    config: { ...config, plugins: { ...config.plugins, dirs: [] }, hooks: { before_call: [], after_call: [] }, mcp_servers: {}, permissions: { ...config.permissions, allow: [], mode: code.permissions.mode === undefined ? config.permissions.mode : 'ask' } },
  }
}

// What a reloaded config may change under a trust gate: not the code it runs. Its hooks (new
// commands) stay those in force (`inForce`: the file's at start when trusted, none when withheld),
// and so do its plugin folders, MCP servers, allow rules and mode, which only a restart (and trust)
// changes.
export function keepTrustedCode(fromFile: ToolhostConfig, inForce: ToolhostConfig, log: { warn(message: string): void }): (next: ToolhostConfig) => ToolhostConfig {
  const started = JSON.stringify(fromFile.hooks)
  return (next) => {
    if (JSON.stringify(next.hooks) !== started) log.warn('hooks changed in the config file; the hooks in force stay: run toolhost trust, then restart, to run the new ones')
    if (inForce === fromFile) return { ...next, hooks: inForce.hooks }
    return { ...next, hooks: inForce.hooks, plugins: { ...next.plugins, dirs: inForce.plugins.dirs }, mcp_servers: inForce.mcp_servers, permissions: { ...next.permissions, allow: inForce.permissions.allow, mode: inForce.permissions.mode } }
  }
}

// A file of the workspace's own plugin folders loads on change only when the folder, as it is now,
// is trusted: a file a tool or a command wrote is new code.
export function mayLoadWorkspaceFile(resolved: ResolvedSetup, workspaceDirs: readonly string[], ask: (code: WorkspaceCode) => boolean): (file: string) => Promise<string | undefined> {
  return async (file) => {
    if (!workspaceDirs.some((dir) => isWithin(file, dir))) return undefined
    const code = await workspaceCodeOf(resolved)
    return ask(code) ? undefined : `${file} changed since ${resolved.root} was trusted; not loaded: run toolhost trust --root ${shellWord(resolved.root)}, then save it again`
  }
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}
