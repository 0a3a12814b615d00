import type { IncomingMessage, ServerResponse } from 'node:http'
import { readJsonBody, TOO_LARGE } from '../http/http-body.js'
import type { Asset } from './console-assets.js'
import type { ConsoleAuth } from './console-auth.js'
import type { ConsoleDecision } from './console-approvals.js'
import type { ConsoleHub } from './console-hub.js'

/** Handles a request if it is the console's (`/`, `/console/…`); false lets the server go on (e.g. to `/mcp`). */
export type ConsoleRoutes = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

/** Sent with every console response: no inline script or style, nothing from elsewhere, no framing. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
}

const MAX_ACTION_BYTES = 16 * 1024
// A call's arguments may be large; the host's own limits.max_argument_chars still applies to them.
const MAX_CALL_BYTES = 1024 * 1024
const DECISIONS: ReadonlySet<string> = new Set(['allow-once', 'allow-session', 'deny'])
const NO_SESSION_PAGE = page('toolhost console', 'Open the console with the address toolhost printed when it started (it carries the token). Without it, nothing here is shown.')
const WRONG_TOKEN_PAGE = page('toolhost console: wrong token', 'This token does not open this console. Use the address toolhost printed when it started; a restarted host prints a new one.')

/**
 * The console's routes. `GET /?token=…` with the start-up token sets the session cookie and
 * redirects to `/` (so the token leaves the address bar and history); every other route needs the
 * cookie (401 without it), and actions (`POST /console/api/…`) also need this server's Origin and
 * the CSRF header (403 without them).
 *
 * @example
 * const routes = createConsoleRoutes(hub, auth, loadConsoleAssets())
 * if (!(await routes(req, res))) handleMcp(req, res)
 */
export function createConsoleRoutes(hub: ConsoleHub, auth: ConsoleAuth, assets: ReadonlyMap<string, Asset>): ConsoleRoutes {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://console.invalid')
    const { pathname } = url
    if (pathname === '/favicon.ico') {
      // Browsers ask for it on their own; an empty answer keeps their console free of 404s.
      res.writeHead(204, SECURITY_HEADERS)
      res.end()
      return true
    }
    if (pathname !== '/' && pathname !== '/console' && !pathname.startsWith('/console/')) return false
    if (pathname === '/' && req.method === 'GET' && url.searchParams.has('token')) {
      if (!auth.tokenMatches(url.searchParams.get('token'))) {
        sendHtml(res, 401, WRONG_TOKEN_PAGE)
        return true
      }
      res.writeHead(303, { ...SECURITY_HEADERS, 'set-cookie': auth.sessionCookie(req), location: '/' })
      res.end()
      return true
    }
    if (!auth.hasSession(req)) {
      if (pathname === '/') sendHtml(res, 401, NO_SESSION_PAGE)
      else sendJson(res, 401, { error: 'no console session: open the address toolhost printed at start-up' })
      return true
    }
    if (req.method === 'POST' && pathname.startsWith('/console/api/')) {
      await handleAction(req, res, pathname, hub, auth)
      return true
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: `${req.method} is not allowed here` })
      return true
    }
    if (pathname === '/console/events' && req.method === 'GET') {
      await hub.open(res, { ...SECURITY_HEADERS }, auth.csrf)
      return true
    }
    const asset = assets.get(pathname === '/' ? 'index.html' : pathname.slice('/console/'.length))
    if (!asset) sendJson(res, 404, { error: 'not found' })
    else {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type, 'content-length': asset.body.length })
      res.end(req.method === 'HEAD' ? undefined : asset.body)
    }
    return true
  }
}

async function handleAction(req: IncomingMessage, res: ServerResponse, pathname: string, hub: ConsoleHub, auth: ConsoleAuth): Promise<void> {
  if (!auth.isSameOriginAction(req)) return sendJson(res, 403, { error: 'refused: an action needs this console\'s own origin and its CSRF header' })
  if (pathname === '/console/api/calls') return handleCall(req, res, hub)
  const body = await readSmallJson(req)
  if (body === undefined) return sendJson(res, 400, { error: 'the body must be a JSON object of at most 16 KB' })
  const approval = /^\/console\/api\/approvals\/([A-Za-z0-9_-]{1,64})$/.exec(pathname)
  if (approval) {
    const { decision, message } = body as { decision?: unknown; message?: unknown }
    if (typeof decision !== 'string' || !DECISIONS.has(decision)) return sendJson(res, 400, { error: 'decision must be allow-once, allow-session or deny' })
    if (message !== undefined && typeof message !== 'string') return sendJson(res, 400, { error: 'message must be a string' })
    const answered = hub.approvals.answer(approval[1]!, decision as ConsoleDecision, message as string | undefined)
    return answered ? sendJson(res, 200, { ok: true }) : sendJson(res, 404, { error: 'no such request is waiting (answered, timed out, or interrupted)' })
  }
  const kill = /^\/console\/api\/processes\/([A-Za-z0-9_.-]{1,64})\/kill$/.exec(pathname)
  const processes = hub.processes
  if (kill && processes) {
    if (!processes.list().some((p) => p.id === kill[1])) return sendJson(res, 404, { error: `no process ${kill[1]}` })
    const info = await processes.kill(kill[1]!)
    return sendJson(res, 200, { ok: true, status: info.status, exitCode: info.exitCode, signal: info.signal })
  }
  return sendJson(res, 404, { error: 'no such action' })
}

// A call from the form: run through the host like any call (the person's tab closing interrupts it).
async function handleCall(req: IncomingMessage, res: ServerResponse, hub: ConsoleHub): Promise<void> {
  const body = await readSmallJson(req, MAX_CALL_BYTES)
  if (body === TOO_LARGE) return sendJson(res, 413, { error: 'the call is over 1 MiB' })
  if (body === undefined) return sendJson(res, 400, { error: 'the body must be a JSON object: { "tool": NAME, "arguments": { … } }' })
  const gone = new AbortController()
  const onClose = (): void => {
    if (!res.writableFinished) gone.abort(new Error('the console page went away'))
  }
  res.on('close', onClose)
  try {
    const answer = await hub.calls.run(body, gone.signal)
    if ('problem' in answer) return sendJson(res, 400, { error: answer.problem })
    return sendJson(res, 200, answer)
  } finally {
    res.off('close', onClose)
  }
}

async function readSmallJson(req: IncomingMessage, maxBytes = MAX_ACTION_BYTES): Promise<object | typeof TOO_LARGE | undefined> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return undefined
  const value = await readJsonBody(req, maxBytes)
  if (value === TOO_LARGE) return maxBytes === MAX_ACTION_BYTES ? undefined : TOO_LARGE
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' })
  res.end(JSON.stringify(body))
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' })
  res.end(html)
}

// Fixed text only (nothing from the request goes into these pages).
function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`
}
