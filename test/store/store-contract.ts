// The CoordinationStore contract as cases any store must pass (memory, local; Redis next): two hosts
// `a` and `b` sharing one store. Each case drives the waits with releases, never with sleeps: a
// request that must wait is shown waiting by its `onWait` report, and shown still waiting after the
// other host has done a full round trip through the store.
import { describe, expect, test } from 'vitest'
import type { Claim, CoordinationStore, ForeignWait, Lease } from '../../src/store/coordination-store.js'

export interface StorePair {
  a: CoordinationStore
  b: CoordinationStore
  close(): Promise<void>
}

const write = (target: string): Claim => ({ kind: 'scoped', touches: [{ target, label: target.replace(/^\/ws\//, ''), isKey: false, access: 'write' }] })
const read = (target: string): Claim => ({ kind: 'scoped', touches: [{ target, label: target.replace(/^\/ws\//, ''), isKey: false, access: 'read' }] })
const barrier: Claim = { kind: 'barrier', reason: 'never-parallel' }
const free: Claim = { kind: 'free' }

/** A request of `store`'s, with what it reported while waiting and whether it was granted yet. */
function request(store: CoordinationStore, call: string, claim: Claim, signal?: AbortSignal) {
  const state = { granted: false, waits: [] as ForeignWait[][], lease: undefined as Lease | undefined }
  let told!: () => void
  const waiting = new Promise<void>((resolve) => (told = resolve))
  const done = store.acquire({ call, claim }, {
    ...(signal ? { signal } : {}),
    onWait: (waits) => {
      state.waits.push([...waits])
      told()
    },
  }).then((lease) => {
    state.granted = true
    state.lease = lease
    return lease!
  })
  return { state, waiting, done }
}

async function grant(store: CoordinationStore, call: string, claim: Claim): Promise<Lease> {
  const lease = await store.acquire({ call, claim })
  expect(lease, `${call} is granted a lease`).toBeDefined()
  return lease!
}

// A full round trip of `store` through the shared state: a request waiting on the other side has
// polled at least once more by the time two of these are done.
async function roundTrips(store: CoordinationStore, n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await store.consumeOnce(`round-${Math.random()}`, 1000)
}

/** The contract's cases, for stores made by `open` (two hosts sharing one store, both joined). */
export function describeStoreContract(name: string, open: () => Promise<StorePair>): void {
  describe(`${name}: the CoordinationStore contract`, () => {
    const withPair = (body: (pair: StorePair) => Promise<void>) => async () => {
      const pair = await open()
      try {
        await body(pair)
      } finally {
        await pair.close()
      }
    }

    test('claims on different paths are granted at once; a conflicting write waits for the release, told who holds it', withPair(async ({ a, b }) => {
      const held = await grant(a, 'a1', write('/ws/src/x.ts'))
      await grant(b, 'b0', write('/ws/src/y.ts'))
      const wanted = request(b, 'b1', write('/ws/src'))
      await wanted.waiting
      await roundTrips(a)
      expect(wanted.state.granted).toBe(false)
      expect(wanted.state.waits[0]).toEqual([expect.objectContaining({ id: 'a1', reason: expect.stringMatching(/^writes src, which a1 on host \d+ writes \(src\/x\.ts\)$/) })])
      a.release(held)
      await wanted.done
    }))

    test('readers share across hosts; a writer waits for both', withPair(async ({ a, b }) => {
      const r1 = await grant(a, 'a1', read('/ws/f'))
      const r2 = await grant(b, 'b1', read('/ws/f'))
      const writer = request(a, 'a2', write('/ws/f'))
      await writer.waiting
      b.release(r2)
      await roundTrips(b)
      // a's own read never holds a's own writer: only b's did.
      await writer.done
      a.release(r1)
    }))

    test('a barrier (never-parallel) excludes even free calls of other hosts; free calls never wait for each other', withPair(async ({ a, b }) => {
      const fa = await grant(a, 'a1', free)
      const fb = await grant(b, 'b1', free)
      a.release(fa)
      b.release(fb)
      const alone = await grant(a, 'a3', barrier)
      const later = request(b, 'b2', free)
      await later.waiting
      expect(later.state.waits[0]![0]!.reason).toMatch(/a3 on host \d+ runs alone \(never-parallel\)/)
      a.release(alone)
      await later.done
    }))

    test("a barrier waits for another host's running free call", withPair(async ({ a, b }) => {
      const running = await grant(b, 'b1', free)
      const lone = request(a, 'a1', barrier)
      await lone.waiting
      expect(lone.state.waits[0]![0]!.reason).toMatch(/this call runs alone \(never-parallel\) and b1 on host \d+ is running/)
      b.release(running)
      await lone.done
    }))

    test("a host's own leases never make it wait (its scheduler orders its own calls)", withPair(async ({ a }) => {
      await grant(a, 'a1', write('/ws/f'))
      await grant(a, 'a2', write('/ws/f'))
      await grant(a, 'a3', barrier)
    }))

    test('an earlier waiter goes first: a later conflicting request of a third party waits behind it', withPair(async ({ a, b }) => {
      const held = await grant(b, 'b1', write('/ws/f'))
      const first = request(a, 'a1', barrier)
      await first.waiting
      // b's next call conflicts with a's waiting barrier: it waits behind it rather than overtaking.
      const second = request(b, 'b2', read('/ws/other'))
      await second.waiting
      expect(second.state.waits[0]![0]!.reason).toMatch(/waiting before this call/)
      b.release(held)
      const lease = await first.done
      await roundTrips(b)
      expect(second.state.granted).toBe(false)
      a.release(lease)
      await second.done
    }))

    test('an aborted wait rejects and leaves no waiter behind', withPair(async ({ a, b }) => {
      const held = await grant(b, 'b1', write('/ws/f'))
      const controller = new AbortController()
      const waiter = request(a, 'a1', barrier, controller.signal)
      await waiter.waiting
      controller.abort()
      await expect(waiter.done).rejects.toThrow()
      // Had a's barrier stayed as a waiter, b's next call would wait behind it.
      await grant(b, 'b2', read('/ws/other'))
      b.release(held)
    }))

    test('a rate rule with concurrency 1 holds across hosts', withPair(async ({ a, b }) => {
      const rule = { key: 'http_get', limit: { concurrency: 1 } }
      const ticket = await a.takeRateSlot(rule)
      let second = false
      const next = Promise.resolve(b.takeRateSlot(rule)).then((t) => ((second = true), t))
      await roundTrips(a, 6)
      expect(second).toBe(false)
      a.releaseRateSlot(ticket)
      b.releaseRateSlot(await next)
    }))

    test('a rate rule of calls per window counts every host\'s starts', withPair(async ({ a, b }) => {
      const rule = { key: 'web_search', limit: { calls: 2, per_ms: 60_000 } }
      a.releaseRateSlot(await a.takeRateSlot(rule))
      b.releaseRateSlot(await b.takeRateSlot(rule))
      const controller = new AbortController()
      let third = false
      const next = Promise.resolve(a.takeRateSlot(rule, { signal: controller.signal })).then(() => (third = true))
      await roundTrips(b, 6)
      expect(third).toBe(false)
      controller.abort()
      await expect(next).rejects.toThrow()
    }))

    test('consumeOnce: the first consumer on any host wins, while the token is remembered', withPair(async ({ a, b }) => {
      expect(await a.consumeOnce('approval-1', 60_000)).toBe(true)
      expect(await b.consumeOnce('approval-1', 60_000)).toBe(false)
      expect(await a.consumeOnce('approval-1', 60_000)).toBe(false)
      const both = await Promise.all([a.consumeOnce('approval-2', 60_000), b.consumeOnce('approval-2', 60_000)])
      expect(both.filter(Boolean)).toHaveLength(1)
    }))

    test('a host that closes gives back everything it held', withPair(async ({ a, b }) => {
      await grant(a, 'a1', barrier)
      await a.close()
      await grant(b, 'b1', write('/ws/f'))
    }))
  })
}
