import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose'
import { principalOf, type Principal } from './principal.js'
import type { ServeAuthSettings } from './serve-auth-settings.js'
import { createIntrospector } from './token-introspection.js'

/** A request that may not proceed: the status, its `WWW-Authenticate` header, and why. */
export interface AuthRefusal {
  status: 401 | 403 | 503
  wwwAuthenticate: string | undefined
  message: string
}

export type BearerVerdict = { principal: Principal } | { refusal: AuthRefusal }

/**
 * Verifies the bearer token of a request as an OAuth 2.1 resource server (MCP authorization): the
 * static token (constant-time), a JWT against the JWKS (signature, `iss`, `aud` = the resource,
 * `exp`/`nbf`), or introspection (RFC 7662); then the required scopes. A missing or bad token is a
 * 401 naming the resource metadata, a missing scope a 403 `insufficient_scope`, a verifier that
 * cannot be reached a 503.
 *
 * @example
 * const verify = createBearerVerifier(settings)
 * const verdict = await verify(req, 'https://tools.example.com/.well-known/oauth-protected-resource/mcp')
 */
export function createBearerVerifier(settings: ServeAuthSettings): (req: IncomingMessage, metadataUrl: string) => Promise<BearerVerdict> {
  const jwks = settings.jwksUrl ? createRemoteJWKSet(settings.jwksUrl) : undefined
  const introspect = settings.introspection ? createIntrospector(settings.introspection, settings.resource!.href, settings.cacheMs) : undefined
  const staticDigest = settings.staticToken === undefined ? undefined : digest(settings.staticToken)
  const scopeParam = settings.scopes.length > 0 ? `, scope="${settings.scopes.join(' ')}"` : ''
  const challenge = (metadataUrl: string, error?: string, description?: string): string =>
    `Bearer resource_metadata="${metadataUrl}"${scopeParam}${error ? `, error="${error}", error_description="${description!.replace(/["\\]/g, '')}"` : ''}`
  const unauthorized = (metadataUrl: string, description: string): BearerVerdict => ({ refusal: { status: 401, wwwAuthenticate: challenge(metadataUrl, 'invalid_token', description), message: `unauthorized: ${description}` } })

  const identify = async (token: string, metadataUrl: string): Promise<BearerVerdict> => {
    if (staticDigest && timingSafeEqual(digest(token), staticDigest)) {
      return { principal: { subject: 'static-token', scopes: settings.scopes, clientId: undefined, expiresAt: undefined, token } }
    }
    if (jwks && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer: settings.authorizationServers, audience: settings.resource!.href, requiredClaims: ['exp'] })
        return { principal: principalOf(payload, token) }
      } catch (error) {
        if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid || !(error instanceof joseErrors.JOSEError)) {
          return { refusal: { status: 503, wwwAuthenticate: undefined, message: `cannot verify the token now: the JWKS at ${settings.jwksUrl!.href} cannot be read (${(error as Error).message}); retry later` } }
        }
        return unauthorized(metadataUrl, describeJoseError(error))
      }
    }
    if (introspect) {
      const answer = await introspect(token)
      if (answer === 'unavailable') return { refusal: { status: 503, wwwAuthenticate: undefined, message: 'cannot verify the token now: the introspection endpoint did not answer; retry later' } }
      return answer === undefined ? unauthorized(metadataUrl, 'the token is not active') : { principal: answer }
    }
    return unauthorized(metadataUrl, 'the token is not valid here')
  }

  return async (req, metadataUrl) => {
    const header = req.headers.authorization
    const token = typeof header === 'string' ? /^Bearer +([\w~+/.-]+=*) *$/i.exec(header)?.[1] : undefined
    if (token === undefined) {
      return { refusal: { status: 401, wwwAuthenticate: challenge(metadataUrl), message: `unauthorized: send an OAuth access token (Authorization: Bearer …); how to get one: ${metadataUrl}` } }
    }
    const verdict = await identify(token, metadataUrl)
    if ('refusal' in verdict) return verdict
    const missing = settings.scopes.filter((scope) => !verdict.principal.scopes.includes(scope))
    if (missing.length > 0) {
      return { refusal: { status: 403, wwwAuthenticate: challenge(metadataUrl, 'insufficient_scope', `needs scope ${missing.join(' ')}`), message: `forbidden: the token lacks scope ${missing.join(' ')}` } }
    }
    return verdict
  }
}

function describeJoseError(error: InstanceType<typeof joseErrors.JOSEError>): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired'
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted here (${error.reason})`
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey) return 'the token signature does not verify'
  return 'the token is not a valid JWT'
}

// Both sides hashed to the same length, so the comparison takes the same time whatever was sent.
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
