/**
 * `npm run bench [-- --quick] [-- --only=scheduling,cost,...]`: the ten benchmarks of toolhost, each
 * printing a table. Figures are measured, never edited; BENCHMARKS.md holds a full run's output.
 */
import { execSync, spawnSync } from 'node:child_process'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
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

// A child's results, on the last line of its stdout.
const CHILD_FLAG = '--results-as-json'
const RUN_TS = fileURLToPath(new URL('../bin/run-ts.mjs', import.meta.url))

/**
 * Runs one benchmark in a fresh process (this script with `--only=NAME`): each starts from an empty
 * heap and an idle event loop, so no benchmark's figures carry the garbage, timers and compiled
 * code the ones before it left (the cost rows, run after scheduling in one process, were ~20% slower).
 */
function inChild(name: BenchmarkName): { tables: Table[]; targets: string[] } {
  const flags = process.argv.slice(2).filter((arg) => !arg.startsWith('--only='))
  const child = spawnSync(process.execPath, [...process.execArgv, RUN_TS, fileURLToPath(import.meta.url), `--only=${name}`, ...flags, CHILD_FLAG], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 2 ** 20 })
  const last = child.stdout.trimEnd().split('\n').pop() ?? ''
  if (child.status !== 0 || !last.startsWith('{')) throw new Error(`benchmark ${name} failed (exit ${child.status ?? child.signal}): ${child.stdout.slice(-2000)}`)
  return JSON.parse(last) as { tables: Table[]; targets: string[] }
}

async function main(): Promise<number> {
  let options: BenchOptions
  const argv = process.argv.slice(2).filter((arg) => arg !== CHILD_FLAG)
  try {
    options = parseBenchOptions(argv)
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`)
    return 2
  }
  if (process.argv.includes(CHILD_FLAG)) {
    const results = await BENCHMARKS[options.only[0]!](options)
    process.stdout.write(`\n${JSON.stringify(results)}\n`)
    return 0
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
    const { tables, targets: found } = options.only.length === 1 ? await BENCHMARKS[name](options) : inChild(name)
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
