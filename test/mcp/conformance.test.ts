/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, every server
 * scenario; it drives the 2025 revisions) against `toolhost serve --http`, with the scenarios' test
 * tools written as toolhost plugins (test/fixtures/conformance/plugins). The scenarios that fail must
 * be exactly the committed baseline (test/fixtures/conformance/expected-failures.yml, each with its
 * reason): a new failure is a regression, a listed scenario that passes means the baseline is stale.
 * 0.1.14+ imports `fs.globSync` (Node 22) at load: test/fixtures/conformance/node20-fs-shim.mjs
 * supplies it on Node 20.
 */
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { parse } from 'yaml'
import { makeTempDir, REPO, startHttpServer } from './serve-helpers.js'

const CONFORMANCE_CLI = path.join(REPO, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const CONFIG = path.join(REPO, 'test/fixtures/conformance/config.yaml')
const BASELINE = path.join(REPO, 'test/fixtures/conformance/expected-failures.yml')
const NODE20_SHIM = path.join(REPO, 'test/fixtures/conformance/node20-fs-shim.mjs')
/** `conformance list --server` in 0.1.16 names 32 server scenarios: a run with fewer lost some. */
const SERVER_SCENARIOS = 32

/** The baseline, by reason. Not offered: sampling (deprecated in 2026-07-28). */
const NOT_OFFERED = ['tools-call-sampling']

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO'
  errorMessage?: string
}

const tmp = makeTempDir('toolhost-conformance-')
let server: Awaited<ReturnType<typeof startHttpServer>> | undefined

beforeAll(async () => {
  server = await startHttpServer(['--config', CONFIG], tmp.dir)
}, 60_000)

afterAll(async () => {
  await server?.stop()
  tmp.remove()
})

test('every server scenario passes except the committed baseline (conformance 0.1.16, --suite all)', { timeout: 180_000 }, async () => {
  const out = path.join(tmp.dir, 'results')
  const run = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', NODE20_SHIM, CONFORMANCE_CLI, 'server', '--url', server!.url.href, '--suite', 'all', '--expected-failures', BASELINE, '-o', out],
      { cwd: tmp.dir, timeout: 170_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}\n${stderr}` }),
    )
  })

  // Each scenario leaves server-<scenario>-<timestamp>/checks.json; a warning fails it as the suite counts.
  const failing: Record<string, string[]> = {}
  const scenarios: string[] = []
  for (const dir of readdirSync(out)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1]
    if (!scenario) continue
    scenarios.push(scenario)
    const checks = JSON.parse(readFileSync(path.join(out, dir, 'checks.json'), 'utf8')) as Check[]
    const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    if (bad.length > 0) failing[scenario] = bad.map((c) => `${c.id}: ${c.errorMessage ?? c.status}`)
  }
  const baseline = (parse(readFileSync(BASELINE, 'utf8')) as { server: string[] }).server
  expect([...baseline].sort()).toEqual([...NOT_OFFERED].sort())

  expect(scenarios).toHaveLength(SERVER_SCENARIOS)
  // On a mismatch this shows why each unexpected scenario failed.
  expect(Object.fromEntries(Object.entries(failing).filter(([name]) => !baseline.includes(name)))).toEqual({})
  expect(Object.keys(failing).sort()).toEqual([...baseline].sort())
  expect(run.code, run.output.slice(-3000)).toBe(0)
})
