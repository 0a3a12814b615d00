/**
 * Benchmark 9 — start-up in a fresh user project (issue 23): the packed tarball installed with npm
 * into a new CommonJS project (and an ES module project sharing its node_modules), then `toolhost
 * list` with no plugin, one .mjs, one and 50 .ts (each project), one .mts, warm (caches filled),
 * cold (the TypeScript cache emptied before every spawn) and after install (the schema cache
 * emptied too), and `serve` to its first tools/list answer; and `list` and `serve` in a third project
 * holding only the README's plugins/greet.ts. Every round spawns each command once, in a shuffled order, so other load
 * spreads evenly; the table gives the min and median of the rounds and the ratios to `node -e 0`
 * and to `list` with no plugin from the same run. `--nodes=PATH,…` adds Node binaries (a table each).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { BenchOptions } from './options.js'
import { cpuOf, ensureBuilt, generatePlugins, untilFirstToolsList, type Sample } from './startup.js'
import { fmt, median, type Table } from './table.js'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined

interface Row {
  what: string
  /** Caches emptied before every spawn: the TypeScript cache ('ts'), or it and the schema cache ('all'). */
  cold?: 'ts' | 'all'
  run: (node: string, env: NodeJS.ProcessEnv) => Promise<Sample>
}

function mustRun(command: string, args: string[], cwd: string): string {
  return mustRunWith(command, args, cwd, {})
}

function mustRunWith(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 2 ** 20, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...env } })
  if (result.status !== 0) throw new Error(`project start-up benchmark: ${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout.slice(-2000)}${result.stderr.slice(-2000)}`)
  return result.stdout
}

