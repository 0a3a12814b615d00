import { expect, test } from 'vitest'
import { MemoryState, MemoryStore } from '../../src/store/memory-store.js'
import { describeStoreContract } from './store-contract.js'

describeStoreContract('memory', async () => {
  const state = new MemoryState()
  const a = new MemoryStore({ state })
  const b = new MemoryStore({ state })
  return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) }
})

test('the scheduler never asks a memory store: it is this process only', async () => {
  const store = new MemoryStore()
  await store.open()
  expect(store.scope).toBe('process')
  expect(store.needsAsk).toBe(false)
})
