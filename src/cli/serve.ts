import { ToolhostError } from '../contract/errors.js'
import type { HostConsole } from '../console/attach-console.js'
import type { Host } from '../host/host.js'
import { isLoopback } from '../http/loopback.js'
import { approvalLedgerFor } from '../mcp/approval-ledger.js'
import { stateKeyFromEnv } from '../mcp/request-state.js'
import { notifyOnToolChanges, sealFor, serveStdio } from '../mcp/server.js'
import { McpSessions } from '../mcp/sessions.js'
import type { CliArgs } from './args.js'
import type { Output } from './commands.js'
import { createHostForCli } from './cli-host.js'
import { consoleBase, publicNote } from './served-urls.js'

/**
 * `toolhost serve [--http PORT] [--watch]`: the registry as an MCP server, over stdio (stdout carries
 * only MCP messages; diagnostics go to stderr) or Streamable HTTP on `serve.host` (127.0.0.1 by
 * default), to clients of MCP 2025 and 2026-07-28. `clarify` and approvals ask the calling client:
 * elicitation on a 2025 session, `input_required` for a 2026 request. Runs until stdin closes
 * (stdio) or SIGINT/SIGTERM. On SIGTERM over HTTP the calls in flight are answered first (drained,
 * up to `serve.drain_ms`); new requests then get 503.
 */
export async function serveCommand(args: CliArgs, io: Output): Promise<number> {
  const port = args.http === undefined ? undefined : parsePort(args.http)
  const sessions = new McpSessions()
  // The requestState key (TOOLHOST_MCP_STATE_KEY): a bad one stops start-up, not the first client.
  stateKeyFromEnv()
  const host = await createHostForCli(args, {
    // --yes still approves everything; otherwise the calling client is asked (the terminal is the MCP channel).
    options: { audience: 'model', ask: (request, signal) => sessions.ask(request, signal), ...(args.yes ? {} : { approve: sessions.approve }), watch: args.watch },
  }, io)
  // Approvals are consumed in the host's store: once across every instance that shares it.
  sealFor(sessions, approvalLedgerFor(host.services.store))
  const stopNotify = notifyOnToolChanges(host, sessions)
  const signalled = untilSignal()
  try {
    if (port === undefined) {
      const stdio = await serveStdio(host, sessions)
      // A person who typed the command sees an empty screen otherwise: say what it waits for.
      if (process.stdin.isTTY === true) io.err(stdioWaitingNote())
      await Promise.race([stdio.closed, signalled.promise])
      await stdio.close()
    } else {
      // Loaded only for --http: the Streamable HTTP transport brings an HTTP framework stdio never uses.
      const { serveHttp } = await import('../mcp/http.js')
      const hostConsole = await consoleFor(host, sessions, io)
      const endpoint = await serveHttp(host, sessions, { port, hostname: host.config.serve.host, ...(hostConsole ? { routes: hostConsole.routes } : {}) })
      // The MCP line starts with the listening address (scripts read it); the URLs to open come from serve.public_url.
      const publicUrl = host.config.serve.public_url
      io.err(`toolhost: MCP Streamable HTTP at ${endpoint.url}${publicNote(endpoint.url, publicUrl)}`)
      if (hostConsole) io.err(`toolhost: console at ${hostConsole.urlAt(consoleBase(endpoint.url, publicUrl))}`)
      const signal = await signalled.promise
      // SIGTERM (a deployment stopping this instance): the calls in flight are answered first.
      const drainMs = host.config.serve.drain_ms
      if (signal === 'SIGTERM' && drainMs > 0) {
        const left = await endpoint.drain(drainMs)
        if (left > 0) io.err(`toolhost: SIGTERM: ${left} call${left === 1 ? '' : 's'} still running after serve.drain_ms (${drainMs} ms); interrupting`)
      }
      hostConsole?.close()
      await endpoint.close()
    }
  } finally {
    signalled.cancel()
    stopNotify()
    await host.close()
  }
  // A server stopped by SIGINT or SIGTERM has drained (docs/deploy.md): a planned stop, exit 0 as when
  // stdin closes; orchestrators read a non-zero code as a crash.
  return 0
}

// The console beside /mcp (serve.console): on a loopback address by default, elsewhere only when
// configured `always`. Loaded only when served.
async function consoleFor(host: Host, sessions: McpSessions, io: Output): Promise<HostConsole | undefined> {
  const setting = host.config.serve.console
  if (setting === 'off') return undefined
  if (setting === 'loopback' && !isLoopback(host.config.serve.host)) {
    io.err(`toolhost: no console: serve.host ${host.config.serve.host} is not a loopback address (set serve.console: always to serve it there too)`)
    return undefined
  }
  try {
    const { createConsole } = await import('../console/attach-console.js')
    return createConsole(host, { clients: () => sessions.describe() })
  } catch (error) {
    // The console is optional: MCP is served without it (e.g. a build that left its page out).
    io.err(`toolhost: no console: ${(error as Error).message}`)
    return undefined
  }
}

/** What `serve` says on stderr when a person, not an MCP client, is on its stdin. */
export function stdioWaitingNote(): string {
  return 'toolhost: MCP server on stdio, waiting for an MCP client to write to stdin (Ctrl-C stops it). Configure it as a command in your MCP client (docs/mcp.md), or run toolhost serve --http 0 for an address.'
}

function parsePort(text: string): number {
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ToolhostError('E_USAGE', `--http needs a port number from 0 to 65535 (0 picks a free one); got ${JSON.stringify(text)}`)
  }
  return port
}

function untilSignal(): { promise: Promise<NodeJS.Signals | undefined>; cancel: () => void } {
  let done!: (signal?: NodeJS.Signals) => void
  const promise = new Promise<NodeJS.Signals | undefined>((resolve) => {
    done = (signal) => {
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      resolve(signal)
    }
  })
  process.once('SIGINT', done)
  process.once('SIGTERM', done)
  return { promise, cancel: () => done() }
}
