import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ToolhostConfig } from '../config/types.js'
import { createBearerVerifier } from './bearer-auth.js'
import { isLoopback, isLoopbackHost, isLoopbackOrigin } from './loopback.js'
import { ANONYMOUS, type Principal } from './principal.js'
import { isMetadataPath, metadataUrlOf, resourceMetadata } from './resource-metadata.js'
import { resolveServeAuth, type ServeAuthSettings } from './serve-auth-settings.js'

/** The one check at the top of HTTP request handling: who may reach the server, and as whom. */
export interface RequestAccess {
  /**
   * Answers the request itself when it may not go on (403 for a foreign Host or Origin, 401/403/503
   * for a token) or when it asks for the resource metadata, and resolves undefined; otherwise
   * resolves the request's principal (`ANONYMOUS` off the protected path or with no `serve.auth`).
   */
  admit(req: IncomingMessage, res: ServerResponse): Promise<Principal | undefined>
  settings: ServeAuthSettings
}

/**
 * The access rules for an HTTP server bound to `hostname`, from `serve` (start-up faults throw
 * `E_CONFIG_INVALID` naming `file` and the key: a non-loopback bind without authentication refuses
 * to start). Host must name this server: a loopback name on a loopback bind, the public URL's host,
 * or the bind address itself; a browser's Origin must be the public URL's origin (or loopback on a
 * loopback bind). Requests to `protectedPath` need a bearer token when `serve.auth` is configured;
 * a verified one is also set as `req.auth` (the MCP SDK hands it to handlers as `authInfo`).
 *
 * @example
 * const access = createRequestAccess(host.config.serve, { hostname: '0.0.0.0', file: host.configFile })
 * const principal = await access.admit(req, res)
 * if (principal === undefined) return // answered
 */
export function createRequestAccess(serve: ToolhostConfig['serve'], where: { hostname: string; file: string | undefined; env?: NodeJS.ProcessEnv; protectedPath?: string }): RequestAccess {
  const settings = resolveServeAuth(serve, where)
  const verify = settings.enabled ? createBearerVerifier(settings) : undefined
  const protectedPath = where.protectedPath ?? '/mcp'
  const loopbackBind = isLoopback(where.hostname)
  const bindIsWildcard = ['0.0.0.0', '::', '[::]'].includes(where.hostname)
  const publicUrl = settings.resource

  const hostAccepted = (header: string | undefined, localPort: number): boolean => {
    if (loopbackBind && isLoopbackHost(header, localPort)) return true
    if (header === undefined || header === '' || /[/?#@\s]/.test(header)) return false
    let url: URL
    try {
      url = new URL(`${publicUrl?.protocol ?? 'http:'}//${header}`)
    } catch {
      return false
    }
    if (publicUrl && url.host === publicUrl.host) return true
    const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port
    return !bindIsWildcard && url.hostname.replace(/^\[(.*)\]$/, '$1') === where.hostname.replace(/^\[(.*)\]$/, '$1') && port === String(localPort)
  }
  const originAccepted = (origin: string | undefined): boolean =>
    origin === undefined || (publicUrl !== undefined && origin === publicUrl.origin) || (loopbackBind && isLoopbackOrigin(origin))

  return {
    settings,
    async admit(req, res) {
      if (!hostAccepted(req.headers.host, req.socket.localPort ?? 0) || !originAccepted(req.headers.origin)) {
        refuse(res, 403, undefined, `refused: Host ${JSON.stringify(req.headers.host)} / Origin ${JSON.stringify(req.headers.origin)} is not this server${publicUrl ? ` (serve.public_url is ${publicUrl.href})` : ''}`)
        return undefined
      }
      if (!verify) return ANONYMOUS
      // Without serve.public_url (a loopback bind), the resource is this server as the request named it.
      const resource = publicUrl ?? new URL(protectedPath, `http://${req.headers.host!}`)
      const pathname = new URL(req.url ?? '/', 'http://localhost').pathname
      if (isMetadataPath(pathname, resource)) {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300', 'access-control-allow-origin': '*' })
        res.end(JSON.stringify(resourceMetadata(settings, resource)))
        return undefined
      }
      if (pathname !== protectedPath) return ANONYMOUS
      const verdict = await verify(req, metadataUrlOf(resource))
      if ('refusal' in verdict) {
        refuse(res, verdict.refusal.status, verdict.refusal.wwwAuthenticate, verdict.refusal.message)
        return undefined
      }
      const { principal } = verdict
      ;(req as IncomingMessage & { auth?: unknown }).auth = { token: principal.token, clientId: principal.clientId ?? '', scopes: principal.scopes, expiresAt: principal.expiresAt, resource, extra: { subject: principal.subject } }
      return principal
    },
  }
}

function refuse(res: ServerResponse, status: number, wwwAuthenticate: string | undefined, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', ...(wwwAuthenticate ? { 'www-authenticate': wwwAuthenticate } : {}) })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}
