import { parseJSONRPCMessage, ProtocolErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server'
import type { Logger } from '../contract/types.js'

/** How much of an oversized message is kept, at each end, to find its id. */
const EDGE_BYTES = 512

/**
 * MCP over stdio (newline-delimited JSON-RPC), like the SDK's `StdioServerTransport`, with one
 * difference: a message longer than `maxMessageBytes` does not end the transport (the SDK's closes
 * it, and `toolhost serve` exited with every call in flight unanswered). Its bytes are dropped as
 * they arrive (memory stays bounded), and it is answered with a JSON-RPC error carrying its id when
 * the id can be read at either end of the line; the calls in flight and later messages go on. A
 * line that is not JSON is answered with a parse error (id null).
 *
 * @example
 * serveStdio(factory, { transport: new BoundedStdioTransport({ maxMessageBytes: 16 * 1024 * 1024, log }) })
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  readonly #stdin: NodeJS.ReadableStream
  readonly #stdout: NodeJS.WritableStream
  readonly #max: number
  readonly #log: Logger | undefined
  #pieces: Buffer[] = []
  #size = 0
  // The line being dropped: its size so far, its first and its last bytes.
  #dropping: { size: number; head: Buffer; tail: Buffer } | undefined
  #closed = false
  #markClosed!: () => void
  /** Settles once the transport has closed (stdin ended, or `close` was called). */
  readonly closed = new Promise<void>((resolve) => (this.#markClosed = resolve))

  constructor(options: { maxMessageBytes: number; log?: Logger; stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream }) {
    this.#max = options.maxMessageBytes
    this.#log = options.log
    this.#stdin = options.stdin ?? process.stdin
    this.#stdout = options.stdout ?? process.stdout
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData)
    this.#stdin.on('error', this.#onError)
    this.#stdin.on('end', this.#onEnd)
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(JSON.stringify(message) + '\n')) resolve()
      else this.#stdout.once('drain', resolve)
    })
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#stdin.off('data', this.#onData)
    this.#stdin.off('error', this.#onError)
    this.#stdin.off('end', this.#onEnd)
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause()
    this.#pieces = []
    this.#size = 0
    this.#dropping = undefined
    this.onclose?.()
    this.#markClosed()
  }

  // The client closed its end: the connection is over (MCP's stdio binding: exit when stdin closes).
  readonly #onEnd = (): void => void this.close()

  readonly #onError = (error: Error): void => {
    this.onerror?.(error)
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    let offset = 0
    while (offset <= data.length) {
      const newline = data.indexOf(0x0a, offset)
      this.#take(data.subarray(offset, newline === -1 ? data.length : newline))
      if (newline === -1) return
      this.#endLine()
      offset = newline + 1
    }
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return
    const dropping = this.#dropping
    if (dropping !== undefined) {
      dropping.size += piece.length
      dropping.tail = lastBytes(Buffer.concat([dropping.tail, piece]))
      return
    }
    if (this.#size + piece.length <= this.#max) {
      this.#pieces.push(piece)
      this.#size += piece.length
      return
    }
    const start = Buffer.concat([...this.#pieces, piece])
    this.#dropping = { size: start.length, head: start.subarray(0, EDGE_BYTES), tail: lastBytes(start) }
    this.#pieces = []
    this.#size = 0
  }

  #endLine(): void {
    const dropped = this.#dropping
    if (dropped !== undefined) {
      this.#dropping = undefined
      this.#refuse(dropped)
      return
    }
    const line = Buffer.concat(this.#pieces).toString('utf8').replace(/\r$/, '')
    this.#pieces = []
    this.#size = 0
    if (line.trim() === '') return
    let message: JSONRPCMessage
    try {
      message = parseJSONRPCMessage(JSON.parse(line))
    } catch (error) {
      this.onerror?.(error as Error)
      const id = idAtEdges(line.slice(0, EDGE_BYTES), line.slice(-EDGE_BYTES))
      void this.#answerError(id, id === null ? ProtocolErrorCode.ParseError : ProtocolErrorCode.InvalidRequest, 'the message is not a valid JSON-RPC message')
      return
    }
    this.onmessage?.(message)
  }

  #refuse(dropped: { size: number; head: Buffer; tail: Buffer }): void {
    const id = idAtEdges(dropped.head.toString('utf8'), dropped.tail.toString('utf8'))
    const message = `the message is ${dropped.size} bytes, over the limit of ${this.#max} (serve.max_message_bytes); it was not read. Send less per message, e.g. write large content in parts`
    this.#log?.warn(`MCP stdio: ${message}${id === null ? '' : ` (request id ${JSON.stringify(id)})`}`)
    void this.#answerError(id, ProtocolErrorCode.InvalidRequest, message)
  }

  #answerError(id: string | number | null, code: number, message: string): Promise<void> {
    // JSON-RPC answers a message whose id cannot be read with id null.
    return this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch(() => undefined)
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length <= EDGE_BYTES ? buffer : Buffer.from(buffer.subarray(buffer.length - EDGE_BYTES))
}

// A request's top-level "id", read from the start of its text (`{"jsonrpc":"2.0","id":…`) or from its
// end (`…,"id":…}`, the order the SDK's client writes); null when neither end shows one.
const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/
const TAIL_ID = /[{,]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/

function idAtEdges(head: string, tail: string): string | number | null {
  const found = HEAD_ID.exec(head)?.[1] ?? TAIL_ID.exec(tail)?.[1]
  if (found === undefined) return null
  try {
    const id: unknown = JSON.parse(found)
    return typeof id === 'string' || typeof id === 'number' ? id : null
  } catch {
    return null
  }
}
