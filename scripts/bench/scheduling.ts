/**
 * Benchmark 1 — scheduling quality: the same seeded agent batches in all four modes, each batch's
 * makespan against its lower bound, on a virtual clock (exact) and on the real clock (overhead shows).
 */
import { performance } from 'node:perf_hooks'
import type { DispatchMode } from '../../src/config/types.js'
import type { ToolResult } from '../../src/contract/types.js'
import { createRandom, generateBatch, lowerBound, registerAgentTools, type GeneratedCall, type LowerBound } from './agent-batches.js'
import { createBenchHost, type BenchHost } from './bench-host.js'
import { internalsOf } from '../../src/host/host.js'
import { bottomLevels, conflictGraph, listSchedule, searchBestSchedule } from './offline-schedules.js'
import type { BenchOptions } from './options.js'
import { fmt, sum, verdict, type Table } from './table.js'
import { VirtualClock } from './virtual-clock.js'

const MODES: DispatchMode[] = ['graph', 'partition', 'batch', 'serial']

interface Batch {
  calls: GeneratedCall[]
  bound: LowerBound
  /** For each call, the earlier calls it conflicts with. */
  deps: number[][]
}

type Priority = 'critical-path' | 'call-order'

/** Per mode, the makespan of every batch (ms). */
type Makespans = Record<DispatchMode, number[]>

function generate(count: number, seed: number, host: BenchHost, maxWorkers: number, scale = 1): Batch[] {
  const random = createRandom(seed)
  return Array.from({ length: count }, (_, b) => {
    const calls = generateBatch(random, b)
    const footprints = calls.map((c) => internalsOf(host.host).footprintOf(host.registry.get(c.name)!, c.args))
    return { calls, bound: lowerBound(calls.map((c) => c.args.ms * scale), footprints, maxWorkers), deps: conflictGraph(footprints) }
  })
}

function assertAllOk(results: ToolResult[], mode: string): void {
  const bad = results.find((r) => !r.ok)
  if (bad) throw new Error(`scheduling benchmark: ${mode} call ${bad.id} failed: ${bad.content}`)
}

// Duration estimates start empty: the host learns them from the batches it runs (none are handed over).
async function runVirtual(options: BenchOptions, maxWorkers: number, count: number, modes: readonly DispatchMode[] = MODES, priority: Priority = 'critical-path'): Promise<{ batches: Batch[]; spans: Makespans; seconds: number }> {
  const clock = new VirtualClock()
  let events = 0
  const bench = await createBenchHost({ now: () => clock.now(), dispatch: { max_workers: maxWorkers, priority, duration_estimates: '' } })
  registerAgentTools(bench.registry, (ms) => clock.sleep(ms))
  bench.host.onEvent(() => events++)
  const batches = generate(count, options.seed, bench, maxWorkers)
  const spans: Makespans = { graph: [], partition: [], batch: [], serial: [] }
  const started = performance.now()
  for (const batch of batches) {
    for (const mode of modes) {
      const t0 = clock.now()
      const results = await clock.runUntil(bench.host.run(batch.calls.map((c) => c.call), { mode, trace: true }), () => events)
      assertAllOk(results, mode)
      spans[mode].push(Math.max(...results.map((r) => r.endedAt ?? t0)) - t0)
    }
  }
  const seconds = (performance.now() - started) / 1000
  await bench.dispose()
  return { batches, spans, seconds }
}

async function runReal(options: BenchOptions, maxWorkers = options.maxWorkers, modes: readonly DispatchMode[] = MODES, priority: Priority = 'critical-path'): Promise<{ batches: Batch[]; spans: Makespans; seconds: number }> {
  const scale = options.realScale
  const bench = await createBenchHost({ dispatch: { max_workers: maxWorkers, priority, duration_estimates: '' } })
  registerAgentTools(bench.registry, (ms, signal) => new Promise((resolve) => {
    const timer = setTimeout(resolve, ms * scale)
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
  }))
  // The same seed, so the real batches are the first batches of the virtual run.
  const batches = generate(options.realBatches, options.seed, bench, maxWorkers, scale)
  const spans: Makespans = { graph: [], partition: [], batch: [], serial: [] }
  const started = performance.now()
  for (const batch of batches) {
    for (const mode of modes) {
      const t0 = performance.now()
      const results = await bench.host.run(batch.calls.map((c) => c.call), { mode })
      spans[mode].push(performance.now() - t0)
      assertAllOk(results, mode)
    }
  }
  const seconds = (performance.now() - started) / 1000
  await bench.dispose()
  return { batches, spans, seconds }
}

function modeRows(batches: Batch[], spans: Makespans, extra?: (mode: DispatchMode) => string): (string | number)[][] {
  const bounds = batches.map((b) => b.bound.bound)
  const totalBound = sum(bounds)
  const graphTotal = sum(spans.graph)
  const rows: (string | number)[][] = [['lower bound', fmt(totalBound / 1000, 2), '1.000', '—', '—', '—', ...(extra ? ['—'] : [])]]
  for (const mode of MODES) {
    const total = sum(spans[mode])
    const ratios = spans[mode].map((s, i) => s / bounds[i]!)
    const within = ratios.filter((r) => r <= 1.02 + 1e-9).length
    rows.push([
      mode,
      fmt(total / 1000, 2),
      fmt(total / totalBound, 3),
      `${within}/${batches.length}`,
      fmt(Math.max(...ratios), 2),
      mode === 'graph' ? '—' : `${fmt(total / graphTotal, 2)}×`,
      ...(extra ? [extra(mode)] : []),
    ])
  }
  return rows
}

