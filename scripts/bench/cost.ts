/**
 * Benchmark 2 — cost per call: the whole pipeline (parse, validate, authorise, schedule, execute,
 * shape) with no-op handlers, next to a bare loop calling the same handler directly.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Session } from 'node:inspector/promises'
import { performance, PerformanceObserver } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { defineTool } from '../../src/contract/define-tool.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import type { ToolCall } from '../../src/contract/types.js'
import { createBenchHost } from './bench-host.js'
import type { PermissionGate } from '../../src/permissions/permission-gate.js'
import type { BenchOptions } from './options.js'
import { fmt, median, verdict, type Table } from './table.js'

const parameters = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } as const
const noop = (args: { n: number }): string => (args.n >= 0 ? 'ok' : 'negative')

/** A no-op tool; `async`: its handler returns a promise (an async function), as most real handlers do. */
export function noopTool(name: string, kind: 'sync' | 'async' = 'sync') {
  const handler = kind === 'sync' ? noop : async (args: { n: number }) => noop(args)
  return defineTool<{ n: number }>({ name, description: `No-op ${name} (benchmark${kind === 'async' ? ', async' : ''}).`, parameters, parallelSafe: true, readOnly: () => true, handler })
}

export function calls(count: number, prefix: string, name = 'noop'): ToolCall[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, name, arguments: `{"n":${i}}` }))
}


export interface Timing {
  /** Wall-clock µs per unit: the best (lowest) of the runs, the figure least inflated by other load. */
  wall: number
  /** CPU µs (user + system, this process) per unit, best of the runs. */
  cpu: number
  /** The medians of the same runs. */
  wallMedian: number
  cpuMedian: number
}

/**
 * Best and median over `runs` of (µs for `inner` repetitions of `body`) ÷ `per`, in wall and CPU time.
 * `settle`, when given, runs before each run and is not timed.
 */
export async function measure(runs: number, inner: number, per: number, body: () => Promise<unknown> | unknown, settle?: () => Promise<void>): Promise<Timing> {
  for (let i = 0; i < Math.min(inner, 200); i++) await body() // warm-up
  const wall: number[] = []
  const cpu: number[] = []
  for (let r = 0; r < runs; r++) {
    await settle?.()
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    for (let i = 0; i < inner; i++) await body()
    const t1 = performance.now()
    const c = process.cpuUsage(c0)
    wall.push(((t1 - t0) * 1000) / (inner * per))
    cpu.push((c.user + c.system) / (inner * per))
  }
  return { wall: Math.min(...wall), cpu: Math.min(...cpu), wallMedian: median(wall), cpuMedian: median(cpu) }
}

const SELF = fileURLToPath(import.meta.url)
const REPO = path.resolve(path.dirname(SELF), '../..')
const PQUEUE_FRAME = /node_modules\/(p-queue|eventemitter3|p-timeout)\//
const MICROTASK_BOOKKEEPING = new Set(['queueMicrotask', 'runMicrotask', 'runInAsyncScope', 'AsyncResource', 'newAsyncId', 'pushAsyncContext', 'popAsyncContext', 'emitBefore', 'emitAfter', 'enqueueMicrotask'])

/** In a child process: profile `seconds` of 1,000-call batches and attribute the samples to p-queue or not. */
function profilePQueueShare(seconds: number, size: number): { samples: number; pqueue: number; gc: number; seconds: number } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-cost-prof-'))
  try {
    const child = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, 'bin/run-ts.mjs', SELF, '--cost-profile-child', String(seconds), String(size)], { cwd: REPO, encoding: 'utf8' })
    if (child.status !== 0) throw new Error(`cost profile child exited ${child.status}: ${child.stderr.slice(0, 500)}`)
    // The main thread's profile is the one with the host's frames (tsx's loader thread writes one too).
    const profiles = readdirSync(dir).map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as CpuProfile)
    const main = profiles.find((p) => p.nodes.some((n) => n.callFrame.url.includes('worker-pool')))
    if (!main) throw new Error('cost profile: no profile with the worker pool in it')
    return { ...attribute(main), seconds }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>
  samples: number[]
}

