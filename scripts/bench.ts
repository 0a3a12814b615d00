/**
 * `npm run bench [-- --quick] [-- --only=scheduling,cost,...]`: the ten benchmarks of toolhost, each
 * printing a table. Figures are measured, never edited; BENCHMARKS.md holds a full run's output.
 */
import { execSync } from 'node:child_process'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { runCost } from './bench/cost.js'
import { runInstances } from './bench/instances.js'
import { runMcp } from './bench/mcp.js'
import { runMemory } from './bench/memory.js'
import { parseBenchOptions, type BenchmarkName, type BenchOptions } from './bench/options.js'
import { runProjectStartup } from './bench/project-startup.js'
import { runScheduling } from './bench/scheduling.js'
import { runSearch } from './bench/search.js'
import { runStartup } from './bench/startup.js'
import { runStress } from './bench/stress.js'
import { runStoreCost } from './bench/store-cost.js'
import { runStreaming } from './bench/streaming.js'
import { fmt, renderTable, type Table } from './bench/table.js'

type Benchmark = (options: BenchOptions) => Promise<{ tables: Table[]; targets: string[] }>

const BENCHMARKS: Record<BenchmarkName, Benchmark> = {
  scheduling: runScheduling,
  cost: runCost,
  startup: runStartup,
  memory: runMemory,
  stress: runStress,
  mcp: runMcp,
  store: runStoreCost,
  instances: runInstances,
  project: runProjectStartup,
  streaming: runStreaming,
  search: runSearch,
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
  let memory = `${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM`
  try {
    const mem = execSync('free -g', { encoding: 'utf8' }).split('\n').find((l) => l.startsWith('Mem:'))?.trim().split(/\s+/)
    if (mem) memory = `free -g: ${mem[1]} GiB total, ${mem[6] ?? '?'} GiB available`
  } catch {
    // `free` is Linux-only; the total from Node is enough elsewhere.
  }
  return `${os.cpus().length} CPUs (${cpu}), ${memory}, Node ${process.version}, ${os.platform()} ${os.release()}`
}

async function main(): Promise<number> {
  let options: BenchOptions
  try {
    options = parseBenchOptions(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`)
    return 2
  }
  const out = (text: string): void => {
    process.stdout.write(`${text}\n`)
  }
  out(`# toolhost benchmarks — ${new Date().toISOString()}${options.quick ? ' (quick)' : ''}`)
  out(`machine: ${machine()}`)
  out(`load average at start (1/5/15 min): ${os.loadavg().map((l) => fmt(l, 2)).join(' / ')}`)
  out(`command: npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\n`)
  const targets: string[] = []
  const started = performance.now()
  for (const name of options.only) {
    const t0 = performance.now()
    const { tables, targets: found } = await BENCHMARKS[name](options)
    for (const table of tables) out(renderTable(table))
    out(`(${name}: ${fmt((performance.now() - t0) / 1000, 1)} s)\n`)
    targets.push(...found)
  }
  out('### Targets\n')
  for (const target of targets) out(`- ${target}`)
  out(`\ntotal: ${fmt((performance.now() - started) / 1000, 1)} s; load average at the end: ${os.loadavg().map((l) => fmt(l, 2)).join(' / ')}`)
  return 0
}

process.exitCode = await main()
