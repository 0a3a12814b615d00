import type { ToolhostConfig } from '../config/types.js'
import type { HostServices, Logger } from '../types.js'
import { compileDangerousPatterns, publishDangerousPatterns } from './dangerous-commands.js'
import { ProcessRegistry } from './process-registry.js'

/** The parts of a host the process subsystem needs (structural, so this file does not import host.ts). */
export interface ProcessHostPart {
  readonly root: string
  readonly config: ToolhostConfig
  readonly configFile: string | undefined
  readonly log: Logger
  readonly services: HostServices
  onClose(closer: () => void | Promise<void>): void
}

/**
 * Gives a host its process registry (`host.services.processes`) and publishes its
 * `terminal.dangerous_patterns`. An invalid pattern throws `E_CONFIG_INVALID` before any process
 * is adopted. On `host.close()` foreground processes are killed and background ones are released
 * to the checkpoint for the next host to adopt.
 *
 * @example
 * await attachProcessRegistry(host) // inside createHost
 */
export async function attachProcessRegistry(host: ProcessHostPart): Promise<ProcessRegistry> {
  const patterns = compileDangerousPatterns(host.config.terminal.dangerous_patterns, host.configFile ?? 'createHost({ config })')
  const processes = await ProcessRegistry.open(ProcessRegistry.optionsFromConfig(host.config, host.root, host.log))
  ;(host.services as { processes: ProcessRegistry }).processes = processes
  const unpublish = publishDangerousPatterns(host.root, patterns)
  host.onClose(async () => {
    unpublish()
    await processes.close()
  })
  return processes
}
