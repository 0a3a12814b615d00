import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ToolhostError } from '../contract/errors.js'
import type { Host } from '../host/host.js'
import { isLoopback, isLoopbackHost, isLoopbackOrigin } from '../http/loopback.js'
import { loadConsoleAssets } from './console-assets.js'
import { ConsoleAuth } from './console-auth.js'
import { ConsoleHub } from './console-hub.js'
import { createConsoleRoutes, SECURITY_HEADERS, type ConsoleRoutes } from './console-routes.js'
import type { ConsoleClient } from './console-views.js'

export interface ConsoleOptions {
  /** The connected MCP clients to list (toolhost serve passes its sessions'). */
  clients?: () => ConsoleClient[]
  /** The start-up token (default: 24 random bytes, hex). At least 16 characters. */
  token?: string
  /** Finished calls the timeline keeps (default 1000). */
  keepCalls?: number
}

/** A console over a host, ready to be mounted on an HTTP server. */
export interface HostConsole {
  readonly hub: ConsoleHub
  readonly auth: ConsoleAuth
  /** Handles `/` and `/console/…`; resolves false for any other path. */
  readonly routes: ConsoleRoutes
  /** The address a person opens, on a server at `origin` (e.g. `http://127.0.0.1:8765`). */
  urlAt(origin: string): string
  close(): void
}

/**
 * The console of `host` without a server of its own: `toolhost serve --http` mounts its routes
 * beside `/mcp`. Closing the host closes it.
 *
 * @example
 * const hostConsole = createConsole(host, { clients: () => sessions.describe() })
 * await serveHttp(host, sessions, { port, hostname, routes: hostConsole.routes })
 */
export function createConsole(host: Host, options: ConsoleOptions = {}): HostConsole {
  const auth = new ConsoleAuth(options.token)
  const hub = new ConsoleHub(host, { ...(options.clients ? { clients: options.clients } : {}), ...(options.keepCalls === undefined ? {} : { keepCalls: options.keepCalls }) })
  const routes = createConsoleRoutes(hub, auth, loadConsoleAssets())
  host.onClose(() => hub.close())
  return {
    hub,
    auth,
    routes,
    urlAt: (origin) => `${origin}/?token=${auth.token}`,
    close: () => hub.close(),
  }
}

/** A console with its own HTTP server (`attachConsole`). */
export interface AttachedConsole extends HostConsole {
  /** The address to open, token included. */
  readonly url: string
  readonly port: number
  /** Closes the console and its server (closing the host does too). */
  stop(): Promise<void>
}

/**
 * Serves the console of an embedded host on its own HTTP server: on 127.0.0.1 and a free port by
 * default, with the same Host/Origin checks as `/mcp` (a page of another site cannot reach it, nor
 * can a DNS-rebound name). A non-loopback `hostname` needs `allowRemote: true`. Print or open `url`.
 *
 * @example
 * import { attachConsole } from 'toolhost/console'
 * const hostConsole = await attachConsole(host, { port: 8766 })
 * process.stderr.write(`console: ${hostConsole.url}\n`)
 */
export async function attachConsole(host: Host, options: ConsoleOptions & { port?: number; hostname?: string; allowRemote?: boolean } = {}): Promise<AttachedConsole> {
  const hostname = options.hostname ?? '127.0.0.1'
  const loopback = isLoopback(hostname)
  if (!loopback && options.allowRemote !== true) {
    throw new ToolhostError('E_USAGE', `attachConsole: ${hostname} is not a loopback address; the console approves calls and kills processes, so serving it to other machines needs allowRemote: true`)
  }
  const hostConsole = createConsole(host, options)
  let loopbackPort: number | undefined
  const server: Server = createServer((req, res) => {
    // The same DNS-rebinding and cross-site checks as /mcp.
    if (loopbackPort !== undefined && (!isLoopbackHost(req.headers.host, loopbackPort) || !isLoopbackOrigin(req.headers.origin))) {
      res.writeHead(403, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
      res.end('refused: this is a loopback console; open it by the address it printed')
      return
    }
    hostConsole.routes(req, res).then(
      (handled) => {
        if (handled) return
        res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
        res.end('not found')
      },
      (error: unknown) => {
        host.log.error(`console request failed: ${(error as Error).message}`)
        if (!res.headersSent) res.writeHead(500, SECURITY_HEADERS)
        res.end()
      },
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new ToolhostError('E_USAGE', `attachConsole: cannot listen on ${hostname}:${options.port ?? 0} (${error.code ?? error.message})`)))
    server.listen(options.port ?? 0, hostname, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  if (loopback) loopbackPort = port
  const shown = hostname.includes(':') ? `[${hostname}]` : hostname
  let stopped: Promise<void> | undefined
  const stop = (): Promise<void> => (stopped ??= (async () => {
    hostConsole.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })())
  host.onClose(stop)
  return { ...hostConsole, url: hostConsole.urlAt(`http://${shown}:${port}`), port, stop }
}
