/**
 * Benchmark 4 — memory: peak RSS of a fresh process running calls whose results are 1 MB each (the
 * whole text saved under results_dir, a preview returned), and while a background process prints
 * 1 GB through the process registry. Each measurement runs in its own child process, so its peak
 * RSS is its own.
 */
import { spawnSync } from 'node:child_process'
import { statSync, unlinkSync } from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { defineTool } from '../../src/contract/define-tool.js'
import type { ToolResult } from '../../src/contract/types.js'
import { createBenchHost } from './bench-host.js'
import type { BenchOptions } from './options.js'
import { fmt, verdict, type Table } from './table.js'

const SELF = fileURLToPath(import.meta.url)
const REPO = path.resolve(path.dirname(SELF), '../..')
const MB = 2 ** 20
const LINE = `${'x'.repeat(63)}\n`

interface ChildReport {
  calls: number
  baselineRss: number
  peakRss: number
  seconds: number
  savedBytes: number
  problems: string[]
}

/** Samples RSS often; the peak is the larger of the samples and the kernel's max RSS. */
function rssSampler(): { stop(): number } {
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 10)
  return {
    stop() {
      clearInterval(timer)
      return Math.max(peak, process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024)
    },
  }
}

/**
 * In the child: `calls` calls of 1 MB results, in batches of 100 (`host.run`, or `host.stream` taking
 * each result as it completes); saved files are checked, then removed.
 */
async function bigResultsChild(calls: number, streamed: boolean): Promise<ChildReport> {
  const bench = await createBenchHost({})
  bench.registry.register(
    defineTool<{ n: number }>({
      name: 'big',
      description: 'Returns 1 MB of text (benchmark).',
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false },
      parallelSafe: true,
      handler: async (args) => `${args.n}\n${LINE.repeat(MB / LINE.length - 1)}${'y'.repeat(62 - String(args.n).length)}\n`,
    }),
  )
  global.gc?.()
  const baselineRss = process.memoryUsage.rss()
  const sampler = rssSampler()
  const problems: string[] = []
  let savedBytes = 0
  const t0 = performance.now()
  for (let start = 0; start < calls; start += 100) {
    const batch = Array.from({ length: Math.min(100, calls - start) }, (_, i) => ({ id: `m${start + i}`, name: 'big', arguments: `{"n":${start + i}}` }))
    const results: ToolResult[] = []
    if (streamed) for await (const r of bench.host.stream(batch)) results.push(r)
    else results.push(...(await bench.host.run(batch)))
    for (const r of results) {
      if (!r.ok || !r.truncated || !r.savedTo || r.content.length > bench.host.config.limits.max_result_chars) {
        if (problems.length < 5) problems.push(`${r.id}: ok=${r.ok} truncated=${r.truncated} savedTo=${r.savedTo} content=${r.content.length} chars`)
        continue
      }
      const size = statSync(r.savedTo).size
      if (size !== MB && problems.length < 5) problems.push(`${r.id}: saved ${size} bytes, expected ${MB}`)
      savedBytes += size
      // Disk stays bounded: each saved file is checked, then removed.
      unlinkSync(r.savedTo)
    }
  }
  const seconds = (performance.now() - t0) / 1000
  const peakRss = sampler.stop()
  await bench.dispose()
  return { calls, baselineRss, peakRss, seconds, savedBytes, problems }
}

function runChild(kind: string, count: number): ChildReport {
  const child = spawnSync(process.execPath, ['bin/run-ts.mjs', SELF, '--memory-child', kind, String(count)], { cwd: REPO, encoding: 'utf8', maxBuffer: 16 * MB })
  if (child.status !== 0) throw new Error(`memory benchmark child (${kind}) exited ${child.status}: ${child.stderr.slice(0, 800)}`)
  const line = child.stdout.trim().split('\n').pop() ?? ''
  return JSON.parse(line) as ChildReport
}

