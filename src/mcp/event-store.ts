import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server'

/** Per session: at most this many events are kept for replay… */
export const MAX_STORED_EVENTS = 2048
/** …and at most this many characters of them (a big tool result counts by its size). */
export const MAX_STORED_CHARS = 8 * 1024 * 1024

interface StoredEvent {
  streamId: StreamId
  seq: number
  message: JSONRPCMessage
  chars: number
}

/**
 * The SDK's `EventStore` for one Streamable HTTP session, in memory and bounded: every SSE event
 * gets an id (`<stream>_<n>`), and a client that reconnects with `Last-Event-ID` gets the events of
 * that stream it missed — so a call's result sent while its stream was cut still arrives. The oldest
 * events are dropped past `maxEvents` or `maxChars`.
 *
 * @example
 * new NodeStreamableHTTPServerTransport({ sessionIdGenerator, eventStore: new MemoryEventStore(), retryInterval: 1000 })
 */
export class MemoryEventStore implements EventStore {
  readonly #events: StoredEvent[] = []
  // Streams a client may resume, newest last: kept past their events' eviction, so a resumed stream
  // still gets what is sent on it later (a long call's result), even if it missed older events.
  readonly #streams = new Set<StreamId>()
  readonly #maxEvents: number
  readonly #maxChars: number
  #chars = 0
  #seq = 0

  constructor(options: { maxEvents?: number; maxChars?: number } = {}) {
    this.#maxEvents = options.maxEvents ?? MAX_STORED_EVENTS
    this.#maxChars = options.maxChars ?? MAX_STORED_CHARS
  }

  /** Events held now (for tests and diagnostics). */
  get size(): number {
    return this.#events.length
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = ++this.#seq
    const chars = JSON.stringify(message).length
    this.#events.push({ streamId, seq, message, chars })
    if (!this.#streams.has(streamId)) {
      this.#streams.add(streamId)
      if (this.#streams.size > this.#maxEvents) this.#streams.delete(this.#streams.values().next().value!)
    }
    this.#chars += chars
    while (this.#events.length > 1 && (this.#events.length > this.#maxEvents || this.#chars > this.#maxChars)) this.#dropOldest()
    return `${streamId}_${seq}`
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    const parsed = parseEventId(eventId)
    return parsed && this.#streams.has(parsed.streamId) ? parsed.streamId : undefined
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const parsed = parseEventId(lastEventId)
    if (!parsed || !this.#streams.has(parsed.streamId)) throw new Error(`unknown event id ${JSON.stringify(lastEventId)}`)
    const missed = this.#events.filter((e) => e.streamId === parsed.streamId && e.seq > parsed.seq)
    for (const event of missed) {
      // The priming event (an empty message) only gave the client an id to resume from.
      if (Object.keys(event.message).length === 0) continue
      await send(`${event.streamId}_${event.seq}`, event.message)
    }
    return parsed.streamId
  }

  #dropOldest(): void {
    const oldest = this.#events.shift()!
    this.#chars -= oldest.chars
  }
}

function parseEventId(eventId: EventId): { streamId: StreamId; seq: number } | undefined {
  const cut = eventId.lastIndexOf('_')
  const seq = Number(eventId.slice(cut + 1))
  if (cut <= 0 || !Number.isSafeInteger(seq)) return undefined
  return { streamId: eventId.slice(0, cut), seq }
}
