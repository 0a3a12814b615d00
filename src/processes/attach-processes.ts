import path from 'node:path'
import type { ToolhostConfig } from '../config/types.js'
import type { HostServices, Logger } from '../contract/types.js'
import { compileDangerousPatterns, publishDangerousPatterns } from './dangerous-commands.js'
import { ProcessRegistry } from './process-registry.js'
import { decideSandbox } from './sandbox.js'

/** The parts of a host the process subsystem needs (structural, so this file does not import host.ts). */
export interface ProcessHostPart {
  readonly root: string
  readonly config: ToolhostConfig
  readonly configFile: string | undefined
  readonly log: Logger
  /** The host's environment: the base environment of every command (createHost's `env`). */
  readonly env: NodeJS.ProcessEnv
  readonly services: HostServices
  onClose(closer: () => void | Promise<void>): void
}

/**
 * Gives a host its process registry (`host.services.processes`) and publishes its
 * `terminal.dangerous_patterns`. Commands get the host's environment (not `process.env`) and run in
 * the sandbox `terminal.sandbox` decides. An invalid pattern, or `terminal.sandbox: bwrap` where
 * bwrap cannot run, throws `E_CONFIG_INVALID` before any process is adopted. On `host.close()` foreground processes are killed and background ones are released
 * to the checkpoint for the next host to adopt.
 *
 * @example
 * await attachProcessRegistry(host) // inside createHost
 */
export async function attachProcessRegistry(host: ProcessHostPart): Promise<ProcessRegistry> {
  const patterns = compileDangerousPatterns(host.config.terminal.dangerous_patterns, host.configFile ?? 'createHost({ config })')
  const where = host.configFile ?? 'createHost({ config })'
  const options = { ...ProcessRegistry.optionsFromConfig(host.config, host.root, host.log), env: host.env }
  // The host's own state (checkpoint, logs) stays read-only inside the sandbox: a command must not forge it.
  const sandbox = decideSandbox(host.config.terminal, { root: host.root, readOnly: [...new Set([path.dirname(options.checkpoint), options.dir])], where })
  const processes = await ProcessRegistry.open({ ...options, ...(sandbox.plan ? { sandbox: sandbox.plan } : {}), sandboxStatus: sandbox.status })
  ;(host.services as { processes: ProcessRegistry }).processes = processes
  const unpublish = publishDangerousPatterns(host.root, patterns)
  host.onClose(async () => {
    unpublish()
    await processes.close()
  })
  return processes
}
