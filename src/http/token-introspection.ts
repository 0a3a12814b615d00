import { createHash } from 'node:crypto'
import type { JWTPayload } from 'jose'
import { principalOf, type Principal } from './principal.js'

/** The most introspection answers kept; past it the oldest go first. */
const MAX_CACHED = 10_000
/** How long one introspection request may take before the token is answered 503. */
const INTROSPECTION_TIMEOUT_MS = 5_000

/**
 * RFC 7662 token introspection: POSTs the token to the endpoint with the client's credentials
 * (HTTP Basic), and answers the principal of an active token issued for `resource`, undefined for
 * any other, or `unavailable` when the endpoint fails. Answers are reused for `cacheMs`, never past
 * the token's `exp` (by `clock`); tokens are kept only as hashes.
 *
 * @example
 * const introspect = createIntrospector({ url, clientId: 'toolhost', clientSecret }, 'https://tools.example.com/mcp', 60_000)
 */
export function createIntrospector(endpoint: { url: URL; clientId: string; clientSecret: string }, resource: string, cacheMs: number, clock: () => number = Date.now): (token: string) => Promise<Principal | undefined | 'unavailable'> {
  const cache = new Map<string, { until: number; principal: Principal | undefined }>()
  const credentials = Buffer.from(`${encodeURIComponent(endpoint.clientId)}:${encodeURIComponent(endpoint.clientSecret)}`).toString('base64')
  return async (token) => {
    const key = createHash('sha256').update(token).digest('base64')
    const now = clock()
    const cached = cache.get(key)
    if (cached && cached.until > now) return cached.principal ? { ...cached.principal, token } : undefined
    cache.delete(key)
    let claims: JWTPayload & { active?: unknown }
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: { authorization: `Basic ${credentials}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(INTROSPECTION_TIMEOUT_MS),
      })
      if (!response.ok) return 'unavailable'
      claims = (await response.json()) as typeof claims
    } catch {
      return 'unavailable'
    }
    const principal = acceptedPrincipal(claims, resource, token, now)
    const expiry = principal?.expiresAt === undefined ? Infinity : principal.expiresAt * 1000
    if (cacheMs > 0) {
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!)
      cache.set(key, { until: Math.min(now + cacheMs, expiry), principal: principal && { ...principal, token: undefined } })
    }
    return principal
  }
}

function acceptedPrincipal(claims: JWTPayload & { active?: unknown }, resource: string, token: string, now: number): Principal | undefined {
  if (typeof claims !== 'object' || claims === null || claims.active !== true) return undefined
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= now) return undefined
  if (typeof claims.nbf === 'number' && claims.nbf * 1000 > now) return undefined
  // A token issued for another resource is not one for us (when the server says whom it is for).
  if (claims.aud !== undefined && !(Array.isArray(claims.aud) ? claims.aud : [claims.aud]).includes(resource)) return undefined
  return principalOf(claims, token)
}
