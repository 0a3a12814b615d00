// Bearer tokens on /mcp as the MCP authorization spec has a resource server verify them (issue 22,
// item 3): JWTs against a local JWKS, RFC 7662 introspection against a local endpoint, a static
// token; a missing or bad token is 401 naming the resource metadata, a missing scope 403.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ISSUER, RESOURCE, send, serveConfig, startGuarded, startIntrospection, startJwks, type Listening } from './auth-fixtures.js'

const METADATA = 'https://tools.example.test/.well-known/oauth-protected-resource/mcp'
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe('JWT access tokens verified against a JWKS', () => {
  let jwks: Awaited<ReturnType<typeof startJwks>>
  let guarded: Listening
  beforeAll(async () => {
    jwks = await startJwks()
    guarded = await startGuarded(serveConfig({ jwks_url: jwks.jwksUrl, authorization_servers: [ISSUER], scopes: ['tools:call'] }))
  })
  afterAll(async () => {
    await guarded.close()
    await jwks.close()
  })

  test('a valid token is admitted as its principal (subject, scopes, client id), also set as req.auth', async () => {
    const answer = await send(guarded, { headers: bearer(await jwks.sign({ scope: 'tools:call other', client_id: 'cli-1' })) })
    expect(answer.status).toBe(200)
    expect(answer.json().principal).toMatchObject({ subject: 'alice', scopes: ['tools:call', 'other'], clientId: 'cli-1' })
    expect(answer.json().auth).toEqual({ subject: 'alice' })
  })

  test('no token: 401 with WWW-Authenticate naming the resource metadata', async () => {
    const answer = await send(guarded)
    expect(answer.status).toBe(401)
    expect(answer.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA}", scope="tools:call"`)
  })

  test.each([
    ['expired', () => jwks.sign({ scope: 'tools:call', exp: Math.floor(Date.now() / 1000) - 120 }), /expired/],
    ['for another audience', () => jwks.sign({ scope: 'tools:call', aud: 'https://other.example.test/mcp' }), /aud/],
    ['from another issuer', () => jwks.sign({ scope: 'tools:call', iss: 'https://evil.example.test' }), /iss/],
    ['not yet valid', () => jwks.sign({ scope: 'tools:call', nbf: Math.floor(Date.now() / 1000) + 600 }), /nbf/],
    ['signed by a key the JWKS does not hold', () => jwks.sign({ scope: 'tools:call' }, { foreignKey: true }), /signature/],
    ['with its payload altered', async () => {
      const [head, , sig] = (await jwks.sign({ scope: 'tools:call' })).split('.')
      return `${head}.${Buffer.from(JSON.stringify({ iss: ISSUER, aud: RESOURCE, sub: 'root', scope: 'tools:call', exp: 9999999999 })).toString('base64url')}.${sig}`
    }, /signature/],
    ['not a JWT at all', async () => 'opaque-token-value', /not valid/],
  ])('a token %s: 401 invalid_token with the metadata', async (_why, make, reason) => {
    const answer = await send(guarded, { headers: bearer(await make()) })
    expect(answer.status).toBe(401)
    const challenge = String(answer.headers['www-authenticate'])
    expect(challenge).toContain(`resource_metadata="${METADATA}"`)
    expect(challenge).toContain('error="invalid_token"')
    expect(challenge).toMatch(reason)
  })

  test('a valid token without the required scope: 403 insufficient_scope', async () => {
    const answer = await send(guarded, { headers: bearer(await jwks.sign({ scope: 'other' })) })
    expect(answer.status).toBe(403)
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer resource_metadata=".*", scope="tools:call", error="insufficient_scope"/)
    expect(answer.json().error.message).toContain('tools:call')
  })

  test('the protected resource metadata names the resource, the authorization server and the scopes', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const answer = await send(guarded, { path, method: 'GET' })
      expect(answer.status).toBe(200)
      expect(answer.json()).toEqual({ resource: RESOURCE, authorization_servers: [ISSUER], scopes_supported: ['tools:call'], bearer_methods_supported: ['header'], resource_name: 'toolhost' })
    }
  })

  test('paths other than /mcp pass without a token (the console has its own)', async () => {
    expect((await send(guarded, { path: '/', method: 'GET' })).status).toBe(200)
  })
})

