import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMcpHandler, isInitializeRequest, isLegacyRequest, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server'
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node'
import { ToolhostError } from '../contract/errors.js'
import { readJsonBody, TOO_LARGE } from '../http/http-body.js'
import { createRequestAccess } from '../http/request-access.js'
import type { Host } from '../host/host.js'
import { MemoryEventStore } from './event-store.js'
import type { McpSessions } from './sessions.js'
import { approvalLedgerFor } from './approval-ledger.js'
import { createMcpServer, sealFor } from './server.js'

/** A running Streamable HTTP endpoint (`POST/GET/DELETE /mcp`). */
export interface HttpEndpoint {
  url: string
  port: number
  /**
   * Stops taking work and waits for the tool calls in flight (at most `ms`): no new connection is
   * accepted, a request that still arrives is answered 503 with `Connection: close` (a client sends
   * it again, to another instance), and running calls finish and are answered. Resolves with the
   * number of calls still running when it gave up (0: drained). `close()` afterwards.
   */
  drain(ms: number): Promise<number>
  close(): Promise<void>
}

/** Serves one path of the HTTP server (after the Host/Origin check). */
type HttpRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void

/** Routes served beside `/mcp`: resolves true when it handled the request. */
export type ExtraRoutes = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

/** An HTTP session with no request for this long (and none open) is closed. */
const SESSION_IDLE_MS = 30 * 60_000
/** How long a client whose SSE stream dropped waits before reconnecting (the SSE `retry` field). */
export const SSE_RETRY_MS = 1000

/**
 * Serves `host` over MCP Streamable HTTP at `http://HOST:PORT/mcp`, to clients of both protocol
 * revisions, all sharing the host's scheduler. A 2026-07-28 request (its `_meta` envelope, or a
 * 2026 `MCP-Protocol-Version` header) is served statelessly: a fresh server instance per request,
 * no session, so several `serve` processes (with one `TOOLHOST_MCP_STATE_KEY`) can sit behind a
 * plain load balancer. Everything else is the 2025 leg: one MCP session per client
 * (`mcp-session-id`); a request naming an unknown or ended session gets 404, so the client starts a
 * new one; SSE streams are resumable (every event has an id, each stream opens with a priming event
 * and `retry`, and a client reconnecting with `Last-Event-ID` gets what it missed, from a bounded
 * store per session). Binds to `hostname` only (127.0.0.1 unless `serve.host` says otherwise). Port
 * 0 picks a free port. On a loopback address, requests whose Host header names another host, or
 * that come from a non-loopback browser Origin, are refused (403); with `serve.auth`, /mcp needs a
 * bearer token (`src/http/request-access.ts`), and a non-loopback address refuses to start without it.
 * `GET /healthz` (200 while the process answers) and `GET /readyz` (200, or 503 once draining) are
 * for probes: no token, any Host. `routes` adds paths beside `/mcp`.
 *
 * @example
 * const endpoint = await serveHttp(host, sessions, { port: 8765, hostname: '127.0.0.1' })
 */
