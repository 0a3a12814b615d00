import type { Host } from '../host/host.js'
import type { HostOptions } from '../host/host-types.js'
import { createLogger } from '../contract/logger.js'
import type { CliArgs } from './args.js'
import type { Output } from './commands.js'

/**
 * The host as the CLI sets it up: config, root, extra plugin folders, a terminal to ask on, the
 * person's workspace trust (the folder's own code runs once trusted; --plugins folders always), and its
 * log lines (a plugin that failed to load, warnings) written through `io.err`, once.
 */
export async function createHostForCli(args: CliArgs, overrides: { root?: string; config?: string; options?: Partial<HostOptions> }, io: Output): Promise<Host> {
  const [{ createHost }, { askOnTerminal, isInteractive }, { cliPermissionOptions }, { trustGate }] = await Promise.all([import('../host/create-host.js'), import('./terminal-ask.js'), import('./terminal-approve.js'), import('./trust.js')])
  const root = overrides.root ?? args.root
  const config = overrides.config ?? args.config
  return createHost({
    ...(config !== undefined ? { config, configExplicit: true } : {}),
    ...(root !== undefined ? { root, rootOption: '--root' } : {}),
    plugins: args.plugins,
    ...(args.traceFile !== undefined ? { traceFile: args.traceFile } : {}),
    log: createLogger(undefined, io.err),
    ...(args.mode ? { mode: args.mode as Host['mode'] } : {}),
    ...(isInteractive() ? { ask: askOnTerminal } : {}),
    ...cliPermissionOptions(args),
    // A person reads the CLI's errors (serve overrides this: its reader is the client's model).
    audience: 'person',
    // The workspace's own plugins, hooks and MCP servers run once its person trusted it (toolhost trust).
    workspaceTrust: trustGate(io),
    ...overrides.options,
  })
}
