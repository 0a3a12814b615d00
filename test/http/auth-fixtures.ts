// Local servers for the authentication tests, all on 127.0.0.1: a JWKS (keys made with jose), an
// RFC 7662 introspection endpoint, and a plain HTTP server whose every request goes through
// createRequestAccess (answering 200 with the principal when admitted).
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose'
import { defaultConfig } from '../../src/config/defaults.js'
import type { ToolhostConfig } from '../../src/config/types.js'
import { createRequestAccess } from '../../src/http/request-access.js'

export const RESOURCE = 'https://tools.example.test/mcp'
export const ISSUER = 'https://auth.example.test'

export interface Listening {
  url: string
  port: number
  server: Server
  close(): Promise<void>
}

export async function listen(handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void, hostname = '127.0.0.1'): Promise<Listening> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, hostname, () => resolve()))
  const { port } = server.address() as AddressInfo
  const shown = hostname.includes(':') ? `[${hostname}]` : hostname
  return {
    url: `http://${shown}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A JWKS server with one signing key, and a signer for it (and for a key the JWKS does not hold). */
export async function startJwks(): Promise<Listening & { jwksUrl: string; sign(claims: JWTPayload, options?: { foreignKey?: boolean; expiresIn?: string | number }): Promise<string> }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  const foreign = await generateKeyPair('ES256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }
  const server = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ keys: [jwk] }))
  })
  return {
    ...server,
    jwksUrl: `${server.url}/jwks.json`,
    async sign(claims, options = {}) {
      const jwt = new SignJWT({ iss: ISSUER, aud: RESOURCE, sub: 'alice', ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' }).setIssuedAt()
      if (claims.exp === undefined) jwt.setExpirationTime(options.expiresIn ?? '5m')
      return jwt.sign(options.foreignKey ? foreign.privateKey : privateKey)
    },
  }
}

/** An introspection endpoint answering from `tokens` (token → claims), counting its calls. */
export async function startIntrospection(tokens: Record<string, Record<string, unknown>>, credentials = { id: 'toolhost', secret: 's3cret' }): Promise<Listening & { calls: () => number; bodies: string[] }> {
  let calls = 0
  const bodies: string[] = []
  const expected = `Basic ${Buffer.from(`${credentials.id}:${credentials.secret}`).toString('base64')}`
  const server = await listen((req, res) => {
    calls += 1
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      bodies.push(body)
      if (req.method !== 'POST' || req.headers.authorization !== expected) {
        res.writeHead(401, { 'content-type': 'application/json' })
        res.end('{"error":"invalid_client"}')
        return
      }
      const token = new URLSearchParams(body).get('token') ?? ''
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(tokens[token] ?? { active: false }))
    })
  })
  return { ...server, calls: () => calls, bodies }
}

/** `serve` with `auth` and `public_url` over the defaults. */
export function serveConfig(auth: Partial<ToolhostConfig['serve']['auth']>, serve: Partial<Omit<ToolhostConfig['serve'], 'auth'>> = {}): ToolhostConfig['serve'] {
  const base = defaultConfig().serve
  return { ...base, public_url: RESOURCE, ...serve, auth: { ...base.auth, ...auth } }
}

/** A server admitting every request through createRequestAccess; admitted ones get 200 and their principal. */
export async function startGuarded(serve: ToolhostConfig['serve'], options: { hostname?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Listening> {
  const hostname = options.hostname ?? '127.0.0.1'
  const access = createRequestAccess(serve, { hostname, file: 'config.yaml', env: options.env ?? {} })
  return listen((req, res) => {
    access.admit(req, res).then(
      (principal) => {
        if (principal === undefined) return
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ principal: { ...principal, token: undefined }, auth: (req as IncomingMessage & { auth?: { extra?: unknown } }).auth?.extra }))
      },
      (error: unknown) => {
        res.writeHead(500)
        res.end(String(error))
      },
    )
  }, hostname)
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  json: () => any
}

/** One request to `server` (at 127.0.0.1 or the address given) with a Host header chosen freely. */
export function send(target: { port: number }, options: { path?: string; method?: string; headers?: Record<string, string>; address?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: options.address ?? '127.0.0.1', port: target.port, path: options.path ?? '/mcp', method: options.method ?? 'POST', headers: { host: 'tools.example.test', ...options.headers } }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }))
    })
    req.on('error', reject)
    req.end(options.method === 'GET' ? undefined : '{}')
  })
}