export async function serveHttp(host: Host, sessions: McpSessions, options: { port: number; hostname: string; idleMs?: number; routes?: ExtraRoutes }): Promise<HttpEndpoint> {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>()
  const negotiated = new Map<string, string>() // session -> protocol version agreed at initialize
  // A client that goes away without DELETE would leave its session in memory for good: sessions
  // idle longer than `idleMs` are closed (the client gets 404 and initialises again).
  const idleMs = options.idleMs ?? SESSION_IDLE_MS
  const lastSeen = new Map<string, number>()
  // Who opened each 2025 session (`ownerOf`): only they may use it.
  const owners = new Map<string, string>()
  const open = new Map<string, number>() // requests still open per session (an SSE stream counts)
  const sweep = setInterval(() => {
    const cutoff = Date.now() - idleMs
    for (const [id, seen] of lastSeen) {
      if (seen >= cutoff || (open.get(id) ?? 0) > 0) continue
      lastSeen.delete(id)
      void transports.get(id)?.close().catch(() => {})
    }
  }, Math.max(10, Math.min(idleMs / 2, 60_000)))
  sweep.unref()

  const maxBody = host.config.serve.max_message_bytes
  const seal = sealFor(sessions, approvalLedgerFor(host.services.store))
  // The 2026-07-28 leg: the SDK answers server/discover, checks the envelope and the Mcp-Method /
  // Mcp-Name headers, and serves subscriptions/listen; toolhost publishes changes on its bus.
  const modern = createMcpHandler(() => createMcpServer(host, sessions, { seal, principal: 'http' }), {
    legacy: 'reject',
    maxRequestBodySize: maxBody,
    onerror: (error) => host.log.debug(`MCP HTTP (2026-07-28): ${error.message}`),
  })
  const serveModern = toNodeHandler(modern, { onerror: (error: Error) => host.log.error(`MCP HTTP request failed: ${error.message}`) })
  const removeNotifier = sessions.addNotifier(modern.notify)

  let inFlight = 0
  // Draining (SIGTERM): tool calls still being answered, and who waits for them to be none.
  let draining = false
  let callsInFlight = 0
  const onDrained = new Set<() => void>()
  const handleMcp: HttpRoute = async (req, res) => {
    if (draining) {
      res.setHeader('connection', 'close')
      res.setHeader('retry-after', '1')
      return reply(res, 503, 'this toolhost instance is shutting down; send the request again (another instance, or this one once restarted, answers it)')
    }
    let body: unknown
    if (req.method === 'POST') {
      body = await readJsonBody(req, maxBody)
      if (body === TOO_LARGE) return reply(res, 413, `the request body is over ${maxBody} bytes (serve.max_message_bytes); send less per message`)
      if (body === undefined) return reply(res, 400, 'the request body is not JSON')
      if (isToolCall(body)) {
        callsInFlight++
        onceEnded(res, () => {
          if (--callsInFlight === 0) for (const resolve of onDrained) resolve()
        })
      }
    }
    // A request that claims 2026-07-28 goes to the modern leg, even a bad one: it owns those answers.
    if (!(await isLegacyRequest(await toWebRequest(req, body ?? null, { maxRequestBodySize: maxBody }), body, { maxRequestBodySize: maxBody }))) {
      // Each holds a server instance until answered (a listen stream until closed): bounded like sessions.
      const maxRequests = host.config.serve.max_requests
      if (inFlight >= maxRequests) {
        res.setHeader('retry-after', '1')
        return reply(res, 503, `too many requests in flight: ${maxRequests} (serve.max_requests); retry shortly`)
      }
      inFlight++
      onceEnded(res, () => inFlight--)
      return serveModern(req, res, body)
    }
    return handleLegacy(req, res, body)
  }

  const handleLegacy = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const sessionId = req.headers['mcp-session-id']
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined
    if (sessionId !== undefined && !existing) {
      return reply(res, 404, 'Session not found: this mcp-session-id is unknown or ended; start a new session with an initialize request', -32001)
    }
    // A session is its opener's: another authenticated principal (another user of the same OAuth
    // client too) is refused it, and never answered in it.
    if (existing && typeof sessionId === 'string' && owners.get(sessionId) !== ownerOf(req)) {
      return reply(res, 403, 'this mcp-session-id belongs to another authenticated principal; start your own session with an initialize request')
    }
    if (existing && typeof sessionId === 'string') {
      lastSeen.set(sessionId, Date.now())
      open.set(sessionId, (open.get(sessionId) ?? 0) + 1)
      res.once('close', () => {
        open.set(sessionId, (open.get(sessionId) ?? 1) - 1)
        if (transports.has(sessionId)) lastSeen.set(sessionId, Date.now())
      })
      alignProtocolVersion(req, negotiated.get(sessionId))
    }
    if (req.method !== 'POST') {
      if (!existing) return reply(res, 400, 'missing mcp-session-id; start with an initialize request')
      return existing.handleRequest(req, res)
    }
    if (existing) return existing.handleRequest(req, res, body)
    if (!isInitializeRequest(body)) return reply(res, 400, 'missing mcp-session-id; start with an initialize request')
    // Sessions live in memory: a client that opens them without end must not exhaust it.
    const maxSessions = host.config.serve.max_sessions
    if (transports.size >= maxSessions) {
      return reply(res, 503, `too many sessions: ${maxSessions} are open (serve.max_sessions); end one with DELETE, or retry once idle sessions close`)
    }
    const requested = body.params.protocolVersion
    // Made here, so the session's server knows it: its calls' principal is the session (`http:<id>`).
    const newId = randomUUID()
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => newId,
      eventStore: new MemoryEventStore(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        transports.set(id, transport)
        owners.set(id, ownerOf(req))
        lastSeen.set(id, Date.now())
        negotiated.set(id, SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION)
      },
    })
    const server = createMcpServer(host, sessions, { seal, principal: `http:${newId}` })
    sessions.add(server, { era: 'legacy' })
    transport.onclose = () => {
      if (transport.sessionId) {
        transports.delete(transport.sessionId)
        owners.delete(transport.sessionId)
        lastSeen.delete(transport.sessionId)
        open.delete(transport.sessionId)
        negotiated.delete(transport.sessionId)
      }
      sessions.remove(server)
    }
    await server.connect(transport)
    await transport.handleRequest(req, res, body)
  }

  // AUTH (issue 22.3): Host/Origin (DNS rebinding; serve.public_url), resource metadata, bearer tokens on /mcp.
  // Built before listening: a non-loopback serve.host without serve.auth refuses to start here.
  const access = createRequestAccess(host.config.serve, { hostname: options.hostname, file: host.configFile })
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Probes (a load balancer, Kubernetes) carry no token and name the instance, not the public host:
    // answered before the Host and token checks, with nothing but up/ready.
    const probe = PROBES.get(req.url ?? '')
    if (probe !== undefined) return answerProbe(req, res, probe === 'ready' && draining ? 'draining' : probe)
    // AUTH: answered here when refused; else the caller (principal.subject binds MRTR requestState; also req.auth).
    const principal = await access.admit(req, res)
    if (principal === undefined) return
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname === '/mcp') return handleMcp(req, res)
    // Other routes beside /mcp (the console), behind the same Host/Origin check.
    if (options.routes && (await options.routes(req, res))) return
    reply(res, 404, 'not found: the MCP endpoint is /mcp')
  }

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      host.log.error(`MCP HTTP request failed: ${(error as Error).message}`)
      if (!res.headersSent) reply(res, 500, 'internal error')
    })
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => {
      clearInterval(sweep)
      reject(new ToolhostError('E_USAGE', `cannot listen on ${options.hostname}:${options.port} (${error.code ?? error.message}); pick another --http port, or change serve.host in config.yaml`))
    })
    http.listen(options.port, options.hostname, () => resolve())
  })
  const { port } = http.address() as AddressInfo
  const shownHost = options.hostname.includes(':') ? `[${options.hostname}]` : options.hostname
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    async drain(ms) {
      draining = true
      // No new connections; idle keep-alive ones are closed, busy ones end with their answer.
      http.close()
      http.closeIdleConnections()
      if (callsInFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms)
          onDrained.add(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
      onDrained.clear()
      return callsInFlight
    },
    async close() {
      clearInterval(sweep)
      removeNotifier()
      await modern.close().catch(() => {})
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => {})))
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