function attribute(profile: CpuProfile): { samples: number; pqueue: number; gc: number } {
  const parent = new Map<number, number>()
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const verdicts = new Map<number, 'pqueue' | 'gc' | 'other' | 'idle'>()
  const judge = (id: number): 'pqueue' | 'gc' | 'other' | 'idle' => {
    const leaf = byId.get(id)!.callFrame
    if (leaf.functionName === '(garbage collector)') return 'gc'
    if (leaf.functionName === '(idle)' || leaf.functionName === '(program)') return 'idle'
    if (MICROTASK_BOOKKEEPING.has(leaf.functionName)) return 'pqueue'
    // Walk up: the nearest frame that is either ours (src/) or p-queue's decides.
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const url = byId.get(at)!.callFrame.url
      if (PQUEUE_FRAME.test(url)) return 'pqueue'
      if (url.includes('/src/') || url.includes('/scripts/')) return 'other'
    }
    return 'other'
  }
  let samples = 0
  let pqueue = 0
  let gc = 0
  for (const id of profile.samples) {
    let verdict = verdicts.get(id)
    if (verdict === undefined) verdicts.set(id, (verdict = judge(id)))
    if (verdict === 'idle') continue
    samples++
    if (verdict === 'pqueue') pqueue++
    else if (verdict === 'gc') gc++
  }
  return { samples, pqueue, gc }
}

async function profileChild(seconds: number, size: number): Promise<void> {
  const bench = await createBenchHost({})
  bench.registry.register(noopTool('noop'))
  const batch = calls(size, 'p')
  for (let i = 0; i < 20_000 / size; i++) await bench.host.run(batch) // warm-up
  const end = performance.now() + seconds * 1000
  while (performance.now() < end) await bench.host.run(batch)
  await bench.dispose()
}

if (process.argv.includes('--cost-profile-child')) {
  const at = process.argv.indexOf('--cost-profile-child')
  await profileChild(Number(process.argv[at + 1]), Number(process.argv[at + 2]))
}

/** A sustained run: CPU per call over `calls` calls in batches of `size`, and the collections V8 made meanwhile. */
interface Sustained {
  cpuPerCall: number
  collections: number
  /** Collections other than scavenges (mark-compact, incremental marking). */
  major: number
  /** Wall time of the collection pauses, ms (inflated by other load like any wall time). */
  gcMs: number
}

async function sustain(host: { run(calls: readonly ToolCall[]): Promise<unknown> }, size: number, total: number): Promise<Sustained> {
  const batch = calls(size, `s${size}_`)
  for (let i = 0; i < 20_000 / size; i++) await host.run(batch) // warm-up
  let collections = 0
  let major = 0
  let gcMs = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      collections++
      gcMs += entry.duration
      if ((entry as { detail?: { kind?: number } }).detail?.kind !== 1) major++ // 1: a scavenge (NODE_PERFORMANCE_GC_MINOR)
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  const c0 = process.cpuUsage()
  for (let i = 0; i < total / size; i++) await host.run(batch)
  const c = process.cpuUsage(c0)
  await new Promise((resolve) => setTimeout(resolve, 20)) // the observer hears of the last collections a turn later
  observer.disconnect()
  return { cpuPerCall: (c.user + c.system) / total, collections, major, gcMs }
}

/**
 * Bytes allocated per call in batches of `size`: V8's sampling heap profiler (one sample per 256
 * bytes on average), objects collected since counted too, over `total` calls after a warm-up.
 */
