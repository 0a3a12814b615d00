import { isToolhostError } from '../contract/errors.js'
import type { Host } from '../host/host.js'
import { commandHelp, parseCliArgs, USAGE, type CliArgs } from './args.js'
import { createHostForCli } from './cli-host.js'
import type { Output } from './commands.js'
import { createLogger } from '../contract/logger.js'
import { packageVersion } from './package-info.js'

type Command = (host: Host, args: CliArgs, io: Output) => Promise<number>

const consoleOutput: Output = {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
}

/**
 * Runs the CLI; resolves with the exit code (0 ok, 1 a call failed, 2 usage or configuration).
 * Only the argument parser loads up front: `--help` and `--version` never load the host, and each
 * command loads what it needs (serve alone loads the MCP SDK).
 */
export async function main(argv: readonly string[], io: Output = consoleOutput): Promise<number> {
  let host: Host | undefined
  try {
    const args = parseCliArgs(argv)
    if (args.version) {
      io.out(packageVersion())
      return 0
    }
    if (args.help) {
      io.out(args.command ? commandHelp(args.command) : USAGE)
      return 0
    }
    if (args.command === 'help') {
      io.out(args.positionals[0] === undefined ? USAGE : commandHelp(args.positionals[0]))
      return 0
    }
    if (!args.command) {
      io.out(USAGE)
      return 2
    }
    if (args.command === 'demo') return await (await import('./demo.js')).demoCommand(args, io)
    if (args.command === 'serve') return await (await import('./serve.js')).serveCommand(args, io)
    if (args.command === 'new-plugin') return await (await import('./new-plugin.js')).newPluginCommand(args, io)
    if (args.command === 'init') return await (await import('./init.js')).initCommand(args, io)
    if (args.command === 'trust') return await (await import('./trust.js')).trustCommand(args, io)
    const commands = await import('./commands.js')
    const prompts = await import('./prompt-commands.js')
    const byName: Record<string, Command> = {
      prompt: prompts.promptCommand,
      resource: prompts.resourceCommand,
      list: commands.listCommand,
      doctor: commands.doctorCommand,
      call: commands.callCommand,
      run: commands.runCommand,
      explain: commands.explainCommand,
    }
    const command = byName[args.command]!
    host = await createHostForCli(args, {}, io)
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
  const [{ guardStrayErrors }, { registry }] = await Promise.all([import('../host/stray-errors.js'), import('../registry/registry.js')])
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
