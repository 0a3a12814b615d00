/**
 * Benchmark 5 — stress: many calls through the online scheduler in random batches, several
 * host.run calls in flight at once, with random throws, hangs past their timeout (honouring the
 * abort) and interrupts. Checked two ways — from the host's events and from inside the handlers —
 * against an oracle written here (not the scheduler's own conflict code).
 */
import { performance } from 'node:perf_hooks'
import { defineTool } from '../../src/contract/define-tool.js'
import type { HostEvent } from '../../src/observe/host-events.js'
import type { ToolCall, ToolContext, ToolResult } from '../../src/contract/types.js'
import { createRandom, TREE_FILES, TREE_FOLDERS } from './agent-batches.js'
import { createBenchHost } from './bench-host.js'
import type { BenchOptions } from './options.js'
import { fmt, type Table } from './table.js'

type Act = 'ok' | 'sleep' | 'throw' | 'hang'
type Kind = 'read' | 'write' | 'search' | 'free' | 'barrier' | 'never'

interface Spec {
  id: string
  batch: number
  kind: Kind
  path?: string
  act: Act
  ms: number
}

const MAX_WORKERS = 4
const HANG_TIMEOUT_MS = 10
const IN_FLIGHT = 6

/** The oracle: do two calls conflict? Barriers with everything; paths by components, one writing. */
function conflicts(a: Spec, b: Spec): boolean {
  if (a.kind === 'barrier' || a.kind === 'never' || b.kind === 'barrier' || b.kind === 'never') return true
  if (a.kind === 'free' || b.kind === 'free') return false
  if (a.kind !== 'write' && b.kind !== 'write') return false
  const p = a.path!
  const q = b.path!
  return p === q || p === '.' || q === '.' || p.startsWith(`${q}/`) || q.startsWith(`${p}/`)
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!
}

function generateSpecs(random: () => number, batch: number): Spec[] {
  const size = 1 + Math.floor(random() * 16)
  return Array.from({ length: size }, (_, i) => {
    const r = random()
    const kind: Kind = r < 0.35 ? 'read' : r < 0.6 ? 'write' : r < 0.72 ? 'search' : r < 0.9 ? 'free' : r < 0.98 ? 'barrier' : 'never'
    const a = random()
    const act: Act = a < 0.74 ? 'ok' : a < 0.94 ? 'sleep' : a < 0.99 ? 'throw' : 'hang'
    const spec: Spec = { id: `s${batch}_${i}`, batch, kind, act, ms: Math.floor(random() * 3) }
    if (kind === 'read' || kind === 'write') spec.path = pick(random, TREE_FILES)
    if (kind === 'search') spec.path = pick(random, TREE_FOLDERS)
    return spec
  })
}

/** Hanging calls go to a twin of their tool with a tight timeout; the rest get a timeout that load cannot trip. */
function toolName(spec: Spec): string {
  return spec.act === 'hang' ? `s_${spec.kind}_t` : `s_${spec.kind}`
}

