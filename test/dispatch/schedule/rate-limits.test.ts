/**
 * Rate limits (config `rate_limits`) on top of the worker limit, and a worker limit changed while
 * calls wait. Time is vitest's fake clock (setTimeout and Date, which p-queue's windows use).
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import type { Execution } from '../../../src/dispatch/execute/execute-call.js'
import { compileRateLimits, describeRateLimit, describeRatePace, rateRuleFor } from '../../../src/dispatch/schedule/rate-limits.js'
import { Scheduler, type SchedulableCall, type SchedulerEvent } from '../../../src/dispatch/schedule/scheduler.js'
import type { RateLimitConfig } from '../../../src/config/types.js'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** A scheduler on the fake clock, and calls whose handlers take `ms`; starts are logged as [id, at]. */
function setUp(maxWorkers: number, rateLimits: Record<string, RateLimitConfig>) {
  const t0 = Date.now()
  const now = (): number => Date.now() - t0
  const starts: Array<[string, number]> = []
  const events: SchedulerEvent[] = []
  let running = 0
  let peak = 0
  const scheduler = new Scheduler({ maxWorkers, now, rateLimits, onEvent: (e) => events.push(e) })
  const call = (id: string, tool: string, ms: number): SchedulableCall => ({
    id,
    footprint: { kind: 'free' },
    profile: scheduler.profileOf(tool, tool === 'mcp_github_search' ? 'github' : 'tests'),
    start(): Execution {
      starts.push([id, now()])
      peak = Math.max(peak, ++running)
      const answered = new Promise<{ ok: true; value: string }>((resolve) => setTimeout(() => {
        running--
        resolve({ ok: true, value: id })
      }, ms))
      return { answered, settled: answered.then(() => ({ abandoned: false })), interrupt() {} }
    },
  })
  return { scheduler, call, starts, events, peak: () => peak }
}

