/**
 * What a person reads from `toolhost explain`, `run --trace`, `doctor` and `call` about the worker
 * pool, rate limits, footprints (issue 16.1), denied calls in the plan (16.7) and cut results
 * (16.6). The CLI's `main` runs in this process against fixture plugins and a temp workspace.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'

const FS_TOOLS = path.resolve('test/fixtures/dispatch/plugins')
const SCOPE_ONLY = path.resolve('test/fixtures/dispatch/footprint-plugins')
let root: string

// The CLI logs at warn by default; these configs use bypass, whose start-up warning is expected.
const logLevel = process.env.TOOLHOST_LOG
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-cli-pool-'))
  process.env.TOOLHOST_LOG = 'error'
})
afterAll(() => {
  if (logLevel === undefined) delete process.env.TOOLHOST_LOG
  else process.env.TOOLHOST_LOG = logLevel
  rmSync(root, { recursive: true, force: true })
})

/** Writes a config (YAML lines) and a batch, runs `toolhost <command> batch` in this process. */
async function cli(command: string[], config: string[], batch?: unknown): Promise<{ code: number; stdout: string; stderr: string }> {
  const name = `c${Math.random().toString(36).slice(2, 8)}`
  const configFile = path.join(root, `${name}.yaml`)
  const plugins = config.some((line) => line.startsWith('plugins:')) ? [] : ['plugins: { dirs: [] }']
  writeFileSync(configFile, [...plugins, 'env_file: ""', ...config].join('\n'))
  const args = [...command]
  if (batch !== undefined) {
    const file = path.join(root, `${name}.json`)
    writeFileSync(file, JSON.stringify(batch))
    args.push(file)
  }
  let stdout = ''
  let stderr = ''
  const code = await main([...args, '--config', configFile, '--root', root, '--plugins', FS_TOOLS, '--plugins', SCOPE_ONLY], { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) })
  return { code, stdout, stderr }
}

const call = (id: string, name: string, input: unknown) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(input) } })

describe('explain: the worker pool and rate limits', () => {
  test('with more calls than workers, it predicts who waits for a worker and who holds them', async () => {
    const { code, stdout } = await cli(['explain'], ['permissions: { mode: bypass }', 'dispatch: { max_workers: 1, duration_estimates: "" }'], [call('n1', 'nap', { ms: 5 }), call('n2', 'nap', { ms: 5 })])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^n1 nap: touches nothing shared\n {4}permission: allow \(.*\)\n {4}starts at once$/m)
    expect(stdout).toMatch(/^n2 nap: touches nothing shared\n {4}permission: allow \(.*\)\n {4}waits for a worker \(predicted; max_workers 1\): n1 holds them$/m)
  })

  test('a call beyond its rate is shown waiting for a rate slot', async () => {
    const { stdout } = await cli(['explain'], ['permissions: { mode: bypass }', 'dispatch: { duration_estimates: "" }', 'rate_limits: { nap: { calls: 1, per_ms: 1000 } }'], [call('n1', 'nap', { ms: 5 }), call('n2', 'nap', { ms: 5 })])
    expect(stdout).toMatch(/^n1 nap: touches nothing shared\n {4}permission: allow \(.*\)\n {4}starts at once$/m)
    expect(stdout).toMatch(/^ {4}waits for a rate slot: nap allows 1 call per 1000 ms$/m)
  })
})

describe('explain and denied calls (16.7)', () => {
  const batch = [call('w1', 'write_text', { path: 'a/x.txt', text: 'one' }), call('r1', 'read_text', { path: 'a/x.txt' })]

  test('a call the permission system would deny is left out of the wait graph', async () => {
    const { stdout } = await cli(['explain'], ['permissions: { mode: bypass, deny: ["write_text(a/**)"] }', 'dispatch: { duration_estimates: "" }'], batch)
    expect(stdout).toMatch(/^w1 write_text: write a\/x\.txt\n {4}permission: deny \(.*\)\n {4}will not run \(denied\), so no call waits for it$/m)
    expect(stdout).toMatch(/^r1 read_text: read a\/x\.txt\n {4}permission: allow \(.*\)\n {4}starts at once$/m)
  })

  test('a wait on a call that will ask a person is marked "(if allowed)"', async () => {
    // A person is at the terminal (so the write would be asked about, not refused for want of one).
    const tty = { stdin: process.stdin.isTTY, stderr: process.stderr.isTTY }
    process.stdin.isTTY = true
    process.stderr.isTTY = true
    let stdout: string
    try {
      ;({ stdout } = await cli(['explain'], ['permissions: { mode: ask }', 'dispatch: { duration_estimates: "" }'], batch))
    } finally {
      process.stdin.isTTY = tty.stdin
      process.stderr.isTTY = tty.stderr
    }
    expect(stdout).toMatch(/^w1 write_text: write a\/x\.txt\n {4}permission: ask \(.*\)/m)
    expect(stdout).toMatch(/^ {4}waits for w1 \(if allowed\): reads a\/x\.txt, which w1 writes too$/m)
  })
})

