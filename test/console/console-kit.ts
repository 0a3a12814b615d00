// HTTP helpers for the console tests: raw requests (any Host, Origin or Cookie header), the token
// login, and a server-sent-events reader that waits for an event matching a predicate.
import { request as httpRequest, type IncomingHttpHeaders, type ClientRequest } from 'node:http'

export interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One HTTP request with exactly the headers given (node:http, so Host and Origin can be forged). */
export function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

/** Opens the console's start-up URL; returns the session cookie ("name=value") it sets. */
export async function login(consoleUrl: string): Promise<string> {
  const reply = await request(consoleUrl)
  if (reply.status !== 303) throw new Error(`login answered ${reply.status}: ${reply.body}`)
  const setCookie = reply.headers['set-cookie']?.[0] ?? ''
  return setCookie.split(';')[0]!
}

export interface EventReader {
  /** Resolves with the data of the first event of `type` (seen before or after the call) that `match` accepts. */
  next<T = Record<string, unknown>>(type: string, match?: (data: T) => boolean): Promise<T>
  close(): void
}

/** Reads `/console/events` with the session cookie. */
export function openEvents(origin: string, cookie: string): Promise<EventReader> {
  return new Promise((resolve, reject) => {
    const seen: Array<{ type: string; data: unknown }> = []
    const waiters: Array<{ type: string; match: (data: never) => boolean; resolve: (data: never) => void }> = []
    let buffer = ''
    let req: ClientRequest | undefined
    const deliver = (): void => {
      for (const w of [...waiters]) {
        const hit = seen.find((e) => e.type === w.type && w.match(e.data as never))
        if (hit) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(hit.data as never)
        }
      }
    }
    req = httpRequest(`${origin}/console/events`, { headers: { cookie } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events answered ${res.statusCode}`))
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        let end: number
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const type = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (type && data) seen.push({ type, data: JSON.parse(data) })
        }
        deliver()
      })
      resolve({
        next: <T>(type: string, match: (data: T) => boolean = () => true) =>
          new Promise<T>((done) => {
            waiters.push({ type, match: match as (data: never) => boolean, resolve: done as (data: never) => void })
            deliver()
          }),
        close: () => req?.destroy(),
      })
    })
    req.on('error', (error) => {
      if (!(error as NodeJS.ErrnoException).code?.startsWith('ECONNRESET')) reject(error)
    })
    req.end()
  })
}