async function allocatedPerCall(host: { run(calls: readonly ToolCall[]): Promise<unknown> }, size: number, total: number, flushAudit: () => Promise<void>): Promise<number> {
  const batch = calls(size, `a${size}_`)
  for (let i = 0; i < 20_000 / size; i++) await host.run(batch)
  await flushAudit() // the warm-up's lines are not counted
  const session = new Session()
  session.connect()
  try {
    await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
    for (let i = 0; i < total / size; i++) await host.run(batch)
    await flushAudit() // the audit lines of these calls are serialised and written too
    const { profile } = await session.post('HeapProfiler.stopSampling')
    let bytes = 0
    const pending = [profile.head]
    while (pending.length > 0) {
      const node = pending.pop()!
      bytes += node.selfSize
      pending.push(...node.children)
    }
    return bytes / total
  } finally {
    session.disconnect()
  }
}

/** Runs benchmark 2 and returns its table. */
export async function runCost(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const runs = options.runs
  const bench = await createBenchHost({})
  bench.registry.register(noopTool('noop'))
  bench.registry.register(noopTool('noop_async', 'async'))
  const { host } = bench
  const bare = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) await noop({ n: i })
  }
  const one = calls(1, 'one')
  const eight = calls(8, 'eight')
  const thousand = calls(1000, 'k')
  const scale = options.quick ? 0.3 : 1
  // The loops of the first rows never yield to the event loop, so the audit log (serialised and
  // appended at the next turn) is not in them; its lines are written between runs, untimed, as a host
  // would at its next turn, so no run carries the buffered lines of the runs before it (200,000 of
  // them by the last run of the 1,000 row, whose collection cost no host pays).
  const audit = (host.authoriser as PermissionGate).audit
  const flushAudit = (): Promise<void> => audit.flush()
  const oneHost = await measure(runs, Math.round(2000 * scale), 1, () => host.run(one), flushAudit)
  const oneBare = await measure(runs, Math.round(2000 * scale), 1, () => bare(1))
  const eightHost = await measure(runs, Math.round(1000 * scale), 1, () => host.run(eight), flushAudit)
  const eightBare = await measure(runs, Math.round(1000 * scale), 1, () => bare(8))
  const kHost = await measure(runs, Math.max(3, Math.round(20 * scale)), 1000, () => host.run(thousand), flushAudit)
  const kBare = await measure(runs, Math.max(3, Math.round(20 * scale)), 1000, () => bare(1000))
  // These rows write each batch's audit lines before the next batch, as a host does when batches
  // arrive from a model: one append per batch.
  await flushAudit()
  const eightAudited = await measure(runs, Math.round(1000 * scale), 1, async () => {
    await host.run(eight)
    await flushAudit()
  })
  const kAudited = await measure(runs, Math.max(3, Math.round(20 * scale)), 1000, async () => {
    await host.run(thousand)
    await flushAudit()
  })
  const sustainedCalls = options.quick ? 40_000 : 200_000
  const sustained8 = await sustain(host, 8, sustainedCalls)
  const sustainedK = await sustain(host, 1000, sustainedCalls)
  const allocatedCalls = options.quick ? 8_000 : 40_000
  const allocated1 = await allocatedPerCall(host, 1, allocatedCalls / 4, flushAudit)
  const allocated8 = await allocatedPerCall(host, 8, allocatedCalls, flushAudit)
  const allocatedK = await allocatedPerCall(host, 1000, allocatedCalls, flushAudit)
  // Handlers that return a promise: each holds its worker slot until it settles (worker-slots.ts).
  // Last: the handler returning a promise makes the pipeline's call sites see both kinds, which
  // would slow the rows above had they run after it.
  const eightAsync = calls(8, 'eightAsync', 'noop_async')
  const thousandAsync = calls(1000, 'kAsync', 'noop_async')
  const eightAsyncHost = await measure(runs, Math.round(1000 * scale), 1, () => host.run(eightAsync), flushAudit)
  const kAsyncHost = await measure(runs, Math.max(3, Math.round(20 * scale)), 1000, () => host.run(thousandAsync), flushAudit)
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
  const defsFirst: Timing = { wall: Math.min(...firstWall), cpu: Math.min(...firstCpu), wallMedian: median(firstWall), cpuMedian: median(firstCpu) }
  const defsRepeated = await measure(runs, Math.round(2000 * scale), 1, () => registry.getDefinitions())

  const row = (what: string, host: Timing, bare: Timing | undefined, unit: string): (string | number)[] => [
    what,
    fmt(host.wall, 2),
    fmt(host.cpu, 2),
    `${fmt(host.wallMedian, 2)} / ${fmt(host.cpuMedian, 2)}`,
    bare ? fmt(bare.wall, 3) : '—',
    bare ? fmt(host.wall - bare.wall, 2) : '—',
    unit,
  ]
  const per = (t: Timing, n: number): Timing => ({ wall: t.wall / n, cpu: t.cpu / n, wallMedian: t.wallMedian / n, cpuMedian: t.cpuMedian / n })
  // Quick mode profiles only the 1,000-call batches, and briefly (each profile is a fresh process).
  const share = profilePQueueShare(options.quick ? 1 : 6, 1000)
  const shareOf8 = options.quick ? undefined : profilePQueueShare(6, 8)
  const targets = [
    `cost: ≤ 3 µs per call in a batch of 1,000 (best of ${runs}; issue 14 asked ≤ 5) — ${verdict(kHost.wall <= 3)}: ${fmt(kHost.wall, 2)} µs wall, ${fmt(kHost.cpu, 2)} µs CPU (medians ${fmt(kHost.wallMedian, 2)} / ${fmt(kHost.cpuMedian, 2)})`,
    `cost: ≤ 25 µs per batch of 8 (best of ${runs}) — ${verdict(eightHost.wall <= 25)}: ${fmt(eightHost.wall, 1)} µs wall, ${fmt(eightHost.cpu, 1)} µs CPU (medians ${fmt(eightHost.wallMedian, 1)} / ${fmt(eightHost.cpuMedian, 1)})`,
    `cost: ≤ 120 µs per batch of 8 with its audit lines written (best of ${runs}) — ${verdict(eightAudited.wall <= 120)}: ${fmt(eightAudited.wall, 1)} µs wall, ${fmt(eightAudited.cpu, 1)} µs CPU (medians ${fmt(eightAudited.wallMedian, 1)} / ${fmt(eightAudited.cpuMedian, 1)})`,
    `cost: getDefinitions over 1,000 tools < 100 µs when nothing changed — ${verdict(defsRepeated.wall < 100)}: ${fmt(defsRepeated.wall, 1)} µs (first call ${fmt(defsFirst.wall, 1)} µs)`,
  ]
  return {
    tables: [
      {
        title: `2. Cost per call — no-op handlers, whole pipeline (best of ${runs} runs; medians beside)`,
        headers: ['what', 'host wall (µs)', 'host CPU (µs)', 'median wall / CPU (µs)', 'bare loop (µs)', 'host overhead, wall (µs)', 'per'],
        rows: [
          row('one call alone (host.run of 1)', oneHost, oneBare, 'call'),
          row('batch of 8', eightHost, eightBare, 'batch'),
          row('batch of 8, per call', per(eightHost, 8), per(eightBare, 8), 'call'),
          row('one batch of 1,000, per call', kHost, kBare, 'call'),
          row('batch of 8, async no-op handlers', eightAsyncHost, eightBare, 'batch'),
          row('one batch of 1,000, async no-op handlers, per call', kAsyncHost, kBare, 'call'),
          row('batch of 8, its audit lines written', eightAudited, eightBare, 'batch'),
          row('one batch of 1,000, its audit lines written, per call', kAudited, kBare, 'call'),
          row('getDefinitions, 1,000 tools, first call', defsFirst, undefined, 'call'),
          row('getDefinitions, 1,000 tools, repeated', defsRepeated, undefined, 'call'),
          ...(shareOf8 === undefined
            ? []
            : [[
                'p-queue’s own share, batch of 8 (profile)',
                `${fmt((shareOf8.pqueue / shareOf8.samples) * eightHost.wall, 2)}`,
                `${fmt((shareOf8.pqueue / shareOf8.samples) * eightHost.cpu, 2)}`,
                `${fmt((100 * shareOf8.pqueue) / shareOf8.samples, 1)}% of samples (GC ${fmt((100 * shareOf8.gc) / shareOf8.samples, 1)}%)`,
                '—',
                '—',
                'batch',
              ]]),
          [
            'p-queue’s own share, batch of 1,000 (profile)',
            `${fmt((share.pqueue / share.samples) * kHost.wall, 2)}`,
            `${fmt((share.pqueue / share.samples) * kHost.cpu, 2)}`,
            `${fmt((100 * share.pqueue) / share.samples, 1)}% of samples (GC ${fmt((100 * share.gc) / share.samples, 1)}%)`,
            '—',
            '—',
            'call',
          ],
        ],
        notes: [
          'arguments are raw JSON text (so parse counts), validated by the compiled schema, authorised (permissions bypass), footprinted, scheduled (graph, max_workers 8) and shaped; the bare loop awaits the same handler directly',
          'the no-op handlers answer at once (return no promise), so a worker slot takes the next call without a new p-queue task (src/dispatch/schedule/worker-slots.ts); the “async no-op handlers” rows return a promise, as most real handlers do: a slot holds its worker until the handler settles, then takes the next call (a batch of 8 on 8 workers is 8 slots)',
          'host CPU = user + system CPU time of this process over the same loops (V8’s GC threads included): on a shared machine it is the steadier figure (wall time includes waiting for a core)',
          'the rows above the audit rows run batch after batch without a turn of the event loop, so no audit line is serialised or written inside them (a host does that at the next turn; here it is done between runs, untimed); the rows “its audit lines written” wait for each batch’s lines to be appended to the audit log (one append per batch; the file stays open between appends) before the next batch, as when batches arrive from a model',
          `p-queue’s share: a node --cpu-prof of ${share.seconds} s of batches (of 8, then of 1,000) in a child process; the samples spent in p-queue and its EventEmitter, and in the microtask bookkeeping its queueMicrotask costs (an AsyncResource per task), not below our task function, times the best µs above; garbage collection (its share in brackets) is not split by who allocated, so the p-queue objects it collects are not counted`,
        ],
      },
      {
        title: '2b. Cost per call, sustained and allocated — no-op handlers, whole pipeline',
        headers: ['what', 'CPU per call (µs)', 'collections', 'of them not scavenges', 'GC pauses (ms, wall)', 'allocated per call (bytes)'],
        rows: [
          [`batches of 8, ${sustainedCalls.toLocaleString('en-US')} calls`, fmt(sustained8.cpuPerCall, 2), sustained8.collections, sustained8.major, fmt(sustained8.gcMs, 0), fmt(allocated8, 0)],
          [`batches of 1,000, ${sustainedCalls.toLocaleString('en-US')} calls`, fmt(sustainedK.cpuPerCall, 2), sustainedK.collections, sustainedK.major, fmt(sustainedK.gcMs, 0), fmt(allocatedK, 0)],
          ['one call alone (host.run of 1)', '—', '—', '—', '—', fmt(allocated1, 0)],
        ],
        notes: [
          `sustained: ${sustainedCalls.toLocaleString('en-US')} calls in one loop after a warm-up, CPU per call (user + system of this process, GC threads included) and the collections V8 made meanwhile (PerformanceObserver 'gc'; pause time is wall time); unlike the best of ${runs} above, this keeps the collections a short run can miss`,
          'allocated: bytes per call from V8’s sampling heap profiler (a sample per 256 bytes on average, objects collected since counted too), the audit lines of those calls included (the profile ends once they are serialised and written)',
        ],
      },
    ],
    targets,
  }
}