/** Runs benchmark 5 and returns its table. */
export async function runStress(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const bench = await createBenchHost({ dispatch: { max_workers: MAX_WORKERS, interrupt_grace_ms: 50 } })
  const { host, registry } = bench
  const specs = new Map<string, Spec>()
  const counts = { handlerOverlaps: 0, handlerBreaches: 0, eventOverlaps: 0, eventBreaches: 0, ranTwice: 0, startedTwice: 0, abandoned: 0, orderViolations: 0, ranButSkipped: 0, wrongOutcome: 0 }
  // Handler-side instrumentation.
  const activeHandlers = new Map<string, Spec>()
  const entered = new Set<string>()
  const ticks = new Map<string, { start: number; end: number }>()
  let tick = 0
  const handler = async (args: { id: string }, ctx: ToolContext): Promise<string> => {
    const spec = specs.get(args.id)!
    if (entered.has(spec.id)) counts.ranTwice++
    entered.add(spec.id)
    for (const other of activeHandlers.values()) if (conflicts(other, spec)) counts.handlerOverlaps++
    activeHandlers.set(spec.id, spec)
    if (activeHandlers.size > MAX_WORKERS) counts.handlerBreaches++
    const span = { start: ++tick, end: Number.POSITIVE_INFINITY }
    ticks.set(spec.id, span)
    try {
      if (spec.act === 'throw') throw new Error('planned failure')
      if (spec.act === 'sleep' || spec.act === 'hang') {
        const signal = ctx.call.signal
        await new Promise<void>((resolve, reject) => {
          const timer = spec.act === 'sleep' ? setTimeout(resolve, spec.ms) : undefined
          const onAbort = (): void => {
            clearTimeout(timer)
            reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
          }
          if (signal.aborted) onAbort()
          else signal.addEventListener('abort', onAbort, { once: true })
        })
      } else {
        await Promise.resolve()
      }
      return 'ok'
    } finally {
      span.end = ++tick
      activeHandlers.delete(spec.id)
    }
  }
  const parameters = {
    type: 'object',
    properties: { id: { type: 'string' }, path: { type: 'string' } },
    required: ['id'],
    additionalProperties: false,
  }
  for (const [suffix, timeoutMs] of [['', 5000], ['_t', HANG_TIMEOUT_MS]] as const) {
    const common = { description: 'Stress stand-in.', parameters, timeoutMs, handler }
    registry.register(defineTool({ ...common, name: `s_read${suffix}`, pathScoped: true, readOnly: () => true }))
    registry.register(defineTool({ ...common, name: `s_write${suffix}`, pathScoped: true }))
    registry.register(defineTool({ ...common, name: `s_search${suffix}`, pathScoped: true, readOnly: () => true }))
    registry.register(defineTool({ ...common, name: `s_free${suffix}`, parallelSafe: true }))
    registry.register(defineTool({ ...common, name: `s_barrier${suffix}` }))
    registry.register(defineTool({ ...common, name: `s_never${suffix}`, neverParallel: true }))
  }

  // Event-side instrumentation.
  const activeByEvents = new Map<string, Spec>()
  const startedByEvents = new Set<string>()
  host.onEvent((event: HostEvent) => {
    if (event.type === 'started') {
      const spec = specs.get(event.id)!
      if (startedByEvents.has(event.id)) counts.startedTwice++
      startedByEvents.add(event.id)
      for (const other of activeByEvents.values()) if (conflicts(other, spec)) counts.eventOverlaps++
      activeByEvents.set(event.id, spec)
      if (activeByEvents.size > MAX_WORKERS || event.running > MAX_WORKERS) counts.eventBreaches++
    } else if (event.type === 'released') {
      activeByEvents.delete(event.id)
      if (event.abandoned) counts.abandoned++
    }
  })

  const random = createRandom(options.seed * 7919)
  const resultsById = new Map<string, number>()
  const outcomes = new Map<string, number>()
  let lost = 0
  const wrongExamples: string[] = []
  let submitted = 0
  let batches = 0
  let interrupted = 0
  const runBatch = async (batch: number): Promise<void> => {
    const list = generateSpecs(random, batch)
    for (const s of list) specs.set(s.id, s)
    submitted += list.length
    const calls: ToolCall[] = list.map((s) => ({ id: s.id, name: toolName(s), arguments: JSON.stringify(s.path === undefined ? { id: s.id } : { id: s.id, path: s.path }) }))
    const controller = new AbortController()
    const interrupt = random() < 0.05
    if (interrupt) {
      interrupted++
      const after = Math.floor(random() * 6)
      if (after === 0) queueMicrotask(() => controller.abort())
      else setTimeout(() => controller.abort(), after)
    }
    const results: ToolResult[] = await host.run(calls, { signal: controller.signal, trace: true })
    checkBatch(list, results, interrupt)
  }
  const checkBatch = (list: Spec[], results: ToolResult[], interrupt: boolean): void => {
    for (let i = 0; i < list.length; i++) {
      const spec = list[i]!
      const result = results[i]
      if (!result || result.id !== spec.id) {
        lost++
        continue
      }
      resultsById.set(result.id, (resultsById.get(result.id) ?? 0) + 1)
      const code = result.ok ? 'ok' : result.error?.code ?? 'E_?'
      outcomes.set(code, (outcomes.get(code) ?? 0) + 1)
      if (code === 'E_ABORTED' && entered.has(spec.id)) counts.ranButSkipped++
      const expected = spec.act === 'throw' ? 'E_TOOL_FAILED' : spec.act === 'hang' ? 'E_TIMEOUT' : 'ok'
      const acceptable = code === expected || (interrupt && (code === 'E_ABORTED' || code === 'E_INTERRUPTED'))
      if (!acceptable) {
        counts.wrongOutcome++
        if (wrongExamples.length < 3) wrongExamples.push(`${spec.id} planned ${spec.act} (${spec.kind}) got ${code}: ${result.content.slice(0, 120)}`)
      }
    }
    if (results.length !== list.length) lost += Math.max(0, results.length - list.length)
    // Conflicting calls of one batch must run in call order, never overlapping.
    for (let j = 0; j < list.length; j++) {
      const b = ticks.get(list[j]!.id)
      if (!b) continue
      for (let i = 0; i < j; i++) {
        const a = ticks.get(list[i]!.id)
        if (a && conflicts(list[i]!, list[j]!) && !(a.end < b.start)) counts.orderViolations++
      }
    }
  }

  const t0 = performance.now()
  const running = new Set<Promise<void>>()
  while (submitted < options.stressCalls) {
    const p = runBatch(batches++).finally(() => running.delete(p))
    running.add(p)
    if (running.size >= IN_FLIGHT) await Promise.race(running)
  }
  await Promise.all(running)
  await host.close()
  const seconds = (performance.now() - t0) / 1000
  let duplicated = 0
  for (const n of resultsById.values()) if (n > 1) duplicated += n - 1
  const missing = [...specs.keys()].filter((id) => !resultsById.has(id)).length
  const peak = host.stats.peakRunning
  await bench.dispose()

  const overlaps = counts.handlerOverlaps + counts.eventOverlaps
  const breaches = counts.handlerBreaches + counts.eventBreaches
  const allZero = missing === 0 && duplicated === 0 && overlaps === 0 && breaches === 0 && counts.ranTwice === 0 && counts.startedTwice === 0 && counts.orderViolations === 0 && counts.ranButSkipped === 0 && counts.wrongOutcome === 0
  const outcomeText = [...outcomes.entries()].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n.toLocaleString('en-US')}`).join(', ')
  return {
    tables: [
      {
        title: `5. Stress — ${submitted.toLocaleString('en-US')} calls in ${batches.toLocaleString('en-US')} random batches, ${IN_FLIGHT} host.run in flight, max_workers ${MAX_WORKERS}`,
        headers: ['check', 'count'],
        rows: [
          ['results lost (a call without its result)', missing + lost],
          ['results duplicated', duplicated],
          ['conflicting overlaps (handlers / events)', `${counts.handlerOverlaps} / ${counts.eventOverlaps}`],
          ['worker-limit breaches (handlers / events)', `${counts.handlerBreaches} / ${counts.eventBreaches}`],
          ['handlers run twice / started twice', `${counts.ranTwice} / ${counts.startedTwice}`],
          ['conflicting calls of a batch out of call order', counts.orderViolations],
          ['E_ABORTED ("did not run") although the handler ran', counts.ranButSkipped],
          ['outcome not the planned one (see notes)', counts.wrongOutcome],
          ['handlers abandoned after ignoring abort (all honour it)', counts.abandoned],
          ['peak handlers running at once', peak],
          ['wall time (s)', fmt(seconds, 1)],
          ['calls per second', fmt(submitted / seconds, 0)],
        ],
        notes: [
          `outcomes: ${outcomeText}; ${interrupted} batches interrupted (AbortController aborted 0–5 ms after submission)`,
          'planned outcome: throw → E_TOOL_FAILED, hang → E_TIMEOUT, else ok; in an interrupted batch E_ABORTED or E_INTERRUPTED is also right',
          `plan per call: 74% return at once, 20% sleep 0–2 ms, 5% throw, 1% hang until the ${HANG_TIMEOUT_MS} ms timeout aborts them (a twin tool with that timeout; the others have 5 s, which event-loop lag under load cannot trip); kinds: 35% read, 25% write, 12% folder search on one small tree, 18% free, 8% terminal-like barriers, 2% never-parallel; batches of 1–16 calls`,
          ...(wrongExamples.length > 0 ? [`unplanned outcomes, e.g.: ${wrongExamples.join(' | ')}`] : []),
          'overlaps and order are judged by an oracle in the benchmark (path components, one side writing; barriers conflict with all), not by the scheduler\'s own code',
        ],
      },
    ],
    targets: [`stress: results lost, duplicated, conflicting overlaps, worker-limit breaches all 0 — ${allZero ? 'met' : 'MISSED'} (${fmt(submitted / seconds, 0)} calls/s)`],
  }
}