describe('footprints: declaring scope is declaring path-scoping (16.1)', () => {
  test('explain says where each footprint came from; a parallelSafe tool with a read scope waits for a write of the same path', async () => {
    const { stdout } = await cli(['explain'], ['permissions: { mode: bypass }', 'dispatch: { duration_estimates: "", parallel_safe: [nap] }'], [
      call('p1', 'scoped_patch', { path: 'f.txt' }),
      call('s1', 'scoped_reader', { path: 'f.txt' }),
      call('s2', 'scoped_reader', { path: 'g.txt' }),
      call('n1', 'nap', { ms: 1 }),
    ])
    expect(stdout).toMatch(/^p1 scoped_patch: write f\.txt\n(?: {4}.*\n)*? {4}footprint from the tool: scope\(args\)$/m)
    expect(stdout).toMatch(/^s1 scoped_reader: read f\.txt\n {4}permission: allow \(.*\)\n {4}waits for p1: reads f\.txt, which p1 writes too\n {4}footprint from the tool: scope\(args\)$/m)
    expect(stdout).toMatch(/^s2 scoped_reader: read g\.txt\n {4}permission: allow \(.*\)\n {4}starts at once\n/m)
    expect(stdout).toMatch(/^ {4}footprint from config: dispatch\.parallel_safe$/m)
  })
})

describe('run --trace: waits for a worker and for a rate slot', () => {
  test('the timeline says which calls held the workers', async () => {
    const { code, stdout } = await cli(['run', '--trace'], ['permissions: { mode: bypass }', 'dispatch: { max_workers: 1, duration_estimates: "" }'], [call('n1', 'nap', { ms: 1 }), call('n2', 'nap', { ms: 1 })])
    expect(code).toBe(0)
    const timeline = stdout.slice(stdout.indexOf('graph mode timeline:'))
    expect(timeline).toMatch(/^n1 +nap +\|[ █]+\| [\d.]+–[\d.]+ ms  ok\nn2 +nap +\|[ █]+\| [\d.]+–[\d.]+ ms  ok\n {4,}waited for a worker: n1 held them$/m)
  })

  test('the timeline says which rate a call waited for', async () => {
    const { code, stdout } = await cli(['run', '--trace'], ['permissions: { mode: bypass }', 'dispatch: { duration_estimates: "" }', 'rate_limits: { fixture: { calls: 1, per_ms: 200 } }'], [call('r1', 'read_text', { path: 'b.txt' }), call('r2', 'read_text', { path: 'c.txt' })])
    expect(code).toBe(0)
    const timeline = stdout.slice(stdout.indexOf('graph mode timeline:'))
    expect(timeline).toMatch(/^r2 +read_text +\|[ █]+\| [\d.]+–[\d.]+ ms  ok\n {4,}waited for a rate slot: fixture allows 1 call per 200 ms$/m)
  })

  test('--json --trace: a call that waited for a worker names the calls that held them', async () => {
    const { stdout } = await cli(['run', '--trace', '--json'], ['permissions: { mode: bypass }', 'dispatch: { max_workers: 1, duration_estimates: "" }'], [call('n1', 'nap', { ms: 1 }), call('n2', 'nap', { ms: 1 })])
    const out = JSON.parse(stdout) as { results: Array<{ id: string; waitedForWorker?: string[] }> }
    expect(out.results.map((r) => [r.id, r.waitedForWorker])).toEqual([['n1', undefined], ['n2', ['n1']]])
  })
})

describe('doctor: the limits in force', () => {
  test('shows the worker limit, rate limits, whether config.yaml is watched, and duration estimates', async () => {
    const { stdout } = await cli(['doctor'], ['permissions: { mode: bypass }', 'dispatch: { max_workers: 3, duration_estimates: "" }', 'rate_limits: { web_search: { calls: 2, per_ms: 1000 }, "mcp_github_*": { concurrency: 2 } }'])
    expect(stdout).toMatch(/^mode: +graph, max_workers 3, timeout 120000 ms, interrupt grace 2000 ms$/m)
    expect(stdout).toMatch(/^rate limits: +web_search: 2 calls per 1000 ms; mcp_github_\*: 2 at once$/m)
    expect(stdout).toMatch(/^live limits: +off \(plugins\.watch or serve --watch turns it on\); limits change on restart$/m)
    expect(stdout).toMatch(/^durations: +0 tools with an estimate \(kept in memory only\)$/m)
  })

  test('with plugins.watch the config file is watched', async () => {
    const { stdout } = await cli(['doctor'], ['permissions: { mode: bypass }', 'dispatch: { duration_estimates: "" }', 'plugins: { dirs: [], watch: true }'])
    expect(stdout).toMatch(/^live limits: +\S+\.yaml is watched: worker limit, rate limits, timeouts and hooks apply to calls not yet started$/m)
  })
})

describe('a cut result as the reader gets it (16.6)', () => {
  test('with max_result_chars 150: content first, then a note with the path relative to the root', async () => {
    const { code, stdout } = await cli(['call', 'many_lines', '{"lines": 500}'], ['permissions: { mode: bypass }', 'dispatch: { duration_estimates: "" }', 'limits: { max_result_chars: 150 }'])
    expect(code).toBe(0)
    const content = stdout.replace(/\n$/, '')
    expect(content.length).toBeLessThanOrEqual(150)
    const [kept, note] = content.split('\n[truncated')
    expect(kept!.length).toBeGreaterThanOrEqual(50) // at least a third of the limit is content
    expect(kept).toMatch(/^line 1\nline 2\n/)
    const saved = /whole text: (\S+)\]$/.exec(note ?? '')?.[1]
    expect(saved).toMatch(/^\.toolhost\/results\/call_1-[\w-]+\.txt$/)
    expect(readFileSync(path.join(root, saved!), 'utf8').split('\n')).toHaveLength(500)
  })
})
