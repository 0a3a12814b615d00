/**
 * Benchmark 8 — calls per second through 1, 2 and 3 `toolhost serve --http` instances behind nginx
 * (the config of docs/deploy.md), on one root and one Redis, with a sleep-bound tool (50 ms,
 * parallel-safe) and `max_workers: 4` each: the ideal is 4 / 50 ms = 80 calls/s per instance. 24 MCP
 * v2 clients (2026-07-28, stateless) keep 24 calls in flight. A row on `store: memory` (instances
 * that share nothing) shows what Redis costs at this scale. Needs redis-server and nginx (the tests'
 * own starters); without them it says so and measures nothing.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { hasNginx, startNginx } from '../../test/mcp/nginx-server.js'
import { freePort, hasRedis, startRedis, type TestRedis } from '../../test/store/redis-server.js'
import { TOOLHOST_CLI } from '../../test/toolhost-cli.js'
import type { BenchOptions } from './options.js'
import { fmt, type Table } from './table.js'

const SLEEP_MS = 50
const WORKERS = 4
const IN_FLIGHT = 24

const PLUGIN = `import { defineTool, registry } from 'toolhost'
registry.register(defineTool({
  name: 'sleep_call',
  description: 'Sleeps ${SLEEP_MS} ms (benchmark).',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false },
  parallelSafe: true,
  handler: async () => {
    await new Promise((resolve) => setTimeout(resolve, ${SLEEP_MS}))
    return 'ok'
  },
}))
`

function startInstance(cwd: string, root: string, config: string, env: Record<string, string>): Promise<{ child: ChildProcessWithoutNullStreams; address: string }> {
  const child = spawn(process.execPath, [TOOLHOST_CLI, 'serve', '--http', '0', '--root', root, '--config', config], { cwd, env: { ...process.env, ...env } })
  let stderr = ''
  child.stdout.resume()
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const m = /MCP Streamable HTTP at http:\/\/(\S+?)\/mcp/.exec(stderr)
      if (m) resolve({ child, address: m[1]! })
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
  })
}

function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/** One row: `n` instances on `store`, `total` calls kept `IN_FLIGHT` at a time; calls per second. */
async function measureRow(base: string, n: number, store: string, total: number, redis: TestRedis | undefined): Promise<{ rate: number; seconds: number; failed: number }> {
  const dir = path.join(base, `${n}-${store === 'memory' ? 'memory' : 'redis'}`)
  const root = path.join(dir, 'root')
  mkdirSync(root, { recursive: true })
  const nginxPort = await freePort()
  const publicUrl = `http://127.0.0.1:${nginxPort}/mcp`
  const config = path.join(dir, 'config.yaml')
  writeFileSync(config, `plugins:\n  builtins: false\n  dirs: [${JSON.stringify(path.join(base, 'plugins'))}]\nenv_file: ""\npermissions:\n  mode: bypass\n  audit_log: ""\ndispatch:\n  max_workers: ${WORKERS}\n  duration_estimates: ""\nserve:\n  public_url: ${publicUrl}\n`)
  const env = { TOOLHOST_STORE: store === 'memory' ? 'memory' : `${redis!.url}/0?prefix=bench${n}`, TOOLHOST_MCP_STATE_KEY: randomBytes(32).toString('hex'), TOOLHOST_LOG: 'warn' }
  const instances = await Promise.all(Array.from({ length: n }, () => startInstance(dir, root, config, env)))
  const nginx = await startNginx(path.join(dir, 'nginx'), nginxPort, instances.map((i) => i.address))
  const clients: Client[] = []
  try {
    for (let i = 0; i < IN_FLIGHT; i++) {
      const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
      await client.connect(new StreamableHTTPClientTransport(new URL(publicUrl)))
      clients.push(client)
    }
    await Promise.all(clients.map((c) => c.callTool({ name: 'sleep_call', arguments: {} }))) // warm-up
    let started = 0
    let failed = 0
    const t0 = performance.now()
    await Promise.all(clients.map(async (client) => {
      while (started < total) {
        started++
        const result = await client.callTool({ name: 'sleep_call', arguments: { n: started } })
        if (result.isError === true) failed++
      }
    }))
    const seconds = (performance.now() - t0) / 1000
    return { rate: total / seconds, seconds, failed }
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})))
    await nginx.stop()
    await Promise.all(instances.map((i) => stop(i.child)))
  }
}

/** Runs benchmark 8 and returns its table. */
export async function runInstances(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const title = `8. Instances behind nginx — calls per second, sleep-bound tool (${SLEEP_MS} ms), max_workers ${WORKERS} each, ${IN_FLIGHT} calls in flight`
  const headers = ['instances', 'store', 'calls', 'seconds', 'calls/s', 'ideal calls/s', 'of ideal', 'failed']
  if (!hasRedis || !hasNginx) {
    return { tables: [{ title, headers, rows: [], notes: ['not measured: redis-server or nginx is not installed here (.ci/run installs both)'] }], targets: [] }
  }
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-instances-')))
  mkdirSync(path.join(base, 'plugins'))
  writeFileSync(path.join(base, 'plugins', 'sleep.mjs'), PLUGIN)
  const redis = await startRedis()
  const perInstance = options.quick ? 60 : 240
  const rows: (string | number)[][] = []
  const rates: number[] = []
  try {
    for (const [n, store] of [[1, 'redis'], [2, 'redis'], [3, 'redis'], [3, 'memory']] as const) {
      const total = perInstance * n
      const { rate, seconds, failed } = await measureRow(base, n, store, total, redis)
      const ideal = (n * WORKERS * 1000) / SLEEP_MS
      if (store === 'redis') rates.push(rate)
      rows.push([n, store === 'redis' ? 'redis (loopback)' : 'memory (nothing shared)', total, fmt(seconds, 2), fmt(rate, 1), fmt(ideal, 0), `${fmt((rate / ideal) * 100, 0)} %`, failed])
    }
  } finally {
    await redis.stop()
    rmSync(base, { recursive: true, force: true })
  }
  return {
    tables: [
      {
        title,
        headers,
        rows,
        notes: [
          'every instance is `toolhost serve --http` from the TypeScript sources (tsx), on one workspace root, behind nginx round-robin configured as docs/deploy.md says; the load generator (24 MCP v2 clients) runs in this process on the same machine',
          'on redis every call takes a lease (a Lua script) and gives it back; the memory row coordinates nothing (conflicting calls of different instances could overlap) and shows what the shared store costs',
          'wall-clock throughput on a shared 2-core machine: the instances, nginx, Redis and the clients all compete for the same CPUs (see the load average above)',
        ],
      },
    ],
    targets: [`instances: calls per second through 1 / 2 / 3 instances on Redis: ${rates.map((r) => fmt(r, 1)).join(' / ')}`],
  }
}