/** Runs benchmark 4 and returns its table. */
export async function runMemory(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const row = (what: string, r: ChildReport): (string | number)[] => [
    what,
    fmt(r.baselineRss / MB, 0),
    fmt(r.peakRss / MB, 0),
    fmt((r.peakRss - r.baselineRss) / MB, 0),
    `${fmt(r.savedBytes / MB / r.seconds, 0)} MB/s saved (${fmt(r.seconds, 1)} s)`,
    r.problems.length === 0 ? 'all saved, previews within limit' : r.problems.join('; '),
  ]
  const big = runChild('big-results', options.memoryCalls)
  const streamed = runChild('big-results-stream', options.memoryCalls)
  const calls = big.calls.toLocaleString('en-US')
  const rows: (string | number)[][] = [row(`${calls} calls, 1 MB result each (host.run)`, big), row(`${calls} calls, 1 MB result each (host.stream)`, streamed)]
  rows.push(backgroundRow(options.quick ? GB / 16 : GB))
  return {
    tables: [
      {
        title: '4. Memory — peak RSS of a fresh process',
        headers: ['workload', 'RSS before (MB)', 'peak RSS (MB)', 'peak − before (MB)', 'throughput', 'checks'],
        rows,
        notes: [
          'results over limits.max_result_chars (100,000) are cut to a preview and written whole to results_dir under a temp workspace; each saved file is checked (1 MiB) and then deleted so the disk stays bounded',
          'peak RSS = max of 10 ms samples of process.memoryUsage.rss() and the kernel max RSS of the child',
        ],
      },
    ],
    targets: [big, streamed].map((r, i) => {
      const over = (r.peakRss - r.baselineRss) / MB
      return `memory: peak − before ≤ 150 MB for 1 MB results (${i === 0 ? 'host.run' : 'host.stream'}) — ${verdict(over <= 150 && r.problems.length === 0)}: ${fmt(over, 0)} MB`
    }),
  }
}

/** What this benchmark uses of the process registry (issue 5), typed here so this file builds without it. */
interface ProcessesService {
  spawn(command: string, options?: { background?: boolean }): Promise<{ id: string }>
  wait(id: string, options?: { timeoutMs?: number }): Promise<{ outcome: string; process: { exitCode: number | null; outputChars: number; droppedChars: number; lines: number; log: string } }>
}

const GB = 2 ** 30

/** In the child: a background process prints 1 GiB of 100-byte lines through the host's process registry. */
async function backgroundChild(bytes: number): Promise<ChildReport> {
  const bench = await createBenchHost({})
  const processes = (bench.host.services as { processes?: ProcessesService }).processes
  if (!processes) {
    await bench.dispose()
    return { calls: 0, baselineRss: 0, peakRss: 0, seconds: 0, savedBytes: 0, problems: ['not measured: process registry not built yet'] }
  }
  global.gc?.()
  const baselineRss = process.memoryUsage.rss()
  const sampler = rssSampler()
  const t0 = performance.now()
  const problems: string[] = []
  // 99 characters and a newline per line.
  const info = await processes.spawn(`yes ${'y'.repeat(98)} | head -c ${bytes}`, { background: true })
  const done = await processes.wait(info.id, { timeoutMs: 600_000 })
  const seconds = (performance.now() - t0) / 1000
  const peakRss = sampler.stop()
  if (done.outcome !== 'exited' || done.process.exitCode !== 0) problems.push(`the process did not exit cleanly: ${done.outcome}, exit code ${done.process.exitCode}`)
  let logBytes = 0
  try {
    logBytes = statSync(done.process.log).size
  } catch (error) {
    problems.push(`no log file: ${(error as Error).message}`)
  }
  if (logBytes !== bytes) problems.push(`log file holds ${logBytes} bytes, expected ${bytes}`)
  if (done.process.outputChars !== bytes) problems.push(`outputChars ${done.process.outputChars}, expected ${bytes}`)
  await bench.dispose()
  return { calls: 0, baselineRss, peakRss, seconds, savedBytes: logBytes, problems }
}

function backgroundRow(bytes: number): (string | number)[] {
  const bg = runChild('background', bytes)
  const what = `background process printing ${fmt(bytes / GB, bytes >= GB ? 0 : 2)} GiB`
  if (bg.calls === 0 && bg.peakRss === 0) return [what, '—', '—', '—', '—', bg.problems.join('; ')]
  return [
    what,
    fmt(bg.baselineRss / MB, 0),
    fmt(bg.peakRss / MB, 0),
    fmt((bg.peakRss - bg.baselineRss) / MB, 0),
    `${fmt(bg.savedBytes / MB / bg.seconds, 0)} MB/s to its log (${fmt(bg.seconds, 1)} s)`,
    bg.problems.length === 0 ? 'exit 0, whole output in the log file' : bg.problems.join('; '),
  ]
}

if (process.argv.includes('--memory-child')) {
  const [kind, count] = process.argv.slice(process.argv.indexOf('--memory-child') + 1)
  const report = kind === 'big-results' || kind === 'big-results-stream' ? await bigResultsChild(Number(count), kind === 'big-results-stream') : kind === 'background' ? await backgroundChild(Number(count)) : undefined
  if (!report) throw new Error(`unknown memory child ${kind}`)
  process.stdout.write(`${JSON.stringify(report)}\n`)
}