describe('rate_limits', () => {
  test('calls per window: at most `calls` starts in any `per_ms` window; the others wait for a rate slot', async () => {
    const { scheduler, call, starts, events } = setUp(8, { web_search: { calls: 2, per_ms: 1000 } })
    const outcomes = scheduler.submit(['s1', 's2', 's3', 's4', 's5'].map((id) => call(id, 'web_search', 10)))
    await vi.advanceTimersByTimeAsync(5000)
    await Promise.all(outcomes)
    expect(starts).toEqual([['s1', 0], ['s2', 0], ['s3', 1000], ['s4', 1000], ['s5', 2000]])
    expect(events.filter((e) => e.type === 'waiting-rate').map((e) => e.type === 'waiting-rate' && [e.id, e.group, describeRateLimit(e.limit)])).toEqual([
      ['s3', 'web_search', '2 calls per 1000 ms'],
      ['s4', 'web_search', '2 calls per 1000 ms'],
      ['s5', 'web_search', '2 calls per 1000 ms'],
    ])
  })

  test('a call whose rate slot is free goes first for the next worker', async () => {
    const { scheduler, call, starts } = setUp(1, { web_search: { calls: 2, per_ms: 1000 } })
    const outcomes = scheduler.submit([call('build', 'build', 100), call('s1', 'web_search', 10)])
    await vi.advanceTimersByTimeAsync(1000)
    await Promise.all(outcomes)
    expect(starts).toEqual([['s1', 0], ['build', 10]])
  })

  test('a call waiting for its rate slot holds no worker: other calls take the workers meanwhile', async () => {
    const { scheduler, call, starts } = setUp(2, { web_search: { calls: 1, per_ms: 1000 } })
    const outcomes = scheduler.submit([call('s1', 'web_search', 10), call('s2', 'web_search', 10), call('f1', 'fetch', 100), call('f2', 'fetch', 100)])
    await vi.advanceTimersByTimeAsync(3000)
    await Promise.all(outcomes)
    // s2 waits for the next window; f1 and f2 do not wait behind it.
    expect(starts).toEqual([['s1', 0], ['f1', 0], ['f2', 10], ['s2', 1000]])
  })

  test('a rate slot is taken only when a worker is free to use it, so starts never bunch up behind busy workers', async () => {
    const { scheduler, call, starts } = setUp(1, { web_search: { calls: 2, per_ms: 1000 } })
    const outcomes = scheduler.submit([call('long', 'build', 1500)])
    outcomes.push(...scheduler.submit([call('s1', 'web_search', 10), call('s2', 'web_search', 10), call('s3', 'web_search', 10)]))
    await vi.advanceTimersByTimeAsync(5000)
    await Promise.all(outcomes)
    // Had s1 and s2 taken their slots at 0 while the worker was busy, s3 would have got one at 1000
    // and all three would have started within 20 ms of each other at 1500.
    expect(starts).toEqual([['long', 0], ['s1', 1500], ['s2', 1510], ['s3', 2500]])
  })

  test('a call announced as waiting for a worker is announced as waiting for its rate once a worker is free and its slot is not', async () => {
    const { scheduler, call, starts, events } = setUp(1, { web_search: { calls: 1, per_ms: 1000 } })
    const outcomes = scheduler.submit([call('s1', 'web_search', 10), call('s2', 'web_search', 10), call('s3', 'web_search', 10)])
    await vi.advanceTimersByTimeAsync(3000)
    await Promise.all(outcomes)
    expect(starts).toEqual([['s1', 0], ['s2', 1000], ['s3', 2000]])
    // From 10 ms the worker is idle: the console and the trace must say the rate is what they wait for.
    const pool = (id: string) => events.filter((e) => e.id === id && (e.type === 'waiting-worker' || e.type === 'waiting-rate')).map((e) => [e.type, e.at])
    expect(pool('s2')).toEqual([['waiting-worker', 0], ['waiting-rate', 10]])
    expect(pool('s3')).toEqual([['waiting-worker', 0], ['waiting-rate', 10]])
  })

  test('concurrency: a glob group runs at most `concurrency` of its calls at once, across its tools', async () => {
    const { scheduler, call, starts, peak } = setUp(8, { 'mcp_github_*': { concurrency: 2 } })
    const outcomes = scheduler.submit([call('g1', 'mcp_github_search', 100), call('g2', 'mcp_github_issue', 100), call('g3', 'mcp_github_search', 100), call('x', 'other', 100)])
    await vi.advanceTimersByTimeAsync(1000)
    await Promise.all(outcomes)
    expect(starts).toEqual([['g1', 0], ['g2', 0], ['x', 0], ['g3', 100]])
    expect(peak()).toBe(3)
  })

  test('new rate limits apply to calls still waiting for a slot', async () => {
    const { scheduler, call, starts } = setUp(8, { web_search: { calls: 1, per_ms: 10_000 } })
    const outcomes = scheduler.submit(['s1', 's2', 's3'].map((id) => call(id, 'web_search', 10)))
    await vi.advanceTimersByTimeAsync(100)
    scheduler.pool.setRateLimits({ web_search: { calls: 5, per_ms: 10_000 } })
    await vi.advanceTimersByTimeAsync(100)
    await Promise.all(outcomes)
    expect(starts).toEqual([['s1', 0], ['s2', 100], ['s3', 100]])
  })
})

