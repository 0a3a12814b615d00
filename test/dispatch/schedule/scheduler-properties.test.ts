/**
 * Property tests of the dispatcher's invariants (DESIGN.md, "Invariants"), for every mode and for
 * calls arriving one by one. fast-check's scheduler decides when each handler completes; the
 * handlers themselves check, as they start, that nothing they conflict with is running.
 */
import { getEventListeners } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { propertyRuns } from '../../property-runs.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { DispatchMode } from '../../../src/config/types.js'
import { defineTool } from '../../../src/contract/define-tool.js'
import { createHost } from '../../../src/host/create-host.js'
import type { HostEvent } from '../../../src/observe/host-events.js'
import { registry } from '../../../src/registry/registry.js'
import type { ToolCall, ToolContext, ToolResult } from '../../../src/contract/types.js'

type Kind = 'free' | 'barrier' | 'never' | 'cfgnever' | 'read' | 'write' | 'invalid'
type Behaviour = 'ok' | 'throw' | 'hang'

interface Spec {
  kind: Kind
  behaviour: Behaviour
  path: string
}

interface Planned extends Spec {
  id: string
  /** Global arrival order. */
  order: number
  /** Which `host.run` (batch) it arrived in. */
  batch: number
}

const MODES: DispatchMode[] = ['graph', 'partition', 'batch', 'serial']
// Overlapping parents and children, and a sibling that shares a name prefix but not a component.
const PATHS = ['a', 'a/b', 'a/b/c', 'ab', 'c']
const HANG_TIMEOUT_MS = 15

/** The test's own conflict rule (an oracle independent of src/dispatch). */
function conflicts(x: Planned, y: Planned): boolean {
  const alone = (k: Kind): boolean => k === 'barrier' || k === 'never' || k === 'cfgnever'
  if (alone(x.kind) || alone(y.kind)) return true
  if (x.kind === 'free' || y.kind === 'free') return false
  if (x.kind === 'read' && y.kind === 'read') return false
  return overlaps(x.path, y.path)
}

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)
}

/** What each running handler checks on entry; violations are collected, not thrown (a throw would only become a result). */
class Observer {
  readonly running = new Set<Planned>()
  readonly started = new Set<string>()
  readonly violations: string[] = []
  peak = 0
  constructor(
    readonly calls: Map<string, Planned>,
    readonly maxWorkers: number,
    readonly modeCheck: (me: Planned, running: ReadonlySet<Planned>) => string | undefined,
    readonly s: fc.Scheduler,
  ) {}

  enter(me: Planned): void {
    if (this.started.has(me.id)) this.violations.push(`${me.id} started twice`)
    for (const other of this.running) {
      if (conflicts(me, other)) this.violations.push(`${me.id} (${me.kind} ${me.path}) started while ${other.id} (${other.kind} ${other.path}) was running`)
    }
    for (const id of this.started) {
      const other = this.calls.get(id)!
      if (other.order > me.order && conflicts(me, other)) this.violations.push(`${me.id} started after the later conflicting ${other.id}`)
    }
    const why = this.modeCheck(me, this.running)
    if (why) this.violations.push(why)
    this.running.add(me)
    this.started.add(me.id)
    this.peak = Math.max(this.peak, this.running.size)
    if (this.running.size > this.maxWorkers) this.violations.push(`${this.running.size} handlers running with max_workers ${this.maxWorkers}`)
  }

  leave(me: Planned): void {
    this.running.delete(me)
  }
}

let observer: Observer | undefined

/** Rejects when `signal` aborts; `dispose` removes the listener. */
function onAbort(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let listener = (): void => undefined
  const promise = new Promise<never>((_resolve, reject) => {
    listener = () => reject(new Error('aborted'))
    if (signal.aborted) listener()
    else signal.addEventListener('abort', listener, { once: true })
  })
  promise.catch(() => undefined)
  return { promise, dispose: () => signal.removeEventListener('abort', listener) }
}

async function handler(args: { behaviour: Behaviour }, ctx: ToolContext): Promise<string> {
  const obs = observer!
  const me = obs.calls.get(ctx.call.id)!
  obs.enter(me)
  const abort = onAbort(ctx.call.signal)
  try {
    // A hanging handler waits until its timeout (or an interrupt) aborts it, and honours the abort.
    if (args.behaviour === 'hang') await abort.promise
    else await Promise.race([obs.s.schedule(Promise.resolve(), ctx.call.id), abort.promise])
    if (args.behaviour === 'throw') throw new Error(`boom in ${ctx.call.id}`)
    return `done ${ctx.call.id}`
  } finally {
    abort.dispose()
    obs.leave(me)
  }
}

const parameters = {
  type: 'object',
  properties: {
    behaviour: { type: 'string', enum: ['ok', 'throw', 'hang'] },
    path: { type: 'string' },
  },
  required: ['behaviour'],
  additionalProperties: false,
}

