import { ToolhostError } from '../contract/errors.js'
import type { ToolhostConfig } from '../config/types.js'
import { isLoopback } from './loopback.js'

/** `serve.auth` checked and resolved at start-up: URLs parsed, secrets read from their variables. */
export interface ServeAuthSettings {
  /** The protected resource (`serve.public_url`): a JWT's `aud`, the metadata's `resource`. */
  resource: URL | undefined
  authorizationServers: string[]
  jwksUrl: URL | undefined
  introspection: { url: URL; clientId: string; clientSecret: string } | undefined
  staticToken: string | undefined
  scopes: string[]
  cacheMs: number
  /** True when any mechanism is configured: /mcp then needs a bearer token, on any address. */
  enabled: boolean
}

/** The shortest static token accepted: a shorter shared secret can be guessed. */
export const MIN_STATIC_TOKEN_CHARS = 32

/**
 * Checks `serve` for serving HTTP on `hostname`: a non-loopback address needs `serve.public_url` and
 * one way to verify tokens (`jwks_url`, `introspection_url` or `static_token_env`), else it refuses
 * to start. Every fault is found before it throws: one `E_CONFIG_INVALID` whose lines each name
 * `file` and a key, so a user fixes them all before the next start.
 *
 * @example
 * const settings = resolveServeAuth(host.config.serve, { file: 'config.yaml', hostname: '0.0.0.0' })
 */
export function resolveServeAuth(serve: ToolhostConfig['serve'], where: { file: string | undefined; hostname: string; env?: NodeJS.ProcessEnv }): ServeAuthSettings {
  const env = where.env ?? process.env
  const file = where.file ?? 'config.yaml'
  const faults: string[] = []
  const fault = (key: string, what: string): undefined => void faults.push(`${file}: key \`${key}\`: ${what}`)
  const auth = serve.auth
  const resource = parseUrl(serve.public_url, 'serve.public_url', fault)
  const jwksUrl = parseUrl(auth.jwks_url, 'serve.auth.jwks_url', fault)
  const introspectionUrl = parseUrl(auth.introspection_url, 'serve.auth.introspection_url', fault)
  for (const [i, server] of auth.authorization_servers.entries()) parseUrl(server, `serve.auth.authorization_servers[${i}]`, fault)
  const secretOf = (key: string, name: string): string | undefined => {
    const value = env[name]
    if (value === undefined || value === '') return fault(key, `the environment variable ${name} is not set (or empty); set it (or put it in the env_file), never in config.yaml`)
    return value
  }
  let staticToken: string | undefined
  if (auth.static_token_env !== '') {
    staticToken = secretOf('serve.auth.static_token_env', auth.static_token_env)
    if (staticToken !== undefined && staticToken.length < MIN_STATIC_TOKEN_CHARS) fault('serve.auth.static_token_env', `the token in ${auth.static_token_env} has ${staticToken.length} characters; use at least ${MIN_STATIC_TOKEN_CHARS} random ones (e.g. openssl rand -hex 32)`)
  }
  let introspection: ServeAuthSettings['introspection']
  if (introspectionUrl) {
    if (auth.client_id === '') fault('serve.auth.client_id', 'token introspection needs the client id toolhost authenticates as at the introspection endpoint')
    if (auth.client_secret_env === '') fault('serve.auth.client_secret_env', 'token introspection needs the name of the environment variable holding the client secret')
    const clientSecret = auth.client_secret_env === '' ? undefined : secretOf('serve.auth.client_secret_env', auth.client_secret_env)
    if (clientSecret !== undefined) introspection = { url: introspectionUrl, clientId: auth.client_id, clientSecret }
  }
  // What was asked for counts even when it is faulty (told above): no second fault for the same key.
  const verifies = auth.jwks_url !== '' || auth.introspection_url !== ''
  const hasResource = serve.public_url !== ''
  if (verifies && !hasResource) fault('serve.public_url', 'tokens are verified for a resource: set the URL clients reach /mcp at (e.g. https://tools.example.com/mcp); it is the audience tokens must name')
  if (auth.jwks_url !== '' && auth.authorization_servers.length === 0) fault('serve.auth.authorization_servers', 'JWT verification needs the issuer(s) whose tokens are accepted (a JWT\'s iss must be one of them)')
  if (!isLoopback(where.hostname)) {
    if (!verifies && auth.static_token_env === '') fault('serve.auth', `serve.host ${where.hostname} is not a loopback address, and serving beyond loopback needs authentication: set serve.auth.jwks_url, serve.auth.introspection_url or serve.auth.static_token_env (docs/mcp.md#authentication), or bind serve.host: 127.0.0.1`)
    if (!hasResource && !verifies) fault('serve.public_url', `serve.host ${where.hostname} is not a loopback address: set the URL clients reach /mcp at (e.g. https://tools.example.com/mcp); only that Host and Origin are accepted`)
  }
  if (faults.length > 0) throw new ToolhostError('E_CONFIG_INVALID', faults.join('\n'))
  const enabled = jwksUrl !== undefined || introspection !== undefined || staticToken !== undefined
  return { resource, authorizationServers: auth.authorization_servers, jwksUrl, introspection, staticToken, scopes: auth.scopes, cacheMs: auth.cache_ms, enabled }
}

function parseUrl(text: string, key: string, fault: (key: string, what: string) => undefined): URL | undefined {
  if (text === '') return undefined
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return fault(key, `${JSON.stringify(text)} is not a URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fault(key, `${JSON.stringify(text)} is not an http(s) URL`)
  if (url.hash !== '' || url.username !== '' || url.password !== '') return fault(key, `${JSON.stringify(text)} must carry no fragment and no credentials`)
  return url
}
