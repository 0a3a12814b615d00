import type { ControlPlane } from '../contract/types.js'
import path from 'node:path'
import type { ToolhostConfig } from '../config/types.js'
import type { Logger } from '../contract/types.js'
import { compileDangerousPatterns, publishDangerousPatterns } from './dangerous-commands.js'
import { ProcessRegistry, type LaunchDecision } from './process-registry.js'
import { decideContainment } from './containment.js'
import { decideSandbox, type SandboxDecision } from './sandbox.js'

/** What the process subsystem needs to start (known before the host is built; it never imports host.ts). */
export interface ProcessHostPart {
  readonly root: string
  readonly config: ToolhostConfig
  readonly configFile: string | undefined
  readonly log: Logger
  /** The host's environment: the base environment of every command (createHost's `env`). */
  readonly env: NodeJS.ProcessEnv
  /** What configures or programs the host: read-only in the sandbox, and a command writing it asks. */
  readonly controlPlane?: ControlPlane
}

/** A host's open process registry, and how it closes with the host. */
export interface OpenedProcesses {
  readonly processes: ProcessRegistry
  /** Unpublishes the dangerous patterns and closes the registry (for `host.close()`). */
  close(): Promise<void>
}

/**
 * Opens a host's process registry (`host.services.processes`) and publishes its
 * `terminal.dangerous_patterns`. Commands get the host's environment (not `process.env`) and run in
 * the sandbox `terminal.sandbox` decides, or else in the PID namespace `processes.containment` decides
 * (decided at the first command or `doctor`, since deciding `auto` runs bwrap once). An invalid
 * pattern, or `terminal.sandbox: bwrap` where bwrap cannot run, throws `E_CONFIG_INVALID` before any process is adopted. On `close()` (the
 * host's) foreground processes are killed and background ones are released to the checkpoint for
 * the next host to adopt.
 *
 * @example
 * const { processes, close } = await openProcessRegistry({ root, config, configFile, log, env }) // inside createHost
 */
export async function openProcessRegistry(host: ProcessHostPart): Promise<OpenedProcesses> {
  const patterns = compileDangerousPatterns(host.config.terminal.dangerous_patterns, host.configFile ?? 'createHost({ config })')
  const where = host.configFile ?? 'createHost({ config })'
  const options = { ...ProcessRegistry.optionsFromConfig(host.config, host.root, host.log), env: host.env }
  // The host's own state (checkpoint, logs) and its control plane (config, plugin folders, hook
  // scripts, .env) stay read-only inside the sandbox: a command must not forge or reprogram them.
  const decideSandboxNow = (): SandboxDecision => decideSandbox(host.config.terminal, { root: host.root, readOnly: [...new Set([path.dirname(options.checkpoint), options.dir, ...(host.controlPlane?.paths ?? [])])], where })
  // terminal.sandbox: bwrap where bwrap cannot run is a fault of configuration: found at start-up.
  // Otherwise (auto, off) the decision waits for the first command: deciding auto runs bwrap once.
  const eager = host.config.terminal.sandbox === 'bwrap' ? decideSandboxNow() : undefined
  const decideLaunch = (): LaunchDecision => {
    const sandbox = eager ?? decideSandboxNow()
    // Every process a command starts stays with it (setsid, double forks): the sandbox's PID namespace, or one of its own.
    const containment = decideContainment(host.config.processes.containment, sandbox.plan)
    const contain = containment.plan.kind === 'pid-namespace' ? { contain: { bwrap: containment.plan.bwrap } } : {}
    return { ...(sandbox.plan ? { sandbox: sandbox.plan } : {}), sandboxStatus: sandbox.status, ...contain, containmentStatus: containment.status }
  }
  const processes = await ProcessRegistry.open({ ...options, decideLaunch })
  const unpublish = publishDangerousPatterns(host.root, patterns, host.controlPlane)
  return {
    processes,
    async close() {
      unpublish()
      await processes.close()
    },
  }
}