function registerTools(): void {
  for (const slow of [false, true]) {
    const suffix = slow ? '_slow' : ''
    const common = { description: 'test tool', parameters, handler, ...(slow ? { timeoutMs: HANG_TIMEOUT_MS } : {}) }
    registry.register(defineTool({ ...common, name: `p_free${suffix}`, parallelSafe: true, readOnly: () => true }))
    registry.register(defineTool({ ...common, name: `p_barrier${suffix}` }))
    registry.register(defineTool({ ...common, name: `p_never${suffix}`, neverParallel: true, parallelSafe: true }))
    // Declares itself parallel-safe, but config's dispatch.never_parallel wins.
    registry.register(defineTool({ ...common, name: `p_cfgnever${suffix}`, parallelSafe: true }))
    registry.register(defineTool({ ...common, name: `p_read${suffix}`, pathScoped: true, readOnly: () => true }))
    registry.register(defineTool({ ...common, name: `p_write${suffix}`, pathScoped: true, readOnly: () => false }))
  }
}

function toCall(p: Planned): ToolCall {
  if (p.kind === 'invalid') return { id: p.id, name: 'p_free', arguments: '{"behaviour": "ok",' }
  const name = `p_${p.kind}${p.behaviour === 'hang' ? '_slow' : ''}`
  const args: Record<string, unknown> = { behaviour: p.behaviour }
  if (p.kind === 'read' || p.kind === 'write') args.path = p.path
  return { id: p.id, name, arguments: JSON.stringify(args) }
}

const specArb: fc.Arbitrary<Spec> = fc.record({
  kind: fc.constantFrom<Kind>('free', 'barrier', 'never', 'cfgnever', 'read', 'read', 'write', 'write', 'invalid'),
  behaviour: fc.constantFrom<Behaviour>('ok', 'ok', 'throw', 'hang'),
  path: fc.constantFrom(...PATHS),
})

/** Mode-specific start rules, checked inside the handlers (on top of the conflict rule every mode keeps). */
function modeCheckFor(mode: DispatchMode, calls: readonly Planned[]): (me: Planned, running: ReadonlySet<Planned>) => string | undefined {
  const scheduled = calls.filter((c) => c.kind !== 'invalid')
  if (mode === 'serial') return (me, running) => (running.size > 0 ? `serial mode: ${me.id} started beside ${[...running].map((r) => r.id).join(', ')}` : undefined)
  if (mode === 'batch') {
    const serial =
      calls.some((c) => c.kind === 'invalid') ||
      scheduled.some((c) => c.kind === 'barrier' || c.kind === 'never' || c.kind === 'cfgnever') ||
      scheduled.some((c, i) => (c.kind === 'read' || c.kind === 'write') && scheduled.slice(i + 1).some((d) => (d.kind === 'read' || d.kind === 'write') && overlaps(c.path, d.path)))
    return (me, running) => (serial && running.size > 0 ? `batch mode (serial batch): ${me.id} started beside another call` : undefined)
  }
  if (mode === 'partition') {
    const group = new Map<string, number>()
    let g = -1
    let lastSafe = false
    for (const c of scheduled) {
      const safe = c.kind === 'free' || c.kind === 'read'
      if (!(safe && lastSafe)) g++
      group.set(c.id, g)
      lastSafe = safe
    }
    return (me, running) => ([...running].some((r) => group.get(r.id) !== group.get(me.id)) ? `partition mode: ${me.id} started beside a call of another group` : undefined)
  }
  return () => undefined
}

interface Scenario {
  specs: Spec[]
  mode: DispatchMode
  maxWorkers: number
  interrupt: boolean
  /** Online arrival: where the calls are split into separate `host.run` calls (empty = one batch). */
  cuts: number[]
  /** Consume one batch through `host.stream` instead of `host.run`. */
  stream?: boolean
}