test('a JWKS that cannot be read answers 503, not 401 (the token may be good)', async () => {
  const jwks = await startJwks()
  const token = await jwks.sign({})
  await jwks.close()
  const guarded = await startGuarded(serveConfig({ jwks_url: jwks.jwksUrl, authorization_servers: [ISSUER] }))
  try {
    const answer = await send(guarded, { headers: bearer(token) })
    expect(answer.status).toBe(503)
  } finally {
    await guarded.close()
  }
})

describe('token introspection (RFC 7662)', () => {
  const now = () => Math.floor(Date.now() / 1000)
  let endpoint: Awaited<ReturnType<typeof startIntrospection>>
  const env = { INTROSPECT_SECRET: 's3cret' }
  const tokens: Record<string, Record<string, unknown>> = {}
  beforeAll(async () => {
    Object.assign(tokens, {
      good: { active: true, sub: 'bob', scope: 'tools:call', client_id: 'c2', aud: RESOURCE, exp: now() + 600 },
      other: { active: true, sub: 'bob', scope: 'tools:call', aud: 'https://other.example.test/mcp', exp: now() + 600 },
      lapsed: { active: true, sub: 'bob', scope: 'tools:call', exp: now() - 5 },
      narrow: { active: true, sub: 'dave', scope: 'read', exp: now() + 600 },
    })
    endpoint = await startIntrospection(tokens)
  })
  afterAll(() => endpoint.close())
  const config = (auth = {}) => serveConfig({ introspection_url: `${endpoint.url}/introspect`, client_id: 'toolhost', client_secret_env: 'INTROSPECT_SECRET', scopes: ['tools:call'], cache_ms: 60_000, ...auth })

  test('an active token for this resource is admitted; the answer is cached', async () => {
    const guarded = await startGuarded(config(), { env })
    try {
      const before = endpoint.calls()
      const first = await send(guarded, { headers: bearer('good') })
      expect(first.status).toBe(200)
      expect(first.json().principal).toMatchObject({ subject: 'bob', scopes: ['tools:call'], clientId: 'c2' })
      expect(endpoint.bodies.at(-1)).toBe('token=good&token_type_hint=access_token')
      expect((await send(guarded, { headers: bearer('good') })).status).toBe(200)
      expect(endpoint.calls() - before).toBe(1)
    } finally {
      await guarded.close()
    }
  })

  test.each(['unknown', 'other', 'lapsed'])('token %s (inactive, another audience, past exp): 401', async (token) => {
    const guarded = await startGuarded(config(), { env })
    try {
      const answer = await send(guarded, { headers: bearer(token) })
      expect(answer.status).toBe(401)
      expect(answer.headers['www-authenticate']).toContain('error="invalid_token"')
    } finally {
      await guarded.close()
    }
  })

  test('an active token without the scope: 403', async () => {
    const guarded = await startGuarded(config(), { env })
    try {
      expect((await send(guarded, { headers: bearer('narrow') })).status).toBe(403)
    } finally {
      await guarded.close()
    }
  })

  test('wrong client credentials at the endpoint: 503 (cannot verify), nothing admitted', async () => {
    const guarded = await startGuarded(config(), { env: { INTROSPECT_SECRET: 'wrong' } })
    try {
      expect((await send(guarded, { headers: bearer('good') })).status).toBe(503)
    } finally {
      await guarded.close()
    }
  })
})

describe('a static token from an environment variable', () => {
  const token = 'x'.repeat(20) + 'static-token-value-0123456789'
  let guarded: Listening
  beforeAll(async () => {
    guarded = await startGuarded(serveConfig({ static_token_env: 'TOOLHOST_TOKEN' }, { public_url: '' }), { env: { TOOLHOST_TOKEN: token } })
  })
  afterAll(() => guarded.close())

  test('the token is admitted; any other, or none, is 401 naming the metadata on this server', async () => {
    const host = `127.0.0.1:${guarded.port}`
    const ok = await send(guarded, { headers: { host, ...bearer(token) } })
    expect(ok.status).toBe(200)
    expect(ok.json().principal.subject).toBe('static-token')
    for (const headers of [bearer(token.slice(0, -1)), bearer(`${token}x`), { authorization: token }, {}]) {
      const refused = await send(guarded, { headers: { host, ...headers } })
      expect(refused.status).toBe(401)
      expect(refused.headers['www-authenticate']).toContain(`resource_metadata="http://${host}/.well-known/oauth-protected-resource/mcp"`)
    }
  })
})
