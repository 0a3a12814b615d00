import { isToolhostError } from '../errors.js'
import { createHost, type Host, type HostOptions } from '../host.js'
import { createLogger } from '../logger.js'
import { registry } from '../registry.js'
import { guardStrayErrors } from '../stray-errors.js'
import { parseCliArgs, USAGE, type CliArgs } from './args.js'
import { callCommand, doctorCommand, explainCommand, listCommand, runCommand, type Output } from './commands.js'
import { demoCommand } from './demo.js'
import { askOnTerminal, isInteractive } from './terminal-ask.js'
import { cliPermissionOptions } from './terminal-approve.js'

type Command = (host: Host, args: CliArgs, io: Output) => Promise<number>

const COMMANDS: Record<string, Command> = {
  list: listCommand,
  doctor: doctorCommand,
  call: callCommand,
  run: runCommand,
  explain: explainCommand,
}

const consoleOutput: Output = {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
}

/** Runs the CLI; resolves with the exit code (0 ok, 1 a call failed, 2 usage or configuration). */
export async function main(argv: readonly string[], io: Output = consoleOutput): Promise<number> {
  let host: Host | undefined
  try {
    const args = parseCliArgs(argv)
    if (args.help || !args.command) {
      io.out(USAGE)
      return args.help ? 0 : 2
    }
    if (args.command === 'demo') return await demoCommand(args, io)
    // Loaded on demand: serve pulls in the MCP SDK, which every other command would pay for at start-up.
    if (args.command === 'serve') return await (await import('./serve.js')).serveCommand(args, io)
    if (args.command === 'new-plugin') return (await import('./new-plugin.js')).newPluginCommand(args, io)
    const command = COMMANDS[args.command]
    if (!command) {
      io.err(`unknown command "${args.command}"\n\n${USAGE}`)
      return 2
    }
    host = await createHostForCli(args)
    return await command(host, args, io)
  } catch (error) {
    if (isToolhostError(error)) {
      io.err(`toolhost: ${error.code}: ${error.message}`)
      return 2
    }
    io.err(`toolhost: internal error: ${(error as Error)?.stack ?? String(error)}`)
    return 2
  } finally {
    await host?.close()
  }
}

/**
 * The CLI as a process (`bin/toolhost.mjs`): a plugin's stray rejection or timer throw is logged,
 * not fatal, and once the command is done the process exits with its code, flushing output first,
 * even if a plugin left a timer, an interval or a socket behind.
 */
export async function runCli(argv: readonly string[]): Promise<never> {
  guardStrayErrors({ log: createLogger(), registry })
  const code = await main(argv)
  await Promise.all([flushed(process.stdout), flushed(process.stderr)])
  process.exit(code)
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0 || stream.destroyed) resolve()
    else stream.write('', () => resolve())
  })
}

/** The host as the CLI sets it up: config, root, extra plugin folders, a terminal to ask on. */
export async function createHostForCli(args: CliArgs, overrides: { root?: string; config?: string; options?: Partial<HostOptions> } = {}): Promise<Host> {
  const root = overrides.root ?? args.root
  const config = overrides.config ?? args.config
  return createHost({
    ...(config !== undefined ? { config, configExplicit: true } : {}),
    ...(root !== undefined ? { root } : {}),
    plugins: args.plugins,
    ...(args.traceFile !== undefined ? { traceFile: args.traceFile } : {}),
    ...(args.mode ? { mode: args.mode as Host['mode'] } : {}),
    ...(isInteractive() ? { ask: askOnTerminal } : {}),
    ...cliPermissionOptions(args),
    // A person reads the CLI's errors (serve overrides this: its reader is the client's model).
    audience: 'person',
    ...overrides.options,
  })
}
