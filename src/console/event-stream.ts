import type { ServerResponse } from 'node:http'

const HEARTBEAT_MS = 15_000

/**
 * One open server-sent-events response: named events with JSON data, a comment line now and then
 * so proxies and browsers keep it open, and `closed` once the page goes away.
 *
 * @example
 * const stream = new EventStream(res)
 * stream.send('calls', { calls })
 * await stream.closed
 */
export class EventStream {
  readonly closed: Promise<void>
  readonly #res: ServerResponse
  readonly #heartbeat: NodeJS.Timeout
  #open = true

  constructor(res: ServerResponse, headers: Record<string, string>) {
    this.#res = res
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' })
    res.write(': toolhost console\n\n')
    this.#heartbeat = setInterval(() => this.#write(': ping\n\n'), HEARTBEAT_MS)
    this.#heartbeat.unref()
    this.closed = new Promise<void>((resolve) => {
      res.once('close', () => {
        this.#open = false
        clearInterval(this.#heartbeat)
        resolve()
      })
    })
  }

  get isOpen(): boolean {
    return this.#open
  }

  /** Sends one event; JSON never holds a raw newline, so one `data:` line carries it. */
  send(event: string, data: unknown): void {
    this.#write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }

  end(): void {
    if (this.#open) this.#res.end()
  }

  #write(text: string): void {
    if (this.#open) this.#res.write(text)
  }
}
