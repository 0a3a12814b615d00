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