describe('rate limits × the memory budget (pool throttled while huge results are saved)', () => {
  test('no rate slot is given while new starts are held off, so the calls cleared meanwhile do not all start at once when it ends', async () => {
    const { scheduler, call, starts } = setUp(8, { web_search: { calls: 2, per_ms: 1000 } })
    scheduler.pool.throttle(true)
    const outcomes = scheduler.submit(['s1', 's2', 's3', 's4', 's5', 's6'].map((id) => call(id, 'web_search', 10)))
    await vi.advanceTimersByTimeAsync(3500)
    scheduler.pool.throttle(false)
    await vi.advanceTimersByTimeAsync(5000)
    await Promise.all(outcomes)
    const at = starts.map(([, t]) => t)
    for (const t of at) expect(at.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(2)
    expect(starts.map(([id]) => id)).toEqual(['s1', 's2', 's3', 's4', 's5', 's6'])
    expect(at[0]).toBe(3500)
  })
})

describe('new rate limits reach every call not yet started (live config × waits)', () => {
  test('a rule added while calls wait for a worker applies to them: they leave the worker queue for their rate group', async () => {
    const { scheduler, call, starts, events } = setUp(1, {})
    const outcomes = scheduler.submit([call('long', 'build', 100), call('s1', 'web_search', 10), call('s2', 'web_search', 10), call('s3', 'web_search', 10)])
    await vi.advanceTimersByTimeAsync(50)
    scheduler.pool.setRateLimits({ web_search: { calls: 1, per_ms: 1000 } })
    await vi.advanceTimersByTimeAsync(5000)
    await Promise.all(outcomes)
    expect(starts).toEqual([['long', 0], ['s1', 100], ['s2', 1100], ['s3', 2100]])
    // While the one worker is busy they wait for it; the move is announced so the timeline knows.
    const moved = events.filter((e) => e.at === 50 && (e.type === 'waiting-worker' || e.type === 'waiting-rate')).map((e) => [e.type, e.id])
    expect(moved).toEqual([['waiting-worker', 's1'], ['waiting-worker', 's2'], ['waiting-worker', 's3']])
  })

  test('calls moved to their rate group are announced as waiting for the rate when a worker is free', async () => {
    const { scheduler, call, starts, events } = setUp(4, { 'web*': { concurrency: 1 } })
    const outcomes = scheduler.submit([call('s1', 'web_search', 100), call('s2', 'web_search', 10), call('s3', 'web_search', 10)])
    await vi.advanceTimersByTimeAsync(50)
    // A rule naming the tool now wins over the glob: the waiting calls go to its group.
    scheduler.pool.setRateLimits({ 'web*': { concurrency: 1 }, web_search: { calls: 1, per_ms: 1000 } })
    await vi.advanceTimersByTimeAsync(5000)
    await Promise.all(outcomes)
    expect(starts).toEqual([['s1', 0], ['s2', 50], ['s3', 1050]])
    expect(events.filter((e) => e.type === 'waiting-rate' && e.at === 50).map((e) => e.type === 'waiting-rate' && [e.id, e.group])).toEqual([['s3', 'web_search']])
  })

  test('a rule removed frees the calls waiting in its group, and a call running keeps its limit', async () => {
    const { scheduler, call, starts } = setUp(4, { web_search: { calls: 1, per_ms: 10_000 } })
    const outcomes = scheduler.submit(['s1', 's2', 's3'].map((id) => call(id, 'web_search', 10)))
    await vi.advanceTimersByTimeAsync(100)
    scheduler.pool.setRateLimits({})
    await vi.advanceTimersByTimeAsync(100)
    await Promise.all(outcomes)
    expect(starts).toEqual([['s1', 0], ['s2', 100], ['s3', 100]])
  })
})

describe('max_workers while running', () => {
  test('a new worker limit applies to calls not yet started; running ones go on', async () => {
    const { scheduler, call, starts } = setUp(1, {})
    const outcomes = scheduler.submit(['a', 'b', 'c', 'd'].map((id) => call(id, 'tool', 100)))
    await vi.advanceTimersByTimeAsync(50)
    scheduler.pool.concurrency = 3
    await vi.advanceTimersByTimeAsync(1000)
    await Promise.all(outcomes)
    expect(starts).toEqual([['a', 0], ['b', 50], ['c', 50], ['d', 100]])
  })
})

describe('which rule a tool falls under', () => {
  const rules = compileRateLimits({ 'web*': { concurrency: 1 }, search: { concurrency: 2 }, web_search: { calls: 2, per_ms: 1000 } })
  test.each([
    ['web_search', 'search', 'web_search'], // its own name wins
    ['web_fetch', 'search', 'search'], // then its toolset
    ['web_fetch', 'net', 'web*'], // then a glob
    ['read_file', 'files', undefined],
  ])('%s (toolset %s) → %s', (name, toolset, key) => {
    expect(rateRuleFor(rules, name, toolset)?.key).toBe(key)
  })
})

describe('a limit in few words (what the console shows beside a call)', () => {
  test.each([
    [{ calls: 2, per_ms: 1000 }, '2 per s'],
    [{ calls: 1, per_ms: 60_000 }, '1 per min'],
    [{ calls: 5, per_ms: 10_000 }, '5 per 10 s'],
    [{ calls: 3, per_ms: 250 }, '3 per 250 ms'],
    [{ calls: 100, per_ms: 3_600_000 }, '100 per h'],
    [{ concurrency: 2 }, '2 at once'],
    [{ calls: 2, per_ms: 1000, concurrency: 1 }, '2 per s, 1 at once'],
  ])('%j reads %s', (limit, words) => {
    expect(describeRatePace(limit)).toBe(words)
  })
})
