// A model API stand-in on a free loopback port that streams server-sent events as the real APIs do,
// for the real `openai` and `@anthropic-ai/sdk` clients: each POST takes the next queued script, whose
// steps write an event, hold the stream until a promise settles (a gate), pause (benchmarks only),
// or destroy the socket mid-stream. It notes when each marked event was written and whether a
// client went away before its stream ended.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

/** One step of a streamed reply. */
export type SseStep =
  /** An event: `data:` JSON (a string as it is, e.g. `[DONE]`), with an `event:` line when named; `mark` notes when it was written. */
  | { event?: string; data: unknown; mark?: string }
  /** Holds the rest of the stream until `until` settles. */
  | { until: Promise<unknown> }
  /** Waits this long before the next step (benchmarks: a model writing; never in a test). */
  | { pauseMs: number }
  /** Destroys the connection here: the client sees the stream break. */
  | { destroy: true }

export interface SseRequest {
  path: string
  body: Record<string, unknown>
  /** True once the client went away before the script's end (an aborted request). */
  wentAway: boolean
}

export class SseModelServer {
  /** Every request's path and JSON body, in arrival order. */
  readonly requests: SseRequest[] = []
  /** When each marked event was written (performance.now()). */
  readonly marks = new Map<string, number>()
  readonly #queue: SseStep[][] = []
  readonly #sockets = new Set<import('node:net').Socket>()
  readonly #server = http.createServer((req, res) => void this.#answer(req, res))

  constructor() {
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket)
      socket.on('close', () => this.#sockets.delete(socket))
    })
  }

  /** Listens on 127.0.0.1 on a free port; resolves with the base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
  }

  /** Queues the script of the next request. */
  reply(steps: SseStep[]): void {
    this.#queue.push(steps)
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  async #answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let text = ''
    for await (const chunk of req) text += String(chunk)
    const steps = this.#queue.shift()
    if (req.method !== 'POST' || !steps) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'not_found', message: `unexpected ${req.method} ${req.url}` } }))
      return
    }
    const request: SseRequest = { path: req.url ?? '', body: JSON.parse(text) as Record<string, unknown>, wentAway: false }
    this.requests.push(request)
    let gone = false
    let onGone = (): void => {}
    const wentAway = new Promise<void>((resolve) => (onGone = resolve))
    res.on('close', () => {
      if (res.writableEnded) return
      gone = true
      request.wentAway = true
      onGone()
    })
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
    for (const step of steps) {
      if (gone) break
      // A client that goes away ends a hold at once (a gate that never opens must not keep it).
      if ('until' in step) await Promise.race([step.until, wentAway])
      else if ('pauseMs' in step) await Promise.race([sleep(step.pauseMs), wentAway])
      else if ('destroy' in step) {
        res.socket?.destroy()
        return
      } else {
        const data = typeof step.data === 'string' ? step.data : JSON.stringify(step.data)
        res.write(`${step.event === undefined ? '' : `event: ${step.event}\n`}data: ${data}\n\n`)
        if (step.mark !== undefined) this.marks.set(step.mark, performance.now())
      }
    }
    if (gone) return
    res.end()
  }
}
