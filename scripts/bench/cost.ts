/**
 * Benchmark 2 — cost per call: the whole pipeline (parse, validate, authorise, schedule, execute,
 * shape) with no-op handlers, next to a bare loop calling the same handler directly.
 */
import { performance } from 'node:perf_hooks'
import { defineTool } from '../../src/define-tool.js'
import { ToolRegistry } from '../../src/registry.js'
import type { ToolCall } from '../../src/types.js'
import { createBenchHost } from './bench-host.js'
import type { BenchOptions } from './options.js'
import { fmt, median, verdict, type Table } from './table.js'

const parameters = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } as const
const noop = (args: { n: number }): string => (args.n >= 0 ? 'ok' : 'negative')

function noopTool(name: string) {
  return defineTool<{ n: number }>({ name, description: `No-op ${name} (benchmark).`, parameters, parallelSafe: true, readOnly: () => true, handler: noop })
}

function calls(count: number, prefix: string): ToolCall[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, name: 'noop', arguments: `{"n":${i}}` }))
}

interface Timing {
  /** Wall-clock µs per unit (median of the runs). */
  wall: number
  /** CPU µs (user + system, this process) per unit (median): less hurt by other load on the machine. */
  cpu: number
}

/** Median over `runs` of (µs for `inner` repetitions of `body`) ÷ `per`, in wall and CPU time. */
async function measure(runs: number, inner: number, per: number, body: () => Promise<unknown> | unknown): Promise<Timing> {
  for (let i = 0; i < Math.min(inner, 200); i++) await body() // warm-up
  const wall: number[] = []
  const cpu: number[] = []
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    for (let i = 0; i < inner; i++) await body()
    const t1 = performance.now()
    const c = process.cpuUsage(c0)
    wall.push(((t1 - t0) * 1000) / (inner * per))
    cpu.push((c.user + c.system) / (inner * per))
  }
  return { wall: median(wall), cpu: median(cpu) }
}

/** Runs benchmark 2 and returns its table. */
export async function runCost(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const runs = options.runs
  const bench = await createBenchHost({})
  bench.registry.register(noopTool('noop'))
  const { host } = bench
  const bare = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) await noop({ n: i })
  }
  const one = calls(1, 'one')
  const eight = calls(8, 'eight')
  const thousand = calls(1000, 'k')
  const scale = options.quick ? 0.3 : 1
  const oneHost = await measure(runs, Math.round(2000 * scale), 1, () => host.run(one))
  const oneBare = await measure(runs, Math.round(2000 * scale), 1, () => bare(1))
  const eightHost = await measure(runs, Math.round(1000 * scale), 1, () => host.run(eight))
  const eightBare = await measure(runs, Math.round(1000 * scale), 1, () => bare(8))
  const kHost = await measure(runs, Math.max(3, Math.round(20 * scale)), 1000, () => host.run(thousand))
  const kBare = await measure(runs, Math.max(3, Math.round(20 * scale)), 1000, () => bare(1000))
  const failed = (await host.run(eight)).filter((r) => !r.ok)
  if (failed.length > 0) throw new Error(`cost benchmark: a no-op call failed: ${failed[0]!.content}`)
  await bench.dispose()

  // getDefinitions over 1,000 registered tools: the first call after registering, then repeated.
  const firstWall: number[] = []
  const firstCpu: number[] = []
  let registry = new ToolRegistry()
  for (let r = 0; r < runs; r++) {
    registry = new ToolRegistry()
    for (let i = 0; i < 1000; i++) registry.register(noopTool(`tool_${String(i).padStart(4, '0')}`))
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    const defs = await registry.getDefinitions()
    firstWall.push((performance.now() - t0) * 1000)
    const c = process.cpuUsage(c0)
    firstCpu.push(c.user + c.system)
    if (defs.length !== 1000) throw new Error(`cost benchmark: getDefinitions returned ${defs.length} of 1000 tools`)
  }
  const defsFirst: Timing = { wall: median(firstWall), cpu: median(firstCpu) }
  const defsRepeated = await measure(runs, Math.round(2000 * scale), 1, () => registry.getDefinitions())

  const row = (what: string, host: Timing, bare: Timing | undefined, unit: string): (string | number)[] => [
    what,
    fmt(host.wall, 2),
    fmt(host.cpu, 2),
    bare ? fmt(bare.wall, 3) : '—',
    bare ? fmt(host.wall - bare.wall, 2) : '—',
    unit,
  ]
  const per = (t: Timing, n: number): Timing => ({ wall: t.wall / n, cpu: t.cpu / n })
  const targets = [
    `cost: < 5 µs per call in a batch of 1,000 — ${verdict(kHost.wall < 5)}: ${fmt(kHost.wall, 2)} µs wall, ${fmt(kHost.cpu, 2)} µs CPU`,
    `cost: < 25 µs per batch of 8 — ${verdict(eightHost.wall < 25)}: ${fmt(eightHost.wall, 1)} µs wall, ${fmt(eightHost.cpu, 1)} µs CPU`,
    `cost: getDefinitions over 1,000 tools < 100 µs when nothing changed — ${verdict(defsRepeated.wall < 100)}: ${fmt(defsRepeated.wall, 1)} µs (first call ${fmt(defsFirst.wall, 1)} µs)`,
  ]
  return {
    tables: [
      {
        title: `2. Cost per call — no-op handlers, whole pipeline (median of ${runs} runs)`,
        headers: ['what', 'host wall (µs)', 'host CPU (µs)', 'bare loop (µs)', 'host overhead, wall (µs)', 'per'],
        rows: [
          row('one call alone (host.run of 1)', oneHost, oneBare, 'call'),
          row('batch of 8', eightHost, eightBare, 'batch'),
          row('batch of 8, per call', per(eightHost, 8), per(eightBare, 8), 'call'),
          row('one batch of 1,000, per call', kHost, kBare, 'call'),
          row('getDefinitions, 1,000 tools, first call', defsFirst, undefined, 'call'),
          row('getDefinitions, 1,000 tools, repeated', defsRepeated, undefined, 'call'),
        ],
        notes: [
          'arguments are raw JSON text (so parse counts), validated by the compiled schema, authorised (permissions bypass), footprinted, scheduled (graph, max_workers 8) and shaped; the bare loop awaits the same handler directly',
          'host CPU = user + system CPU time of this process over the same loops: on a shared machine it is the steadier figure (wall time includes waiting for a core)',
        ],
      },
    ],
    targets,
  }
}
