/**
 * The sealed requestState of MCP multi round-trip requests and the ledger that makes each one
 * good for one retry: what opens, and each way a state is refused (with its catalogue code).
 */
import { describe, expect, test } from 'vitest'
import { approvalLedgerFor, MemoryApprovalLedger, StoreApprovalLedger } from '../../src/mcp/approval-ledger.js'
import { MemoryState, MemoryStore } from '../../src/store/memory-store.js'
import type { CoordinationStore } from '../../src/store/coordination-store.js'
import { ToolhostError } from '../../src/contract/errors.js'
import { callDigest, RequestStateSeal, REQUEST_STATE_TTL_MS, stateKeyFromEnv, type StateBinding } from '../../src/mcp/request-state.js'

const BINDING: StateBinding = { principal: 'stdio:1|client', method: 'tools/call', call: callDigest('zap', { path: 'a.txt' }) }
const KEY = Buffer.alloc(32, 7)

function sealWithClock(options: { key?: Buffer } = {}) {
  const clock = { now: 1_000_000 }
  const ledger = new MemoryApprovalLedger({ now: () => clock.now })
  const seal = new RequestStateSeal({ ledger, key: options.key ?? KEY, now: () => clock.now })
  return { clock, ledger, seal }
}

const codeOf = async (promise: Promise<unknown>): Promise<string | undefined> => promise.then(() => undefined, (error: { code?: string }) => error.code)

describe('RequestStateSeal', () => {
  test('opens what it sealed: the answers and the question it waits for', async () => {
    const { seal } = sealWithClock()
    const token = seal.seal({ ...BINDING, asked: 'ask-2', answers: { 'ask-1': { action: 'accept', content: { answer: 'blue' } } } })
    await expect(seal.open(token, BINDING)).resolves.toMatchObject({ asked: 'ask-2', answers: { 'ask-1': { content: { answer: 'blue' } } }, exp: 1_000_000 + REQUEST_STATE_TTL_MS })
  })

  test('the call digest ignores key order and sees every argument', () => {
    expect(callDigest('zap', { a: 1, b: [1, { c: 2, d: 3 }] })).toBe(callDigest('zap', { b: [1, { d: 3, c: 2 }], a: 1 }))
    expect(callDigest('zap', { a: 1 })).not.toBe(callDigest('zap', { a: 2 }))
    expect(callDigest('zap', { a: 1 })).not.toBe(callDigest('zip', { a: 1 }))
  })

  test('a changed body, a cut token, another key, or not a token at all: E_REQUEST_STATE_INVALID', async () => {
    const { seal } = sealWithClock()
    const token = seal.seal({ ...BINDING, asked: 'approve-1', answers: {} })
    const [prefix, body, mac] = token.split('.') as [string, string, string]
    const forged = Buffer.from(Buffer.from(body, 'base64url').toString('utf8').replace('approve-1', 'approve-9')).toString('base64url')
    expect(await codeOf(seal.open(`${prefix}.${forged}.${mac}`, BINDING))).toBe('E_REQUEST_STATE_INVALID')
    expect(await codeOf(seal.open(token.slice(0, -4), BINDING))).toBe('E_REQUEST_STATE_INVALID')
    expect(await codeOf(sealWithClock({ key: Buffer.alloc(32, 8) }).seal.open(token, BINDING))).toBe('E_REQUEST_STATE_INVALID')
    for (const junk of [undefined, 42, '', 'th1..', 'v1.abc.def']) expect(await codeOf(seal.open(junk, BINDING))).toBe('E_REQUEST_STATE_INVALID')
  })

  test('past its expiry: E_REQUEST_STATE_EXPIRED', async () => {
    const { seal, clock } = sealWithClock()
    const token = seal.seal({ ...BINDING, asked: 'approve-1', answers: {} })
    clock.now += REQUEST_STATE_TTL_MS
    expect(await codeOf(seal.open(token, BINDING))).toBe('E_REQUEST_STATE_EXPIRED')
  })

  test.each([
    ['another client', { principal: 'stdio:2|client' }],
    ['another method', { method: 'prompts/get' }],
    ['other arguments', { call: callDigest('zap', { path: 'b.txt' }) }],
  ])('sealed for %s: E_REQUEST_STATE_MISMATCH', async (_what, change) => {
    const { seal } = sealWithClock()
    const token = seal.seal({ ...BINDING, asked: 'approve-1', answers: {} })
    expect(await codeOf(seal.open(token, { ...BINDING, ...change }))).toBe('E_REQUEST_STATE_MISMATCH')
  })

  test('opened once only: the second time is E_REQUEST_STATE_REPLAYED, and a refused state is not consumed', async () => {
    const { seal } = sealWithClock()
    const token = seal.seal({ ...BINDING, asked: 'approve-1', answers: {} })
    expect(await codeOf(seal.open(token, { ...BINDING, call: 'other' }))).toBe('E_REQUEST_STATE_MISMATCH')
    await expect(seal.open(token, BINDING)).resolves.toBeDefined()
    expect(await codeOf(seal.open(token, BINDING))).toBe('E_REQUEST_STATE_REPLAYED')
  })

  test('a key shorter than 32 bytes is refused, from options or TOOLHOST_MCP_STATE_KEY', () => {
    expect(() => new RequestStateSeal({ ledger: new MemoryApprovalLedger(), key: Buffer.alloc(16) })).toThrow(expect.objectContaining({ code: 'E_CONFIG_INVALID' }))
    expect(() => stateKeyFromEnv({ TOOLHOST_MCP_STATE_KEY: 'too short' })).toThrow(/TOOLHOST_MCP_STATE_KEY has 9 bytes/)
    expect(stateKeyFromEnv({ TOOLHOST_MCP_STATE_KEY: 'k'.repeat(32) })).toHaveLength(32)
    expect(stateKeyFromEnv({})).toBeUndefined()
  })

  test('two processes with one key and one ledger: a state sealed by one opens once in the other', async () => {
    const ledger = new MemoryApprovalLedger()
    const first = new RequestStateSeal({ ledger, key: KEY })
    const second = new RequestStateSeal({ ledger, key: KEY })
    const token = first.seal({ ...BINDING, asked: 'approve-1', answers: {} })
    await expect(second.open(token, BINDING)).resolves.toBeDefined()
    expect(await codeOf(first.open(token, BINDING))).toBe('E_REQUEST_STATE_REPLAYED')
  })
})