/** The probe paths: `/healthz` (the process answers: liveness) and `/readyz` (it takes requests: 503 once draining). */
const PROBES = new Map<string, 'live' | 'ready'>([['/healthz', 'live'], ['/readyz', 'ready']])

// GET or HEAD only; the body says the state and nothing else (no version, no host, no count).
function answerProbe(req: IncomingMessage, res: ServerResponse, state: 'live' | 'ready' | 'draining'): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' })
    res.end(JSON.stringify({ status: 'method not allowed: probes are GET or HEAD' }))
    return
  }
  const body = JSON.stringify({ status: state === 'live' ? 'ok' : state })
  res.writeHead(state === 'draining' ? 503 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store', ...(state === 'draining' ? { connection: 'close' } : {}) })
  res.end(req.method === 'HEAD' ? undefined : body)
}

/** Calls `ended` once, when the answer is handed to the socket (finish) or the client goes away (close). */
function onceEnded(res: ServerResponse, ended: () => void): void {
  let done = false
  const settle = (): void => {
    if (done) return
    done = true
    ended()
  }
  res.once('finish', settle)
  res.once('close', settle)
}

/** True when a JSON-RPC message (or a batch) holds a `tools/call` request. */
function isToolCall(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(isToolCall)
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call'
}

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

/**
 * The version a session agreed at initialize decides what its streams get (a priming event and
 * `retry` need 2025-11-25): a request whose `mcp-protocol-version` header names an older supported
 * version is served as the agreed one. A client can only agree to a version it speaks, so it can
 * read what that version sends. (The SDK transport reads the raw headers, so those are the ones set.)
 */
function alignProtocolVersion(req: IncomingMessage, agreed: string | undefined): void {
  const header = req.headers['mcp-protocol-version']
  if (agreed === undefined || typeof header !== 'string' || header >= agreed || !SUPPORTED_PROTOCOL_VERSIONS.includes(header)) return
  req.headers['mcp-protocol-version'] = agreed
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === 'mcp-protocol-version') req.rawHeaders[i + 1] = agreed
  }
}

/** Who sent a request, as a 2025 session is bound to it: the verified token's client id and subject (`req.auth`), else nobody in particular. */
function ownerOf(req: IncomingMessage): string {
  const auth = (req as IncomingMessage & { auth?: { clientId?: string; extra?: { subject?: unknown } } }).auth
  return auth === undefined ? '' : `${auth.clientId ?? ''}\u0000${typeof auth.extra?.subject === 'string' ? auth.extra.subject : ''}`
}