async function checkScenario(s: fc.Scheduler, scenario: Scenario, root: string): Promise<void> {
  const calls: Planned[] = []
  let batch = 0
  scenario.specs.forEach((spec, order) => {
    if (scenario.cuts.includes(order)) batch++
    calls.push({ ...spec, id: `c${order}`, order, batch })
  })
  const online = scenario.cuts.length > 0
  observer = new Observer(new Map(calls.map((c) => [c.id, c])), scenario.maxWorkers, online ? () => undefined : modeCheckFor(scenario.mode, calls), s)
  const host = await createHost({
    root,
    loadPlugins: false,
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    config: {
      plugins: { dirs: [] },
      env_file: '',
      permissions: { mode: 'bypass' },
      dispatch: { mode: scenario.mode, max_workers: scenario.maxWorkers, timeout_ms: 10_000, interrupt_grace_ms: 1000, never_parallel: ['p_cfgnever', 'p_cfgnever_slow'] },
    },
  })
  const events: HostEvent[] = []
  host.onEvent((e) => events.push(e))
  const controller = new AbortController()
  let interruptedAt: number | undefined
  if (scenario.interrupt) {
    void s.schedule(Promise.resolve(), 'interrupt').then(() => {
      interruptedAt = observer!.started.size
      controller.abort()
    })
  }
  const batches = [...new Set(calls.map((c) => c.batch))].map((b) => calls.filter((c) => c.batch === b))
  let perBatch: ToolResult[][]
  let streamed: string[] | undefined
  if (scenario.stream && !online) {
    // host.stream: every result once, in completion order; put back in call order for the checks below.
    const collect = async (): Promise<ToolResult[]> => {
      const out: ToolResult[] = []
      for await (const r of host.stream(calls.map(toCall), { signal: controller.signal })) out.push(r)
      return out
    }
    const out = await s.waitFor(collect())
    streamed = out.map((r) => r.id)
    perBatch = [calls.map((c) => out.find((r) => r.id === c.id)!)]
    expect([...streamed].sort()).toEqual(calls.map((c) => c.id).sort())
  } else {
    // Online arrival: every batch is handed over without awaiting the one before.
    const runs = batches.map((group) => host.run(group.map(toCall), { signal: controller.signal }))
    perBatch = await s.waitFor(Promise.all(runs))
  }
  await s.waitFor(host.close())

  const obs = observer
  expect(obs.violations).toEqual([])
  perBatch.forEach((results, b) => {
    expect(results.map((r) => r.id)).toEqual(batches[b]!.map((c) => c.id))
  })
  const results = perBatch.flat()
  const interrupted = interruptedAt !== undefined
  for (const call of calls) {
    const result = results[call.order]!
    expect(allowedCodes(call, obs.started.has(call.id), interrupted)).toContain(result.ok ? 'ok' : result.error?.code)
    if (result.ok) expect(result.content).toBe(`done ${call.id}`)
  }
  // Released and finished exactly once each; nothing left reserved, running or listening.
  const scheduled = calls.filter((c) => c.kind !== 'invalid').map((c) => c.id).sort()
  expect(countBy(events, 'released')).toEqual(scheduled.map((id) => [id, 1]))
  expect(countBy(events, 'finished')).toEqual(scheduled.map((id) => [id, 1]))
  expect(host.stats.pending).toBe(0)
  expect(host.stats.running).toBe(0)
  expect(host.stats.peakRunning).toBeLessThanOrEqual(scenario.maxWorkers)
  expect(obs.running.size).toBe(0)
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  if (streamed) {
    const finishedOrder = events.flatMap((e) => (e.type === 'finished' ? [e.id] : []))
    expect(streamed.filter((id) => finishedOrder.includes(id))).toEqual(finishedOrder)
  }
}

function allowedCodes(call: Planned, started: boolean, interrupted: boolean): string[] {
  if (call.kind === 'invalid') return ['E_ARGS_INVALID']
  if (!started) return interrupted ? ['E_ABORTED'] : []
  const own = call.behaviour === 'ok' ? 'ok' : call.behaviour === 'throw' ? 'E_TOOL_FAILED' : 'E_TIMEOUT'
  return interrupted ? [own, 'E_INTERRUPTED'] : [own]
}

function countBy(events: readonly HostEvent[], type: 'released' | 'finished'): Array<[string, number]> {
  const counts = new Map<string, number>()
  for (const e of events) if (e.type === type) counts.set(e.id, (counts.get(e.id) ?? 0) + 1)
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1))
}

function scenarioArb(mode: fc.Arbitrary<DispatchMode>, online: boolean): fc.Arbitrary<Scenario> {
  return fc.array(specArb, { minLength: 1, maxLength: 8 }).chain((specs) =>
    fc.record({
      specs: fc.constant(specs),
      mode,
      maxWorkers: fc.integer({ min: 1, max: 4 }),
      interrupt: fc.boolean(),
      stream: fc.boolean(),
      cuts: online ? fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, specs.length - 1) }), { minLength: specs.length > 1 ? 1 : 0, maxLength: specs.length - 1 }) : fc.constant([]),
    }),
  )
}

describe('dispatcher invariants (property tests; handlers assert as they run)', () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-props-'))
    registry.clear()
    registerTools()
  })
  afterAll(() => {
    registry.clear()
    rmSync(root, { recursive: true, force: true })
  })

  test.each(MODES)('%s mode (run and stream): one result per call in order, no conflicting overlap, order kept, max_workers, releases once', async (mode) => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenarioArb(fc.constant(mode), false), (s, scenario) => checkScenario(s, scenario, root)),
      propertyRuns(60),
    )
  })

  test('online arrival: several host.run calls submitted without awaiting keep every invariant across batches', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenarioArb(fc.constantFrom(...MODES), true), (s, scenario) => checkScenario(s, scenario, root)),
      propertyRuns(80),
    )
  })

  test('calls arriving one at a time (one host.run each) are scheduled in arrival order', async () => {
    const oneByOne = fc.array(specArb, { minLength: 2, maxLength: 8 }).chain((specs) =>
      fc.record({ specs: fc.constant(specs), mode: fc.constant<DispatchMode>('graph'), maxWorkers: fc.integer({ min: 1, max: 4 }), interrupt: fc.boolean(), cuts: fc.constant(specs.slice(1).map((_, i) => i + 1)) }),
    )
    await fc.assert(fc.asyncProperty(fc.scheduler(), oneByOne, (s, scenario) => checkScenario(s, scenario, root)), propertyRuns(60))
  })
})