describe('MemoryApprovalLedger', () => {
  test('consumes an id once, and forgets ids past their expiry', async () => {
    const clock = { now: 0 }
    const ledger = new MemoryApprovalLedger({ now: () => clock.now })
    expect(await ledger.consumeOnce('a', 100)).toBe(true)
    expect(await ledger.consumeOnce('a', 100)).toBe(false)
    expect(await ledger.consumeOnce('b', 200)).toBe(true)
    clock.now = 150
    expect(await ledger.consumeOnce('c', 300)).toBe(true)
    expect(ledger.size).toBe(2) // a expired and went; b and c stay
  })
})

describe('StoreApprovalLedger', () => {
  test('two instances sharing a store: a state sealed by one is consumed once, whichever opens it', async () => {
    const shared = new MemoryState()
    const first = new RequestStateSeal({ ledger: new StoreApprovalLedger(new MemoryStore({ state: shared })), key: KEY })
    const second = new RequestStateSeal({ ledger: new StoreApprovalLedger(new MemoryStore({ state: shared })), key: KEY })
    const token = first.seal({ ...BINDING, asked: 'approve-1', answers: {} })
    const opened = await Promise.allSettled([first.open(token, BINDING), second.open(token, BINDING)])
    expect(opened.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect(await codeOf(second.open(token, BINDING))).toBe('E_REQUEST_STATE_REPLAYED')
  })

  test('the ledger for a store of this process alone is in memory, as before; a shared store is the ledger otherwise', () => {
    expect(approvalLedgerFor(new MemoryStore())).toBeInstanceOf(MemoryApprovalLedger)
    expect(approvalLedgerFor({ scope: 'cluster', consumeOnce: async () => true } as unknown as CoordinationStore)).toBeInstanceOf(StoreApprovalLedger)
  })

  test('a store that cannot be used fails the retry (the approval is not taken on trust)', async () => {
    const failing = { consumeOnce: () => Promise.reject(new ToolhostError('E_STORE_UNAVAILABLE', 'down')) }
    const seal = new RequestStateSeal({ ledger: new StoreApprovalLedger(failing), key: KEY })
    expect(await codeOf(seal.open(seal.seal({ ...BINDING, asked: 'approve-1', answers: {} }), BINDING))).toBe('E_STORE_UNAVAILABLE')
  })
})
