// Introspection answers are reused briefly and never past the token's exp (issue 22, item 3), on a
// clock the test moves, against a local RFC 7662 endpoint.
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createIntrospector } from '../../src/http/token-introspection.js'
import { RESOURCE, startIntrospection } from './auth-fixtures.js'

let endpoint: Awaited<ReturnType<typeof startIntrospection>>
const T0 = 1_800_000_000_000 // ms; the tokens' exp below are seconds after it
beforeAll(async () => {
  endpoint = await startIntrospection({
    short: { active: true, sub: 'carol', scope: 'a', exp: T0 / 1000 + 10 },
    long: { active: true, sub: 'dave', scope: 'a', exp: T0 / 1000 + 3600 },
  })
})
afterAll(() => endpoint.close())

function introspector(cacheMs: number) {
  let now = T0
  const introspect = createIntrospector({ url: new URL(`${endpoint.url}/introspect`), clientId: 'toolhost', clientSecret: 's3cret' }, RESOURCE, cacheMs, () => now)
  return { introspect, advance: (ms: number) => (now += ms) }
}

test('an answer is reused within cache_ms, then asked again', async () => {
  const { introspect, advance } = introspector(60_000)
  const before = endpoint.calls()
  expect(await introspect('long')).toMatchObject({ subject: 'dave', scopes: ['a'], token: 'long' })
  advance(59_000)
  expect(await introspect('long')).toMatchObject({ subject: 'dave', token: 'long' })
  expect(endpoint.calls() - before).toBe(1)
  advance(2_000)
  await introspect('long')
  expect(endpoint.calls() - before).toBe(2)
})

test('a cached answer is never used past the token\'s exp, even within cache_ms', async () => {
  const { introspect, advance } = introspector(60_000)
  expect(await introspect('short')).toMatchObject({ subject: 'carol' })
  advance(11_000) // past exp, well within cache_ms; the endpoint (not moved in time) still says active
  const before = endpoint.calls()
  await introspect('short')
  expect(endpoint.calls() - before, 'asked the endpoint again').toBe(1)
})

test('the endpoint saying active for a token past exp (by our clock) is not believed', async () => {
  const { introspect, advance } = introspector(0)
  advance(20_000)
  expect(await introspect('short')).toBeUndefined()
})

test('cache_ms 0 asks every time; an unknown token is undefined; an endpoint that is gone is unavailable', async () => {
  const { introspect } = introspector(0)
  const before = endpoint.calls()
  await introspect('long')
  await introspect('long')
  expect(endpoint.calls() - before).toBe(2)
  expect(await introspect('nope')).toBeUndefined()
  const gone = createIntrospector({ url: new URL('http://127.0.0.1:1/introspect'), clientId: 'x', clientSecret: 'y' }, RESOURCE, 0)
  expect(await gone('long')).toBe('unavailable')
})