/** One spawn of node ARGS in `cwd`, which must exit 0: wall time, and CPU from /usr/bin/time. */
function spawnTimed(node: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Sample> {
  const [file, argv] = TIME ? [TIME, ['-f', 'cpu %U %S', node, ...args]] : [node, args]
  const t0 = performance.now()
  const child = spawnSync(file, argv, { cwd, encoding: 'utf8', maxBuffer: 64 * 2 ** 20, env: { ...env, TOOLHOST_LOG: 'error' } })
  const ms = performance.now() - t0
  if (child.status !== 0) throw new Error(`project start-up benchmark: ${node} ${args.join(' ')} exited ${child.status}: ${child.stderr.slice(0, 800)}`)
  return Promise.resolve({ ms, cpuMs: cpuOf(child.stderr) })
}

/** The project: the tarball installed with npm, plugin folders generated; the ES module project beside it. */
function makeProjects(work: string): { cjs: string; esm: string; readme: string } {
  ensureBuilt()
  const packed = JSON.parse(mustRun('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], REPO)) as Array<{ filename: string }>
  const cjs = path.join(work, 'project')
  mkdirSync(cjs)
  writeFileSync(path.join(cjs, 'package.json'), JSON.stringify({ name: 'bench-project', version: '1.0.0', private: true, type: 'commonjs' }, null, 2))
  mustRun('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(work, packed[0]!.filename)], cjs)
  const esm = path.join(work, 'esm-project')
  mkdirSync(esm)
  writeFileSync(path.join(esm, 'package.json'), JSON.stringify({ name: 'bench-esm-project', version: '1.0.0', private: true, type: 'module' }, null, 2))
  symlinkSync(path.join(cjs, 'node_modules'), path.join(esm, 'node_modules'), 'dir')
  // The README's own plugin, as a new user writes it: plugins/greet.ts, found without --plugins.
  const readme = path.join(work, 'readme-project')
  mkdirSync(path.join(readme, 'plugins'), { recursive: true })
  writeFileSync(path.join(readme, 'package.json'), JSON.stringify({ name: 'bench-readme-project', version: '1.0.0', private: true, type: 'commonjs' }, null, 2))
  symlinkSync(path.join(cjs, 'node_modules'), path.join(readme, 'node_modules'), 'dir')
  writeFileSync(path.join(readme, 'plugins', 'greet.ts'), README_PLUGIN)
  for (const project of [cjs, esm]) {
    generatePlugins(path.join(project, 'ts-1'), 1, 'ts')
    generatePlugins(path.join(project, 'ts-50'), 50, 'ts')
  }
  mkdirSync(path.join(cjs, 'empty'))
  generatePlugins(path.join(cjs, 'mjs-1'), 1, 'mjs')
  generatePlugins(path.join(cjs, 'mts-1'), 1, 'mts')
  return { cjs, esm, readme }
}

// README.md's "A plugin in 10 lines", to the character.
const README_PLUGIN = `// plugins/greet.ts
import { defineTool, registry } from 'toolhost'

registry.register(defineTool({
  name: 'greet',
  description: 'Greet someone by name.',
  parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } as const,
  readOnly: () => true,
  handler: (args) => \`hello \${args.name}\`,
}))
`

/** Runs benchmark 9 and returns a table per Node and the targets, met or missed. */
export async function runProjectStartup(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-project-'))
  try {
    const { cjs, esm, readme } = makeProjects(work)
    const bin = path.join(cjs, 'node_modules/toolhost/bin/toolhost.mjs')
    const list = (project: string, dir?: string) => (node: string, env: NodeJS.ProcessEnv) => spawnTimed(node, [bin, 'list', ...(dir ? ['--plugins', dir] : [])], project, env)
    const rows: Row[] = [
      { what: 'node -e 0', run: (node, env) => spawnTimed(node, ['-e', '0'], cjs, env) },
      { what: 'list, no plugin', run: list(cjs) },
      { what: 'list, an empty plugin folder', run: list(cjs, 'empty') },
      { what: 'list, 1 .mjs', run: list(cjs, 'mjs-1') },
      { what: 'list, 1 .ts (CommonJS project)', run: list(cjs, 'ts-1') },
      { what: 'list, 50 .ts (CommonJS project)', run: list(cjs, 'ts-50') },
      { what: 'list, 1 .ts (ES module project)', run: list(esm, 'ts-1') },
      { what: 'list, 50 .ts (ES module project)', run: list(esm, 'ts-50') },
      { what: 'list, 1 .mts', run: list(cjs, 'mts-1') },
      { what: 'cold: list, 1 .ts (CommonJS project)', cold: 'ts', run: list(cjs, 'ts-1') },
      { what: 'cold: list, 50 .ts (CommonJS project)', cold: 'ts', run: list(cjs, 'ts-50') },
      { what: 'cold: list, 1 .ts (ES module project)', cold: 'ts', run: list(esm, 'ts-1') },
      { what: 'cold: list, 50 .ts (ES module project)', cold: 'ts', run: list(esm, 'ts-50') },
      { what: 'after install: list, no plugin', cold: 'all', run: list(cjs) },
      { what: 'after install: list, 1 .ts (CommonJS project)', cold: 'all', run: list(cjs, 'ts-1') },
      { what: 'after install: list, 50 .ts (CommonJS project)', cold: 'all', run: list(cjs, 'ts-50') },
      { what: 'serve: first tools/list, no plugin', run: (node, env) => untilFirstToolsList(cjs, bin, node, env) },
      { what: 'serve: first tools/list, 1 .ts (CommonJS project)', run: (node, env) => untilFirstToolsList(cjs, bin, node, env, ['--plugins', 'ts-1']) },
      { what: "list, the README's plugins/greet.ts", run: list(readme) },
      { what: "serve: first tools/list, the README's plugins/greet.ts", run: (node, env) => untilFirstToolsList(readme, bin, node, env) },
    ]
    const nodes = [process.execPath, ...options.nodes]
    // The README's user trusts the project once (toolhost trust), as the README says: its own
    // plugins/ load only then (the trust file of this run, never the user's).
    const trustFile = path.join(work, 'trust', 'trust.json')
    mustRunWith(process.execPath, [bin, 'trust'], readme, { TOOLHOST_TRUST_FILE: trustFile })
    const warmEnv: NodeJS.ProcessEnv = { ...process.env, TOOLHOST_TS_CACHE: path.join(work, 'ts-cache'), TOOLHOST_SCHEMA_CACHE: path.join(work, 'schemas.txt'), TOOLHOST_TRUST_FILE: trustFile }
    const coldEnv = (cold: 'ts' | 'all'): NodeJS.ProcessEnv => {
      const env = { ...warmEnv, TOOLHOST_TS_CACHE: path.join(work, 'ts-cache-cold'), ...(cold === 'all' ? { TOOLHOST_SCHEMA_CACHE: path.join(work, 'schemas-cold.txt') } : {}) }
      rmSync(env.TOOLHOST_TS_CACHE, { recursive: true, force: true })
      if (cold === 'all') rmSync(env.TOOLHOST_SCHEMA_CACHE!, { force: true })
      return env
    }
    const samples = new Map<string, Sample[]>()
    const jobs = nodes.flatMap((node) => rows.map((row) => ({ node, row, key: `${node}\0${row.what}` })))
    // One round fills the warm caches and is not counted; then each round runs every job once, shuffled.
    for (let round = -1; round < options.spawns; round++) {
      const t0 = performance.now()
      for (const job of shuffle(jobs, round)) {
        const sample = await job.row.run(job.node, job.row.cold ? coldEnv(job.row.cold) : warmEnv)
        if (round >= 0) samples.set(job.key, [...(samples.get(job.key) ?? []), sample])
      }
      process.stderr.write(`project start-up: round ${round + 1} of ${options.spawns}${round < 0 ? ' (warm-up)' : ''}: ${fmt((performance.now() - t0) / 1000, 0)} s, load ${os.loadavg()[0]!.toFixed(1)}\n`)
    }
    const tables: Table[] = []
    const targets: string[] = []
    for (const node of nodes) {
      const version = spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout.trim()
      const stat = (what: string): { min: number; median: number; cpu: number; cpuMin: number } => {
        const s = samples.get(`${node}\0${what}`)!
        const cpus = s.flatMap((x) => (x.cpuMs === undefined ? [] : [x.cpuMs]))
        return { min: Math.min(...s.map((x) => x.ms)), median: median(s.map((x) => x.ms)), cpu: median(cpus), cpuMin: Math.min(...cpus) }
      }
      const base = stat('node -e 0')
      const none = stat('list, no plugin')
      tables.push({
        title: `9. Start-up in a fresh user project — Node ${version} (min and median of ${options.spawns} rounds)`,
        headers: ['command', 'min (ms)', 'median (ms)', 'CPU, min (ms)', 'CPU, median (ms)', '× node -e 0 (min)', '× node -e 0 (median)', '× list, no plugin (min)', '× list, no plugin (median)', '× list, no plugin (CPU, min)'],
        rows: rows.map((row) => {
          const r = stat(row.what)
          const first = row.what === 'node -e 0'
          const ratio = (a: number, b: number): string => (first ? '—' : `${fmt(a / b, 2)}×`)
          return [row.what, fmt(r.min, 0), fmt(r.median, 0), fmt(r.cpuMin, 0), fmt(r.cpu, 0), ratio(r.min, base.min), ratio(r.median, base.median), ratio(r.min, none.min), ratio(r.median, none.median), ratio(r.cpuMin, none.cpuMin)]
        }),
        notes: [
          'a new npm project (`"type": "commonjs"`) with the packed tarball installed by npm; the ES module project (`"type": "module"`) shares its node_modules; each plugin file registers one tool with a schema of its own',
          'warm: the TypeScript cache and the schema cache filled by an uncounted round; cold: the TypeScript cache emptied before every spawn (the first start after writing or editing the plugins; the schemas are known); after install: both caches emptied (the built-in tools\' schemas and the plugins\' compile at registration too)',
          'min and median of wall time over the rounds; CPU is user + system time from /usr/bin/time; the ratios divide figures of the same run (min by min, median by median)',
          'serve: spawn to the first tools/list answer over stdio (initialize, initialized and tools/list sent at once)',
        ],
      })
      const judge = (what: string, over: string, limit: number): string => {
        const a = stat(what)
        const b = stat(over)
        const min = a.min / b.min
        const med = a.median / b.median
        const cpu = a.cpuMin / b.cpuMin
        return `Node ${version}: ${what} ≤ ${limit}× ${over}: ${fmt(min, 2)}× (min), ${fmt(med, 2)}× (median), ${fmt(cpu, 2)}× (CPU, min) — ${min <= limit ? 'met' : 'MISSED'}${min <= limit && med > limit ? ' on the min (the median is over)' : ''}`
      }
      targets.push(
        judge('list, 1 .ts (CommonJS project)', 'list, no plugin', 1.3),
        judge('list, 1 .ts (ES module project)', 'list, no plugin', 1.3),
        judge('list, 1 .mts', 'list, no plugin', 1.3),
        judge('list, 50 .ts (CommonJS project)', 'list, no plugin', 1.5),
        judge('list, 50 .ts (ES module project)', 'list, no plugin', 1.5),
        judge('cold: list, 1 .ts (CommonJS project)', 'list, no plugin', 2),
        judge('cold: list, 1 .ts (ES module project)', 'list, no plugin', 2),
        judge('cold: list, 50 .ts (CommonJS project)', 'list, no plugin', 2),
        judge('cold: list, 50 .ts (ES module project)', 'list, no plugin', 2),
        judge('after install: list, 1 .ts (CommonJS project)', 'after install: list, no plugin', 2),
        judge('serve: first tools/list, no plugin', 'list, no plugin', 2),
        judge('serve: first tools/list, 1 .ts (CommonJS project)', 'list, 1 .ts (CommonJS project)', 2),
        judge("serve: first tools/list, the README's plugins/greet.ts", "list, the README's plugins/greet.ts", 2),
      )
    }
    return { tables, targets }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

// A different order each round (a fixed generator: the same run order for the same options).
function shuffle<T>(items: readonly T[], round: number): T[] {
  const out = [...items]
  let seed = 0x9e3779b9 ^ (round + 3)
  for (let i = out.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
    const j = seed % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