/** Runs benchmark 1 and returns its tables. */
export async function runScheduling(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const virtual = await runVirtual(options, options.maxWorkers, options.batches)
  // The same batches with workers unbounded: graph must then hit the critical path exactly.
  const unbounded = await runVirtual(options, 1024, options.batches)
  const { batches, spans } = virtual
  const calls = sum(batches.map((b) => b.calls.length))
  const totalBound = sum(batches.map((b) => b.bound.bound))
  const graphRatio = sum(spans.graph) / totalBound
  const workerBound = batches.filter((b) => b.bound.workBound > b.bound.criticalPath).length
  const missed = spans.graph.map((s, i) => ({ s, b: batches[i]! })).filter(({ s, b }) => s > b.bound.bound * 1.02 + 1e-9)
  const missedWide = missed.filter(({ b }) => b.calls.length > options.maxWorkers).length
  const unboundedExact = unbounded.spans.graph.filter((s, i) => Math.abs(s - unbounded.batches[i]!.bound.criticalPath) < 1e-6).length
  const graphMet = graphRatio <= 1.02
  const virtualTable: Table = {
    title: `1a. Scheduling quality — virtual clock (${batches.length} batches, ${calls} calls, seed ${options.seed}, max_workers ${options.maxWorkers})`,
    headers: ['mode', 'total makespan (s)', '÷ lower bound', 'batches ≤ 2% over bound', 'worst batch ÷ bound', 'slower than graph'],
    rows: modeRows(batches, spans),
    notes: [
      `lower bound per batch = max(critical path through the conflict graph, total work ÷ ${options.maxWorkers}); the work bound is the larger in ${workerBound} of ${batches.length} batches`,
      `graph with max_workers 1024 (no worker limit): makespan equals the critical path exactly in ${unboundedExact} of ${batches.length} batches (total ${fmt(sum(unbounded.spans.graph) / 1000, 2)} s vs critical paths ${fmt(sum(unbounded.batches.map((b) => b.bound.criticalPath)) / 1000, 2)} s)`,
      `graph batches more than 2% over their bound: ${missed.length}; of these, ${missedWide} have more calls than workers (greedy list scheduling in call order under the worker limit, which cannot know durations)`,
      `simulated time ${fmt((sum(Object.values(spans).flat()) + sum(unbounded.spans.graph)) / 1000, 1)} s ran in ${fmt(virtual.seconds + unbounded.seconds, 1)} s of wall time`,
      `target graph within 2% of the lower bound (total): ${verdict(graphMet)} (${fmt((graphRatio - 1) * 100, 2)}% over)`,
    ],
  }
  // Tighter worker limits, where the work bound bites and the order in which ready calls get workers matters.
  const tightRows: (string | number)[][] = []
  const tightTargets: string[] = []
  let neverWorse = true
  for (const workers of options.quick ? [1, 2, 4] : [1, 2, 3, 4]) {
    if (workers >= options.maxWorkers) continue
    const run = await runVirtual(options, workers, options.batches)
    const fifo = await runVirtual(options, workers, options.batches, ['graph'], 'call-order')
    const bounds = run.batches.map((b) => b.bound.bound)
    const bound = sum(bounds)
    const ratios = run.spans.graph.map((s, i) => s / bounds[i]!)
    const fifoRatios = fifo.spans.graph.map((s, i) => s / bounds[i]!)
    // Critical-path priority with the true durations (which the host never knows), computed offline.
    const exact = run.batches.map((b) => listSchedule(b.calls.map((c) => c.args.ms), b.deps, workers, bottomLevels(b.calls.map((c) => c.args.ms), b.deps)))
    const graphTotal = sum(run.spans.graph) / bound
    const fifoTotal = sum(fifo.spans.graph) / bound
    if (graphTotal > fifoTotal + 1e-9) neverWorse = false
    const row: (string | number)[] = [
      workers,
      run.batches.filter((b) => b.bound.workBound > b.bound.criticalPath).length,
      fmt(graphTotal, 3),
      `${ratios.filter((r) => r <= 1.02 + 1e-9).length}/${run.batches.length}`,
      fmt(Math.max(...ratios), 2),
      fmt(fifoTotal, 3),
      `${fifoRatios.filter((r) => r <= 1.02 + 1e-9).length}/${run.batches.length}`,
      fmt(sum(exact) / bound, 3),
    ]
    if (options.optimum) {
      const best = run.batches.map((b) => searchBestSchedule(b.calls.map((c) => c.args.ms), b.deps, workers))
      row.push(`${fmt(sum(best.map((r) => r.makespan)) / bound, 3)} (${best.filter((r) => r.exact).length} exact)`)
    }
    row.push(`${fmt(sum(run.spans.partition) / sum(run.spans.graph), 2)}×`, `${fmt(sum(run.spans.serial) / sum(run.spans.graph), 2)}×`)
    tightRows.push(row)
    if (workers === 2 || workers === 4) tightTargets.push(`scheduling: graph ≤ 1.02 × the lower bound in total at max_workers ${workers} (estimates learned during the run) — ${verdict(graphTotal <= 1.02)}: ${fmt(graphTotal, 4)} (call order: ${fmt(fifoTotal, 4)}; with the true durations: ${fmt(sum(exact) / bound, 4)})`)
  }
  tightTargets.push(`scheduling: critical-path priority never worse than call-order greedy in total, at any worker count above — ${verdict(neverWorse)}`)
  const tightTable: Table = {
    title: `1b. graph under tighter worker limits — virtual clock (same ${batches.length} batches)`,
    headers: [
      'max_workers',
      'batches where work ÷ workers is the bound',
      'graph ÷ lower bound',
      'batches ≤ 2% over bound',
      'worst batch ÷ bound',
      'call order ÷ bound',
      'call order ≤ 2%',
      'true durations ÷ bound',
      ...(options.optimum ? ['best found ÷ bound'] : []),
      'partition ÷ graph',
      'serial ÷ graph',
    ],
    rows: tightRows,
    notes: [
      'graph = critical-path priority (dispatch.priority default): when more calls are ready than workers, the one with the longest estimated chain of work behind it goes first; estimates are per-tool moving averages the host learns from the calls it runs (it starts with none, so the first batches go in call order). call order = dispatch.priority: call-order (the greedy list scheduling of earlier runs)',
      'true durations = the same priority computed offline with each call’s real duration, which no estimate can know here: durations are drawn per call (log-normal, σ 0.9) independently of tool and arguments, so a per-tool estimate tells only terminal-like calls (3× longer, and barriers) from the rest; what priority gains here comes from the shape of the conflict graph',
      ...(options.optimum ? ['best found = the shortest makespan a branch-and-bound search over start orders finds (true durations, idle workers allowed), “exact” where the search finished: the achievable optimum, which the lower bound max(critical path, work ÷ workers) can undershoot'] : []),
      'with 1 worker every mode is serial and the bound is the total work, so graph must equal it',
    ],
  }
  const real = await runReal(options)
  const virtualFirst = (mode: DispatchMode): number => sum(spans[mode].slice(0, real.batches.length)) * options.realScale
  const realTable: Table = {
    title: `1c. Scheduling quality — real clock (first ${real.batches.length} batches of the same seed, sleeps × ${options.realScale}, max_workers ${options.maxWorkers})`,
    headers: ['mode', 'total makespan (s)', '÷ lower bound', 'batches ≤ 2% over bound', 'worst batch ÷ bound', 'slower than graph', 'overhead over virtual (ms/batch)'],
    rows: modeRows(real.batches, real.spans, (mode) => fmt((sum(real.spans[mode]) - virtualFirst(mode)) / real.batches.length, 2)),
    notes: [
      'makespan here is wall time from host.run() to its results (admission, shaping and setTimeout lateness included); the overhead column subtracts the same batches’ exact virtual makespans (scaled)',
      `wall time ${fmt(real.seconds, 1)} s`,
    ],
  }
  // The same real batches with 2 workers: critical-path priority against call order.
  const tight = await runReal(options, 2, ['graph'])
  const tightFifo = await runReal(options, 2, ['graph'], 'call-order')
  const tightBound = sum(tight.batches.map((b) => b.bound.bound))
  const realRow = (what: string, spans: number[]): (string | number)[] => {
    const ratios = spans.map((s, i) => s / tight.batches[i]!.bound.bound)
    return [what, fmt(sum(spans) / 1000, 2), fmt(sum(spans) / tightBound, 3), `${ratios.filter((r) => r <= 1.02 + 1e-9).length}/${tight.batches.length}`, fmt(Math.max(...ratios), 2)]
  }
  const realTightTable: Table = {
    title: `1d. graph at max_workers 2 — real clock (the same ${tight.batches.length} batches, sleeps × ${options.realScale})`,
    headers: ['run', 'total makespan (s)', '÷ lower bound', 'batches ≤ 2% over bound', 'worst batch ÷ bound'],
    rows: [
      ['lower bound', fmt(tightBound / 1000, 2), '1.000', '—', '—'],
      realRow('graph, critical-path priority', tight.spans.graph),
      realRow('graph, call order', tightFifo.spans.graph),
    ],
    notes: [`each host learns its estimates from these batches as they run; wall time ${fmt(tight.seconds + tightFifo.seconds, 1)} s`],
  }
  const targets = [`scheduling: graph within 2% of the lower bound on the virtual clock — ${verdict(graphMet)}: ${fmt(graphRatio, 4)}× the bound in total; ${batches.length - missed.length}/${batches.length} batches within 2%`]
  return { tables: [virtualTable, tightTable, realTable, realTightTable], targets: [...targets, ...tightTargets] }
}
