// The bounded in-memory SSE event store behind resumable streams.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { expect, test } from 'vitest'
import { MemoryEventStore } from '../../src/mcp/event-store.js'

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `line ${n}` } })

async function replay(store: MemoryEventStore, after: string): Promise<{ stream: string; sent: Array<[string, JSONRPCMessage]> }> {
  const sent: Array<[string, JSONRPCMessage]> = []
  const stream = await store.replayEventsAfter(after, { send: async (id, message) => void sent.push([id, message]) })
  return { stream, sent }
}

test('replays the events of that stream after the given id, not the priming event nor other streams', async () => {
  const store = new MemoryEventStore()
  const priming = await store.storeEvent('s1', {} as JSONRPCMessage)
  const a = await store.storeEvent('s1', note(1))
  await store.storeEvent('s2', note(99))
  const b = await store.storeEvent('s1', note(2))
  expect(await store.getStreamIdForEventId(priming)).toBe('s1')
  expect(await replay(store, priming)).toEqual({ stream: 's1', sent: [[a, note(1)], [b, note(2)]] })
  expect((await replay(store, a)).sent).toEqual([[b, note(2)]])
})

test('stays within its bounds, dropping the oldest events (by count and by size)', async () => {
  const byCount = new MemoryEventStore({ maxEvents: 3 })
  const first = await byCount.storeEvent('s', note(0))
  for (let i = 1; i <= 5; i++) await byCount.storeEvent('s', note(i))
  expect(byCount.size).toBe(3)
  // The stream is still known, so a client that missed dropped events still resumes and gets the rest.
  expect((await replay(byCount, first)).sent.map(([, m]) => (m as unknown as { params: { data: string } }).params.data)).toEqual(['line 3', 'line 4', 'line 5'])

  const bySize = new MemoryEventStore({ maxChars: 200 })
  for (let i = 0; i < 10; i++) await bySize.storeEvent('s', note(i))
  expect(bySize.size).toBeLessThan(10)
  expect(bySize.size).toBeGreaterThan(0)
})

test('an id of a stream it never saw is unknown (the SDK answers 400)', async () => {
  const store = new MemoryEventStore()
  expect(await store.getStreamIdForEventId('nope_1')).toBeUndefined()
  expect(await store.getStreamIdForEventId('garbage')).toBeUndefined()
  await expect(replay(store, 'nope_1')).rejects.toThrow(/unknown event id/)
})
