import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** The header a console page sends its CSRF token in with every action. */
export const CSRF_HEADER = 'x-toolhost-csrf'

/**
 * The console's secrets, the Jupyter way: a token printed at start-up (in the URL a person opens),
 * exchanged once for an HttpOnly, SameSite=Strict cookie holding a separate session key; and a CSRF
 * token the page receives over its event stream and sends back in a header with each action. Every
 * comparison is in constant time.
 *
 * @example
 * const auth = new ConsoleAuth()
 * auth.tokenMatches(url.searchParams.get('token')) // then Set-Cookie: auth.sessionCookie(port)
 */
export class ConsoleAuth {
  /** The secret in the start-up URL. */
  readonly token: string
  /** Sent back by the page in the `x-toolhost-csrf` header of every action. */
  readonly csrf: string
  readonly #session: string

  constructor(token: string = randomBytes(24).toString('hex')) {
    if (token.length < 16) throw new TypeError(`Expected \`token\` to be at least 16 characters, got ${token.length} characters (string)`)
    this.token = token
    this.csrf = randomBytes(24).toString('hex')
    this.#session = randomBytes(32).toString('hex')
  }

  /** True when `candidate` is the start-up token. */
  tokenMatches(candidate: string | null | undefined): boolean {
    return typeof candidate === 'string' && sameSecret(candidate, this.token)
  }

  /** True when the request carries this console's session cookie. */
  hasSession(req: IncomingMessage): boolean {
    const value = cookieValue(req.headers.cookie, cookieName(req))
    return value !== undefined && sameSecret(value, this.#session)
  }

  /** The Set-Cookie header that opens a session (named per port: cookies do not tell ports apart). */
  sessionCookie(req: IncomingMessage): string {
    return `${cookieName(req)}=${this.#session}; HttpOnly; SameSite=Strict; Path=/`
  }

  /**
   * An action may change something: its Origin (when the browser sends one, as it does for every
   * POST) must be this very server, and it must carry the CSRF token. SameSite=Strict alone is not
   * enough on loopback: another local port is the same site.
   */
  isSameOriginAction(req: IncomingMessage): boolean {
    const origin = req.headers.origin
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) return false
    const header = req.headers[CSRF_HEADER]
    return typeof header === 'string' && sameSecret(header, this.csrf)
  }
}

function cookieName(req: IncomingMessage): string {
  return `toolhost-console-${req.socket.localPort ?? 0}`
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

// Hashing first makes both sides the same length, so timingSafeEqual never throws and the time
// does not depend on where the strings differ, nor on the candidate's length.
function sameSecret(candidate: string, secret: string): boolean {
  const a = createHash('sha256').update(candidate).digest()
  const b = createHash('sha256').update(secret).digest()
  return timingSafeEqual(a, b)
}
