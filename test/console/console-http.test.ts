/**
 * The console over HTTP (no browser): who gets in (token, cookie, CSRF, Host/Origin), and approvals
 * answered from the console, timed out, or not offered when no console is open.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { attachConsole, type AttachedConsole } from '../../src/console/index.js'
import { createHost, defineHook, defineTool, registry, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { login, openEvents, request } from './console-kit.js'

let root: string
let host: Host | undefined
let hostConsole: AttachedConsole | undefined

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-console-')))
  registry.register(defineTool({ name: 'write_note', description: 'Writes a note.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false }, pathScoped: true, handler: () => 'wrote' }))
})

afterEach(async () => {
  await host?.close()
  host = undefined
  hostConsole = undefined
  registry.clear()
  rmSync(root, { recursive: true, force: true })
})

async function start(permissions: Record<string, unknown> = { mode: 'ask' }): Promise<{ origin: string; url: string }> {
  host = await createHost({ root, loadPlugins: false, log: silentLogger, config: { env_file: '', permissions } })
  hostConsole = await attachConsole(host)
  return { origin: new URL(hostConsole.url).origin, url: hostConsole.url }
}

const ACTION = '/console/api/approvals/a1'

describe('who gets into the console', () => {
  test('a wrong or missing token gets nothing: 401 for the page, its files, the events and the actions', async () => {
    const { origin } = await start()
    const page = await request(`${origin}/`)
    expect(page.status).toBe(401)
    expect(page.body).not.toMatch(/<script|approval|write_note/i)
    expect((await request(`${origin}/?token=not-the-token`)).status).toBe(401)
    expect((await request(`${origin}/?token=`)).status).toBe(401)
    expect((await request(`${origin}/console/console.js`)).status).toBe(401)
    expect((await request(`${origin}/console/events`)).status).toBe(401)
    expect((await request(`${origin}/console/events`, { headers: { cookie: `toolhost-console-${new URL(origin).port}=forged` } })).status).toBe(401)
    const post = await request(`${origin}${ACTION}`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: '{"decision":"allow-once"}' })
    expect(post.status).toBe(401)
  })

  test('the start-up token sets an HttpOnly SameSite=Strict cookie and redirects to drop the token from the address', async () => {
    const { origin, url } = await start()
    const reply = await request(url)
    expect(reply.status).toBe(303)
    expect(reply.headers.location).toBe('/')
    const cookie = reply.headers['set-cookie']![0]!
    expect(cookie).toMatch(new RegExp(`^toolhost-console-${new URL(origin).port}=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=/$`))
    expect(cookie).not.toContain(new URL(url).searchParams.get('token')!) // the session key is not the token
    const page = await request(`${origin}/`, { headers: { cookie: cookie.split(';')[0]! } })
    expect(page.status).toBe(200)
    // A strict CSP, and no inline script: every <script> has a src of this server.
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/)
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/console\/[a-z-]+\.js"/)
      expect(body!.trim()).toBe('')
    }
    expect(page.body).not.toMatch(/\son[a-z]+=|style="/i)
  })

  test('an action needs this console\'s own origin and the CSRF token (403 otherwise); DNS-rebound Host names are refused', async () => {
    const { origin, url } = await start()
    const cookie = await login(url)
    const events = await openEvents(origin, cookie)
    const { csrf } = await events.next<{ csrf: string }>('snapshot')
    const post = (headers: Record<string, string>) => request(`${origin}${ACTION}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, ...headers }, body: '{"decision":"allow-once"}' })
    expect((await post({ origin })).status).toBe(403) // no CSRF header
    expect((await post({ origin, 'x-toolhost-csrf': 'wrong' })).status).toBe(403)
    expect((await post({ origin: 'http://127.0.0.1:1', 'x-toolhost-csrf': csrf })).status).toBe(403) // another local port: same site, not same origin
    expect((await post({ origin: 'https://evil.example', 'x-toolhost-csrf': csrf })).status).toBe(403)
    expect((await post({ origin, 'x-toolhost-csrf': csrf })).status).toBe(404) // allowed through; no such request is waiting
    const rebound = await request(`${origin}/`, { headers: { host: `evil.example:${new URL(origin).port}`, cookie } })
    expect(rebound.status).toBe(403)
    events.close()
  })
})

describe('a console nobody has open costs the host nothing', () => {
  test('it listens only while a page is open: calls made before the first page are not recorded', async () => {
    const { origin, url } = await start({ mode: 'bypass' })
    await host!.run([{ id: 'before', name: 'write_note', arguments: { path: 'a.txt' } }])
    const events = await openEvents(origin, await login(url))
    const snapshot = await events.next<{ calls: Array<{ id: string }> }>('snapshot')
    expect(snapshot.calls).toEqual([])
    await host!.run([{ id: 'after', name: 'write_note', arguments: { path: 'a.txt' } }])
    await events.next('calls', (d: { calls: Array<{ id: string; state: string }> }) => d.calls.some((c) => c.id === 'after' && c.state === 'done'))
    events.close()
  })
})

describe('call details: arguments and result, bounded, secrets blanked out', () => {
  test('a call\'s arguments and result reach the page; requiresEnv values are [value of NAME], in any tool\'s call; long text is cut and says so', async () => {
    const SECRET = 'hk-0123456789-secret'
    const echo = { type: 'object', properties: { url: { type: 'string' }, note: { type: 'string' } }, required: ['url'] } as const
    registry.register(defineTool({ name: 'post_hook', description: 'Posts to a hook.', parameters: echo, requiresEnv: ['HOOK_TOKEN'], readOnly: () => true, handler: (args: { url: string }) => `posted to ${args.url} with ${SECRET}` }))
    registry.register(defineTool({ name: 'echo_back', description: 'Echoes.', parameters: echo, readOnly: () => true, handler: (args: { url: string; note?: string }) => `${args.url} ${args.note ?? ''}` }))
    host = await createHost({ root, loadPlugins: false, log: silentLogger, env: { HOOK_TOKEN: SECRET }, config: { env_file: '', permissions: { mode: 'bypass' } } })
    hostConsole = await attachConsole(host)
    const origin = new URL(hostConsole.url).origin
    const events = await openEvents(origin, await login(hostConsole.url))
    await events.next('snapshot')
    await host.run([
      { id: 'p1', name: 'post_hook', arguments: { url: `https://hooks.test/?t=${SECRET}` } },
      { id: 'e1', name: 'echo_back', arguments: { url: 'https://x.test/', note: `token ${SECRET} then ${'x'.repeat(9000)}` } },
    ])
    type Call = { id: string; arguments?: string; result?: string }
    const { calls } = await events.next<{ calls: Call[] }>('calls', (d) => ['p1', 'e1'].every((id) => d.calls.some((c) => c.id === id && c.result !== undefined)))
    const p1 = calls.find((c) => c.id === 'p1')!
    const e1 = calls.find((c) => c.id === 'e1')!
    expect(p1.arguments).toBe('{"url":"https://hooks.test/?t=[value of HOOK_TOKEN]"}')
    expect(p1.result).toBe('posted to https://hooks.test/?t=[value of HOOK_TOKEN] with [value of HOOK_TOKEN]')
    expect(e1.arguments).toMatch(/^\{"note":"token \[value of HOOK_TOKEN\] then x+… \(\d+ more characters not shown\)$/)
    expect(e1.arguments!.length).toBeLessThan(4100)
    expect(e1.result).toMatch(/more characters not shown\)$/)
    expect(JSON.stringify(calls)).not.toContain(SECRET)
    events.close()
  })
})

describe('approvals from the console', () => {
  test('with a console open, a call that asks (no approver) waits for it; the decision runs the call and is audited as the console\'s', async () => {
    const { origin, url } = await start()
    const cookie = await login(url)
    const events = await openEvents(origin, cookie)
    const { csrf } = await events.next<{ csrf: string }>('snapshot')
    const run = host!.run([{ id: 'w1', name: 'write_note', arguments: { path: 'notes/a.txt' } }])
    const { approvals } = await events.next<{ approvals: Array<{ id: string; callId: string; tool: string; subject: string }> }>('approvals', (d) => d.approvals.length === 1)
    expect(approvals[0]).toMatchObject({ callId: 'w1', tool: 'write_note', subject: 'notes/a.txt' })
    const answer = await request(`${origin}/console/api/approvals/${approvals[0]!.id}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, origin, 'x-toolhost-csrf': csrf }, body: '{"decision":"allow-once"}' })
    expect(answer.status).toBe(200)
    const [result] = await run
    expect(result).toMatchObject({ id: 'w1', ok: true, content: 'wrote' })
    await events.next('calls', (d: { calls: Array<{ id: string; state: string; approval: string }> }) => d.calls.some((c) => c.id === 'w1' && c.state === 'done' && c.approval === 'approved'))
    events.close()
    await host!.close()
    const audit = readFileSync(path.join(root, '.toolhost/audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(audit.at(-1)).toMatchObject({ callId: 'w1', decision: 'allow-once', by: 'person', answeredBy: 'console' })
  })

  test('no one answers within permissions.console_approvals.timeout_ms: denied, and the message says so', async () => {
    const { origin, url } = await start({ mode: 'ask', console_approvals: { enabled: true, timeout_ms: 150 } })
    const events = await openEvents(origin, await login(url))
    await events.next('snapshot')
    const [result] = await host!.run([{ id: 'w1', name: 'write_note', arguments: { path: 'a.txt' } }])
    expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(result!.content).toMatch(/^write_note did not run: it needs approval \(.*\) and no one could be asked \(no one answered in the console within 150 ms: permissions\.console_approvals\.timeout_ms\); nobody refused it\./)
    events.close()
  })

  test('with no console open (or console approvals off), behaviour is as before: denied at once, no one to ask', async () => {
    await start()
    const [closed] = await host!.run([{ id: 'w1', name: 'write_note', arguments: { path: 'a.txt' } }])
    expect(closed).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(closed!.content).toMatch(/no one could be asked.* The user can also approve such calls in toolhost's console while a page of it is open\.$/)
    await host!.close()

    const off = await start({ mode: 'ask', console_approvals: { enabled: false, timeout_ms: 60_000 } })
    const events = await openEvents(off.origin, await login(off.url))
    const snapshot = await events.next<{ approvalsEnabled: boolean }>('snapshot')
    expect(snapshot.approvalsEnabled).toBe(false)
    const [result] = await host!.run([{ id: 'w2', name: 'write_note', arguments: { path: 'a.txt' } }])
    expect(result!.content).toMatch(/no one could be asked/)
    events.close()
    expect(existsSync(path.join(root, 'a.txt'))).toBe(false)
  })
})

describe('calls from the console\'s form (POST /console/api/calls)', () => {
  async function open(permissions: Record<string, unknown>) {
    const { origin, url } = await start(permissions)
    const cookie = await login(url)
    const events = await openEvents(origin, cookie)
    const { csrf } = await events.next<{ csrf: string }>('snapshot')
    const call = (body: unknown, headers: Record<string, string> = { 'x-toolhost-csrf': csrf }) =>
      request(`${origin}/console/api/calls`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, origin, ...headers }, body: JSON.stringify(body) })
    return { call, events }
  }
  const auditLines = () => readFileSync(path.join(root, '.toolhost/audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)

  test('a call runs through the host as the console: its result comes back as the call details show it, and the audit log names the principal', async () => {
    const { call, events } = await open({ mode: 'ask', allow: ['write_note(notes/**)'] })
    const reply = await call({ tool: 'write_note', arguments: { path: 'notes/a.txt' } })
    expect(reply.status).toBe(200)
    expect(JSON.parse(reply.body)).toEqual({ id: 'console-1', tool: 'write_note', ok: true, text: 'wrote' })
    await events.next('calls', (d: { calls: Array<{ id: string; result?: string }> }) => d.calls.some((c) => c.id === 'console-1' && c.result === 'wrote'))
    events.close()
    await host!.close()
    expect(auditLines().find((l) => l.callId === 'console-1')).toMatchObject({ tool: 'write_note', decision: 'allow', principal: 'console' })
  })

  test('it is authorised like any call: a deny rule refuses it, the schema refuses bad arguments, an unknown tool is named', async () => {
    const { call, events } = await open({ mode: 'bypass', deny: ['write_note(secrets/**)'] })
    const denied = JSON.parse((await call({ tool: 'write_note', arguments: { path: 'secrets/k.txt' } })).body)
    expect(denied).toMatchObject({ id: 'console-1', ok: false, code: 'E_DENIED' })
    expect(denied.text).toBe('write_note did not run: the permission rule permissions.deny[0] "write_note(secrets/**)" denies it. To run it, remove or narrow that rule in config.yaml')
    const invalid = JSON.parse((await call({ tool: 'write_note', arguments: { path: 7 } })).body)
    expect(invalid).toMatchObject({ ok: false, code: 'E_ARGS_INVALID' })
    const unknown = JSON.parse((await call({ tool: 'write_nte', arguments: {} })).body)
    expect(unknown).toMatchObject({ ok: false, code: 'E_TOOL_UNKNOWN' })
    expect(unknown.text).toMatch(/write_note/)
    expect(existsSync(path.join(root, 'secrets'))).toBe(false)
    events.close()
  })

  test('its errors are worded for a person (the form\'s reader), whoever the host\'s audience is', async () => {
    const { call, events } = await open({ mode: 'ask', console_approvals: { enabled: false, timeout_ms: 60_000 } })
    const refused = JSON.parse((await call({ tool: 'write_note', arguments: { path: 'a.txt' } })).body)
    expect(refused).toMatchObject({ ok: false, code: 'E_DENIED' })
    expect(refused.text).toContain('no one could be asked; nobody refused it. To allow it: add permissions.allow: ["write_note(a.txt)"] to config.yaml')
    expect(refused.text).not.toContain('Tell the user')
    events.close()
  })

  test('it is an action: without the CSRF header or from another origin it is refused (403) and nothing runs; a body that names no call is 400', async () => {
    const { call, events } = await open({ mode: 'bypass' })
    expect((await call({ tool: 'write_note', arguments: { path: 'a.txt' } }, {})).status).toBe(403)
    expect((await call({ tool: 'write_note', arguments: { path: 'a.txt' } }, { 'x-toolhost-csrf': 'wrong' })).status).toBe(403)
    expect((await call({ arguments: {} })).status).toBe(400)
    expect((await call({ tool: 'write_note', arguments: [1] })).status).toBe(400)
    events.close()
    await host!.close()
    expect(existsSync(path.join(root, '.toolhost/audit.jsonl')) ? auditLines().filter((l) => l.tool === 'write_note') : []).toEqual([])
  })
})

describe('hook decisions in the call details', () => {
  test('each hook\'s decision about a call is on its record: a before-hook\'s denial, an after-hook\'s rewrite', async () => {
    host = await createHost({ root, loadPlugins: false, log: silentLogger, config: { env_file: '', permissions: { mode: 'bypass' } }, hooks: {
      beforeCall: [{ tools: 'write_note', name: 'frozen-notes', run: (call) => (String(call.arguments.path).startsWith('frozen/') ? { decision: 'deny', reason: 'frozen until Monday' } : undefined) }],
      afterCall: [{ tools: 'write_note', name: 'stamp', run: (call) => ({ content: `${call.result!.content} (stamped)` }) }],
    } })
    hostConsole = await attachConsole(host)
    const origin = new URL(hostConsole.url).origin
    const events = await openEvents(origin, await login(hostConsole.url))
    await events.next('snapshot')
    await host.run([
      { id: 'f', name: 'write_note', arguments: { path: 'frozen/a.txt' } },
      { id: 'o', name: 'write_note', arguments: { path: 'open/a.txt' } },
    ])
    type Call = { id: string; result?: string; hooks: Array<{ event: string; hook: string; decision: string; reason: string }> }
    const done = (c: Call | undefined): boolean => c !== undefined && c.hooks.length > 0
    const { calls } = await events.next<{ calls: Call[] }>('calls', (d) => done(d.calls.find((c) => c.id === 'f')) && d.calls.some((c) => c.id === 'o' && c.hooks.length === 2 && c.result !== undefined))
    expect(calls.find((c) => c.id === 'f')!.hooks).toEqual([{ event: 'before_call', hook: 'frozen-notes', decision: 'deny', reason: 'write_note did not run: the hook frozen-notes denied it: frozen until Monday' }])
    expect(calls.find((c) => c.id === 'o')!.hooks.map((h) => `${h.event} ${h.hook} ${h.decision}: ${h.reason}`)).toEqual(['before_call frozen-notes allow: allowed it', 'after_call stamp allow: rewrote the result'])
    expect(calls.find((c) => c.id === 'o')!.result).toBe('wrote (stamped)')
    events.close()
  })
})

describe('limits in force', () => {
  test('a reloaded config.yaml\'s live keys reach open pages at once (a limits event), rate_limits and hooks included', async () => {
    const { origin, url } = await start({ mode: 'bypass' })
    const events = await openEvents(origin, await login(url))
    const { limits } = await events.next<{ limits: Array<{ key: string; value: string }> }>('snapshot')
    expect(limits).toContainEqual({ key: 'rate_limits', value: 'none' })
    expect(limits).toContainEqual({ key: 'hooks', value: 'none' })
    host!.applyLiveConfig({ ...host!.config, dispatch: { ...host!.config.dispatch, max_workers: 3 }, rate_limits: { write_note: { calls: 2, per_ms: 1000 } }, hooks: { before_call: [{ tools: 'write_note', command: 'true' }], after_call: [] } })
    const next = await events.next<{ limits: Array<{ key: string; value: string }> }>('limits')
    expect(next.limits).toContainEqual({ key: 'dispatch.max_workers', value: '3' })
    expect(next.limits).toContainEqual({ key: 'rate_limits.write_note', value: '2 per s' })
    expect(next.limits).toContainEqual({ key: 'hooks', value: 'before_call 1, after_call 0' })
    // A plugin's hook counts too, as its file loads (or goes).
    registry.register(defineHook({ event: 'after_call', tools: 'write_note', name: 'stamp', run: () => undefined }))
    const after = await events.next<{ limits: Array<{ key: string; value: string }> }>('limits', (d) => d.limits.some((l) => l.key === 'hooks' && l.value === 'before_call 1, after_call 1'))
    expect(after.limits).toContainEqual({ key: 'hooks', value: 'before_call 1, after_call 1' })
    events.close()
  })
})
