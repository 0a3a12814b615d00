/**
 * Benchmark 7 — what the coordination store costs a call: a host on `store: memory` (no store),
 * one on `store: local` alone on its root (the default: the store is not asked), and one on
 * `store: local` sharing its root with a second host (every call asks the store: a lease taken and
 * given back through `.toolhost/store/state.json`), and one on `store: redis://` (a redis-server of
 * its own on loopback: every call asks it). The memory and local-alone hosts are measured
 * in alternating runs, so other load on the machine falls on both alike.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { mkdir, rename, rmdir, writeFile } from 'node:fs/promises'
import { LocalStore } from '../../src/store/local-store.js'
import { RedisStore } from '../../src/store/redis-store.js'
// The tests' own redis-server starter (a free loopback port, no persistence).
import { hasRedis, startRedis } from '../../test/store/redis-server.js'
import { StateFile } from '../../src/store/state-file.js'
import { createBenchHost, type BenchHost } from './bench-host.js'
import { calls, measure, noopTool, type Timing } from './cost.js'
import type { BenchOptions } from './options.js'
import { fmt, median, type Table } from './table.js'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

interface Case {
  what: string
  host: BenchHost
  size: number
  inner: number
  wall: number[]
  cpu: number[]
}

async function oneRun(c: Case, batch: ReturnType<typeof calls>): Promise<void> {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < c.inner; i++) await c.host.host.run(batch)
  const t1 = performance.now()
  const used = process.cpuUsage(c0)
  c.wall.push(((t1 - t0) * 1000) / (c.inner * c.size))
  c.cpu.push((used.user + used.system) / (c.inner * c.size))
}

const timingOf = (c: Case): Timing => ({ wall: Math.min(...c.wall), cpu: Math.min(...c.cpu), wallMedian: median(c.wall), cpuMedian: median(c.cpu) })

/** Runs benchmark 7 and returns its table. */
export async function runStoreCost(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const runs = options.runs
  const scale = options.quick ? 0.3 : 1
  const memory = await createBenchHost({ store: 'memory' })
  const alone = await createBenchHost({ store: 'local' })
  const sharedRoot = mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-shared-'))
  const other = new LocalStore({ root: sharedRoot, log: quiet })
  await other.open()
  const shared = await createBenchHost({ store: 'local', root: sharedRoot })
  // A Redis of the benchmark's own (when redis-server is installed), shared with a second host.
  const redis = hasRedis ? await startRedis() : undefined
  const otherRedis = redis ? new RedisStore({ url: redis.url, log: quiet }) : undefined
  await otherRedis?.open()
  const onRedis = redis ? await createBenchHost({ store: redis.url }) : undefined
  for (const bench of [memory, alone, shared, ...(onRedis ? [onRedis] : [])]) bench.registry.register(noopTool('noop'))
  const sizes = [
    { size: 1, inner: Math.round(2000 * scale), sharedInner: Math.round(200 * scale) },
    { size: 8, inner: Math.round(1000 * scale), sharedInner: Math.round(50 * scale) },
    { size: 1000, inner: Math.max(3, Math.round(20 * scale)), sharedInner: 1 },
  ]
  const rows: (string | number)[][] = []
  const alonePerCall: Array<{ size: number; memory: Timing; alone: Timing }> = []
  for (const { size, inner, sharedInner } of sizes) {
    const batch = calls(size, `s${size}-`)
    const cases: Case[] = [
      { what: 'memory', host: memory, size, inner, wall: [], cpu: [] },
      { what: 'local, alone on its root', host: alone, size, inner, wall: [], cpu: [] },
    ]
    for (const c of cases) for (let i = 0; i < Math.min(inner, 200); i++) await c.host.host.run(batch) // warm-up
    for (let r = 0; r < runs; r++) for (const c of cases) await oneRun(c, batch)
    const sharedCase: Case = { what: 'local, shared with one other host', host: shared, size, inner: sharedInner, wall: [], cpu: [] }
    await shared.host.run(batch) // warm-up
    for (let r = 0; r < runs; r++) await oneRun(sharedCase, batch)
    const [m, a] = cases.map(timingOf) as [Timing, Timing]
    const s = timingOf(sharedCase)
    const measured: Array<readonly [string, Timing]> = [[cases[0]!.what, m], [cases[1]!.what, a], [sharedCase.what, s]]
    if (onRedis) {
      const redisCase: Case = { what: 'redis (loopback), shared with one other host', host: onRedis, size, inner: sharedInner, wall: [], cpu: [] }
      await onRedis.host.run(batch) // warm-up
      for (let r = 0; r < runs; r++) await oneRun(redisCase, batch)
      measured.push([redisCase.what, timingOf(redisCase)])
    }
    alonePerCall.push({ size, memory: m, alone: a })
    const label = size === 1 ? 'one call (host.run of 1)' : `batch of ${size.toLocaleString('en')}, per call`
    for (const [what, t] of measured) {
      rows.push([label, what, fmt(t.wall, 2), fmt(t.cpu, 2), `${fmt(t.wallMedian, 2)} / ${fmt(t.cpuMedian, 2)}`, what === 'memory' ? '—' : `${fmt(t.cpu - m.cpu, 2)} (${fmt(t.cpuMedian - m.cpuMedian, 2)})`])
    }
  }
  const failed = [...(await shared.host.run(calls(8, 'check-'))), ...(onRedis ? await onRedis.host.run(calls(8, 'check-redis-')) : [])].filter((r) => !r.ok)
  if (failed.length > 0) throw new Error(`store benchmark: a call failed: ${failed[0]!.content}`)

  // One transaction of the state file alone (lock, read, rewrite, unlock), and the file system's
  // own part of it: a mkdir and rmdir (the lock) and a rename (the rewrite).
  const txRoot = mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-tx-'))
  const file = new StateFile(txRoot, path.join(txRoot, '.toolhost', 'store'), quiet)
  const txInner = Math.round(200 * scale)
  const tx = await measure(runs, txInner, 1, () => file.transact(() => ({ value: undefined, changed: true })))
  const fsOps = await measure(runs, txInner, 1, async () => {
    await mkdir(path.join(txRoot, 'l'))
    await writeFile(path.join(txRoot, 't'), '{}')
    await rename(path.join(txRoot, 't'), path.join(txRoot, 's'))
    await rmdir(path.join(txRoot, 'l'))
  })
  rmSync(txRoot, { recursive: true, force: true })
  rows.push(['one transaction of state.json', 'local (the store alone)', fmt(tx.wall, 1), fmt(tx.cpu, 1), `${fmt(tx.wallMedian, 1)} / ${fmt(tx.cpuMedian, 1)}`, '—'])
  rows.push(['its file system part: mkdir, write, rename, rmdir', '—', fmt(fsOps.wall, 1), fmt(fsOps.cpu, 1), `${fmt(fsOps.wallMedian, 1)} / ${fmt(fsOps.cpuMedian, 1)}`, '—'])

  // What a host alone pays while idle: its renewal once a second (and its folder watch).
  const idleMs = options.quick ? 1000 : 5000
  const c0 = process.cpuUsage()
  await new Promise((resolve) => setTimeout(resolve, idleMs))
  const idle = process.cpuUsage(c0)
  rows.push(['idle, per second', redis ? 'five hosts of this process (two roots, two on Redis)' : 'three hosts of this process (two roots)', '—', fmt(((idle.user + idle.system) / idleMs) * 1000, 0), '—', '—'])

  await Promise.all([memory.dispose(), alone.dispose(), shared.dispose(), onRedis?.dispose()])
  await other.close()
  await otherRedis?.close()
  await redis?.stop()
  rmSync(sharedRoot, { recursive: true, force: true })
  const worst = Math.max(...alonePerCall.map((p) => p.alone.cpuMedian - p.memory.cpuMedian))
  return {
    tables: [
      {
        title: `7. The coordination store per call — no-op handlers, whole pipeline (best of ${runs} runs; medians beside)`,
        headers: ['what', 'store', 'wall (µs)', 'CPU (µs)', 'median wall / CPU (µs)', 'CPU over memory, best (median) (µs)'],
        rows,
        notes: [
          'memory and local-alone runs alternate (same load on both); the shared host runs after them, on a root a second host (a LocalStore of this process) has joined, so each call takes a lease and gives it back through .toolhost/store/state.json (requests made while a transaction is under way share the next one)',
          redis
            ? 'the redis host asks a redis-server of the benchmark’s own on 127.0.0.1 for every call (a lease by a Lua script and its release; wall includes the round trips, CPU is this process’s only, not the server’s); a second RedisStore of this process has joined it'
            : 'redis-server is not installed here: no redis rows',
          'the idle row is this process’s CPU over a pause with every host open (µs of CPU per second of wall time): the renewals of the local stores and their folder watches',
        ],
      },
    ],
    targets: [`store: a host alone on store: local costs no more per call than on store: memory — worst median CPU difference ${fmt(worst, 2)} µs per call (noise on this machine is about ±1 µs)`],
  }
}
