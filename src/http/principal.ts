import type { JWTPayload } from 'jose'

/** Who a verified bearer token speaks for: what MRTR requestState and sessions are bound to. */
export interface Principal {
  /** The token's `sub` (for the static token, `static-token`; unauthenticated loopback, ``). */
  subject: string
  scopes: string[]
  clientId: string | undefined
  /** Seconds since the epoch, when the token says. */
  expiresAt: number | undefined
  /** The token itself (the MCP SDK's AuthInfo carries it); undefined when none was needed. */
  token: string | undefined
}

/** The principal of a request on a loopback server with no `serve.auth`. */
export const ANONYMOUS: Principal = Object.freeze({ subject: '', scopes: [], clientId: undefined, expiresAt: undefined, token: undefined })

/** A principal from verified JWT or introspection claims (`scope` as RFC 8693/7662, or `scp`). */
export function principalOf(claims: JWTPayload, token: string): Principal {
  const scope = claims.scope ?? claims.scp
  const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : Array.isArray(scope) ? scope.filter((s): s is string => typeof s === 'string') : []
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : undefined
  return { subject: claims.sub ?? clientId ?? '', scopes, clientId, expiresAt: claims.exp, token }
}
