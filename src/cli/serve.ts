import { ToolhostError } from '../errors.js'
import { notifyOnToolChanges, serveStdio } from '../mcp/server.js'
import { McpSessions } from '../mcp/sessions.js'
import type { CliArgs } from './args.js'
import type { Output } from './commands.js'
import { createHostForCli } from './main.js'

/**
 * `toolhost serve [--http PORT] [--watch]`: the registry as an MCP server, over stdio (stdout carries
 * only MCP messages; diagnostics go to stderr) or Streamable HTTP on `serve.host` (127.0.0.1 by
 * default). `clarify` and approvals ask the calling client through elicitation. Runs until stdin
 * closes (stdio) or SIGINT/SIGTERM.
 */
export async function serveCommand(args: CliArgs, io: Output): Promise<number> {
  const port = args.http === undefined ? undefined : parsePort(args.http)
  const sessions = new McpSessions()
  const host = await createHostForCli(args, {
    // --yes still approves everything; otherwise the calling client is asked (the terminal is the MCP channel).
    options: { ask: (request, signal) => sessions.ask(request, signal), ...(args.yes ? {} : { approve: sessions.approve }), watch: args.watch },
  }, io)
  const stopNotify = notifyOnToolChanges(host, sessions)
  const signalled = untilSignal()
  try {
    if (port === undefined) {
      const stdio = await serveStdio(host, sessions)
      await Promise.race([stdio.closed, signalled.promise])
      await stdio.close()
    } else {
      // Loaded only for --http: the Streamable HTTP transport brings an HTTP framework stdio never uses.
      const { serveHttp } = await import('../mcp/http.js')
      const endpoint = await serveHttp(host, sessions, { port, hostname: host.config.serve.host })
      io.err(`toolhost: MCP Streamable HTTP at ${endpoint.url}`)
      await signalled.promise
      await endpoint.close()
    }
  } finally {
    signalled.cancel()
    stopNotify()
    await host.close()
  }
  return 0
}

function parsePort(text: string): number {
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ToolhostError('E_USAGE', `--http needs a port number from 0 to 65535 (0 picks a free one); got ${JSON.stringify(text)}`)
  }
  return port
}

function untilSignal(): { promise: Promise<void>; cancel: () => void } {
  let done!: () => void
  const promise = new Promise<void>((resolve) => {
    done = () => {
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      resolve()
    }
  })
  process.once('SIGINT', done)
  process.once('SIGTERM', done)
  return { promise, cancel: done }
}
