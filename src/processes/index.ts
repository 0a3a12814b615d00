/**
 * `toolhost/processes`: the process registry behind the `terminal` and `process` tools, usable on
 * its own (docs/processes.md), and the dangerous-command check `terminal` declares as `destructive`.
 * A host's own registry is `ctx.services.processes` in a handler.
 *
 * @example
 * import { ProcessRegistry } from 'toolhost/processes'
 *
 * // processes.* of a host's config, resolved against its root (every path must be inside it)
 * const processes = await ProcessRegistry.open(ProcessRegistry.optionsFromConfig(host.config, host.root))
 * const started = await processes.spawn('npm test', { notifyOnComplete: true })
 * console.log(await processes.wait(started.id, { timeoutMs: 60_000 }))
 * await processes.close()
 */
export { ProcessRegistry } from './process-registry.js'
export type { LaunchDecision, ProcessEvent, ProcessRegistryOptions } from './process-registry.js'
export type { LineRange, LogPage, NumberedLine, ProcessInfo, ProcessStatus, SpawnOptions, WaitOutcome } from '../contract/process-service.js'
export type { ProcessCompletion } from './completions.js'
export { isDangerousForOpenHosts } from './dangerous-commands.js'

// What the signatures above refer to that `toolhost` exports too: the same declarations, types only,
// so a type imported from this entry and from `toolhost` is one type.
export type { HookConfig, McpServerConfig, ProcessContainment, RateLimitConfig, TerminalSandbox } from '../config/generated-types.js'
export type { DispatchMode, PermissionMode, ToolhostConfig } from '../config/types.js'
export type { ProcessService } from '../contract/process-service.js'
export type { Logger } from '../contract/types.js'
export type { SandboxPlan } from './sandbox.js'
