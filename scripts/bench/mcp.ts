/**
 * Benchmark 6 — MCP round trips: one no-op `tools/call` over `serveHttp` on loopback, as a 2025
 * session (the v1 SDK client, and the v2 client in legacy mode) and as a stateless 2026-07-28
 * request (the v2 client: a fresh server instance per request); then a call that needs approval,
 * answered at once by the client: an `elicitation/create` inside the 2025 call, two requests (the
 * `input_required` round and the retry, which runs the call again) on 2026.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { defineTool } from '../../src/contract/define-tool.js'
import { silentLogger } from '../../src/contract/logger.js'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { serveHttp, type HttpEndpoint } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import type { BenchOptions } from './options.js'
import { fmt, median, type Table } from './table.js'

const NONE = { type: 'object', properties: {}, additionalProperties: false } as const

interface Served { host: Host; endpoint: HttpEndpoint; dispose(): Promise<void> }

async function serve(mode: 'bypass' | 'ask'): Promise<Served> {
  const registry = new ToolRegistry()
  registry.register(defineTool({ name: 'noop', description: 'No-op (benchmark).', parameters: NONE, parallelSafe: true, readOnly: () => true, handler: () => 'ok' }))
  registry.register(defineTool({ name: 'guarded', description: 'No-op that needs approval (benchmark).', parameters: NONE, destructive: () => true, handler: () => 'ok' }))
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-mcp-'))
  const sessions = new McpSessions()
  const host = await createHost({
    root, cwd: root, registry, loadPlugins: false, log: silentLogger, audience: 'model',
    config: { env_file: '', plugins: { dirs: [] }, permissions: { mode, audit_log: '' }, serve: { console: 'off' } },
    approve: sessions.approve,
  })
  const endpoint = await serveHttp(host, sessions, { port: 0, hostname: '127.0.0.1' })
  return { host, endpoint, dispose: async () => { await endpoint.close(); await host.close(); rmSync(root, { recursive: true, force: true }) } }
}

type Caller = { call: (name: string) => Promise<unknown>; close: () => Promise<void> }

async function v1Client(url: string): Promise<Caller> {
  const client = new ClientV1({ name: 'bench-v1', version: '1' }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { decision: 'allow-once' } }))
  await client.connect(new HttpV1(new URL(url)))
  return { call: (name) => client.callTool({ name, arguments: {} }), close: () => client.close() }
}

async function v2Client(url: string, mode: 'auto' | 'legacy'): Promise<Caller> {
  const client = new ClientV2({ name: 'bench-v2', version: '2' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } })
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { decision: 'allow-once' } }))
  await client.connect(new HttpV2(new URL(url)))
  return { call: (name) => client.callTool({ name, arguments: {} }), close: () => client.close() }
}

/** Milliseconds per call: the median and the 95th percentile of `count` sequential calls (after a warm-up). */
async function timeCalls(caller: Caller, name: string, count: number): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < Math.min(20, count); i++) await caller.call(name)
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    await caller.call(name)
    times.push(performance.now() - t0)
  }
  const sorted = [...times].sort((a, b) => a - b)
  return { median: median(times), p95: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]! }
}

export async function runMcp(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const count = options.quick ? 50 : 300
  const rows: Array<[string, string, string, string]> = []
  for (const [tool, mode, what] of [['noop', 'bypass', 'tools/call, no-op'], ['guarded', 'ask', 'tools/call needing approval, approved at once']] as const) {
    const served = await serve(mode)
    try {
      const clients: Array<[string, () => Promise<Caller>]> = [
        ['2025 session, SDK v1 client', () => v1Client(served.endpoint.url)],
        ['2025 session, SDK v2 client (legacy)', () => v2Client(served.endpoint.url, 'legacy')],
        ['2026-07-28 stateless, SDK v2 client', () => v2Client(served.endpoint.url, 'auto')],
      ]
      for (const [who, connect] of clients) {
        const caller = await connect()
        try {
          const t = await timeCalls(caller, tool, count)
          rows.push([what, who, fmt(t.median, 2), fmt(t.p95, 2)])
        } finally {
          await caller.close()
        }
      }
    } finally {
      await served.dispose()
    }
  }
  return {
    tables: [{
      title: `6. MCP round trips over loopback HTTP (serveHttp, ${count} sequential calls each after a warm-up)`,
      headers: ['call', 'client', 'median ms', 'p95 ms'],
      rows,
      notes: [
        'A 2026 request builds a server instance of its own; a 2025 session reuses its instance.',
        'An approval on 2025 is an elicitation/create inside the call; on 2026 it is a second request (input_required, then the retry with a sealed requestState, which runs the call again).',
      ],
    }],
    targets: [],
  }
}
