// Live limits × admission at arrival (issues 12 and 14): a call held behind its approval when
// config.yaml's live keys change starts under the new ones (timeout, rate limit), and while it waits
// for a person it holds no worker and no rate slot. Driven by deferreds and events, not sleeps.
import { internalsOf } from '../../../src/host/host.js'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { createDeferred } from '../../../src/contract/deferred.js'
import { createHost, defineTool, registry, type ApprovalAnswer, type ApprovalRequest, type Host, type HostEvent } from '../../../src/index.js'
import { silentLogger } from '../../../src/contract/logger.js'
import { makeRoot } from '../../fixtures/permissions/tools.js'

let root: string
let cleanup: () => void
let host: Host | undefined
const started: string[] = []

beforeEach(() => {
  ;({ root, cleanup } = makeRoot())
  started.length = 0
  registry.register(defineTool({
    name: 'web_fetch',
    description: 'Fetches (a stand-in: runs until it is aborted).',
    parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    parallelSafe: true,
    handler: (args: { url: string }, ctx) => {
      started.push(args.url)
      return new Promise<string>((_, reject) => ctx.call.signal.addEventListener('abort', () => reject(ctx.call.signal.reason as Error), { once: true }))
    },
  }))
})

afterEach(async () => {
  await host?.close()
  host = undefined
  registry.clear()
  cleanup()
})

test('a call held behind its approval when the live keys change runs under the new timeout and rate limit', async () => {
  const asked = createDeferred<readonly ApprovalRequest[]>()
  const answer = createDeferred<ApprovalAnswer[]>()
  host = await createHost({
    root,
    loadPlugins: false,
    log: silentLogger,
    env: {},
    config: { env_file: '', permissions: { mode: 'ask', audit_log: '' }, dispatch: { timeout_ms: 60_000, max_workers: 4 } },
    approve: (requests) => {
      asked.resolve(requests)
      return answer.promise
    },
  })
  const events: HostEvent[] = []
  host.onEvent((event) => events.push(event))
  const controller = new AbortController()
  const results = host.run([
    { id: 'a', name: 'web_fetch', arguments: { url: 'a' } },
    { id: 'b', name: 'web_fetch', arguments: { url: 'b' } },
  ], { signal: controller.signal })
  expect((await asked.promise).map((r) => r.callId)).toEqual(['a', 'b'])
  // Waiting for a person: no worker and no rate slot taken.
  expect(host.stats.running).toBe(0)
  expect(internalsOf(host).pool.waiting).toBe(0)

  const next = structuredClone(host.config)
  next.dispatch.timeout_ms = 30
  next.rate_limits = { web_fetch: { calls: 1, per_ms: 600_000 } }
  host.applyLiveConfig(next)
  const bWaitsForRate = new Promise<void>((resolve) => host!.onEvent((e) => e.type === 'waiting-rate' && e.id === 'b' && resolve()))
  const aFinished = new Promise<void>((resolve) => host!.onEvent((e) => e.type === 'finished' && e.id === 'a' && resolve()))
  answer.resolve([{ decision: 'allow-once' }, { decision: 'allow-once' }])

  await bWaitsForRate
  expect(started).toEqual(['a'])
  await aFinished // its handler never ends on its own: only the new 30 ms timeout ends it
  controller.abort()
  const [a, b] = await results
  expect(a).toMatchObject({ ok: false, error: { code: 'E_TIMEOUT' } })
  expect(a!.content).toContain('30 ms')
  expect(b).toMatchObject({ ok: false, error: { code: 'E_ABORTED' } })
  expect(started).toEqual(['a'])
  expect(events.filter((e) => e.type === 'waiting-rate').map((e) => e.type === 'waiting-rate' && [e.id, e.group])).toEqual([['b', 'web_fetch']])
})
