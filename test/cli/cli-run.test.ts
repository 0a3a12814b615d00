/**
 * `toolhost run` and `toolhost explain` from outside: the real CLI in a child process, a fixture
 * plugin whose tools sleep, read and write, and a temporary workspace. Overlaps are checked from
 * the JSON (startedAt/endedAt/waitedFor), not from inside.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import type { TraceDocument } from '../../src/observe/trace-file.js'
import type { ToolResult } from '../../src/contract/types.js'
import { checkTrace } from '../observe/trace-checks.js'
import { TOOLHOST_CLI } from '../toolhost-cli.js'

// Up to nine CLI processes start together; each loads tsx, which takes seconds on a busy machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 })

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const PLUGINS = path.join(REPO, 'test/fixtures/dispatch/plugins')
let base: string
let config: string

function cli(args: string[], root: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TOOLHOST_CLI, ...args, '--config', config, '--root', root, '--plugins', PLUGINS], { cwd: base, env: { ...process.env, TOOLHOST_MAX_WORKERS: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 2) : 0, stdout, stderr })
    })
  })
}

function workspace(): string {
  const root = mkdtempSync(path.join(base, 'ws-'))
  mkdirSync(path.join(root, 'a'))
  writeFileSync(path.join(root, 'b.txt'), 'bee')
  return root
}

function writeBatch(name: string, document: unknown): string {
  const file = path.join(base, name)
  writeFileSync(file, JSON.stringify(document))
  return file
}

// w1 writes a/x.txt; r1 reads it and r3 lists its folder (both wait for w1, and share with each
// other); r2 reads b.txt and n1 sleeps (both free to run beside w1); w2 rewrites a/x.txt, after them all.
const BATCH = [
  { id: 'w1', name: 'write_text', input: { path: 'a/x.txt', text: 'one' } },
  { id: 'r1', name: 'read_text', input: { path: 'a/x.txt' } },
  { id: 'r2', name: 'read_text', input: { path: 'b.txt' } },
  { id: 'n1', name: 'nap', input: { ms: 80 } },
  { id: 'r3', name: 'read_text', input: { path: './b/../a' } },
  { id: 'w2', name: 'write_text', input: { path: 'a/x.txt', text: 'two' } },
]
const CONFLICTS: Array<[string, string]> = [['w1', 'r1'], ['w1', 'r3'], ['w1', 'w2'], ['r1', 'w2'], ['r3', 'w2']]

const openai = BATCH.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }))
const anthropic = BATCH.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input }))

function overlap(a: ToolResult, b: ToolResult): boolean {
  return (a.startedAt as number) < (b.endedAt as number) && (b.startedAt as number) < (a.endedAt as number)
}

beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'toolhost-cli-run-'))
  config = path.join(base, 'config.yaml')
  // Only the fixture plugin; bypass so the write tool is not asked about in a non-interactive run.
  writeFileSync(config, 'plugins:\n  dirs: []\n  builtins: false\nenv_file: ""\npermissions:\n  mode: bypass\ndispatch:\n  max_workers: 8\n')
})

afterAll(() => rmSync(base, { recursive: true, force: true }))

// Each CLI start loads tsx and the plugin (seconds on a busy machine): start them all together once.
const runs = new Map<string, Promise<{ code: number; stdout: string; stderr: string; root: string }>>()
function once(key: string, make: () => { args: string[]; root: string }): Promise<{ code: number; stdout: string; stderr: string; root: string }> {
  let run = runs.get(key)
  if (!run) {
    const { args, root } = make()
    run = cli(args, root).then((r) => ({ ...r, root }))
    runs.set(key, run)
  }
  return run
}

const SHAPES: Array<[string, unknown]> = [
  ['OpenAI tool_calls array', openai],
  ['Anthropic tool_use blocks', anthropic],
  ['an object with tool_calls', { role: 'assistant', tool_calls: openai }],
  ['an object with content (text blocks skipped)', { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, ...anthropic] }],
]
const serialDocument = [...openai.slice(0, 3), { id: 'bad', type: 'function', function: { name: 'writ_text', arguments: '{}' } }]
const launch = {
  shape: (i: number) => once(`shape${i}`, () => ({ args: ['run', writeBatch(`batch-${i}.json`, SHAPES[i]![1]), '--json', '--trace'], root: workspace() })),
  serial: () => once('serial', () => ({ args: ['run', writeBatch('serial.json', serialDocument), '--json', '--trace', '--mode', 'serial'], root: workspace() })),
  trace: () => once('trace', () => ({ args: ['run', writeBatch('trace.json', openai), '--trace'], root: workspace() })),
  traceFile: () => once('traceFile', () => ({ args: ['run', writeBatch('trace-file.json', openai), '--trace-file', path.join(base, 'out', 'batch.trace.json')], root: workspace() })),
  explain: () => once('explain', () => ({ args: ['explain', writeBatch('explain.json', anthropic)], root: workspace() })),
  explainJson: () => once('explainJson', () => ({ args: ['explain', writeBatch('explain-p.json', openai), '--json', '--mode', 'partition'], root: workspace() })),
  noCalls: () => once('noCalls', () => ({ args: ['run', writeBatch('no-calls.json', { role: 'assistant', content: 'All done.' })], root: workspace() })),
}

beforeAll(() => {
  SHAPES.forEach((_, i) => void launch.shape(i))
  void launch.serial()
  void launch.trace()
  void launch.traceFile()
  void launch.explain()
  void launch.explainJson()
  void launch.noCalls()
})

describe('toolhost run --json --trace', () => {
  test.each(SHAPES.map(([name], i) => [name, i] as const))('%s: results in call order; conflicting calls never overlap and wait in order (80 ms tool pauses)', async (_shape, i) => {
    const { code, stdout, stderr, root } = await launch.shape(i)
    expect(stderr).not.toMatch(/internal error/)
    expect(code).toBe(0)
    const out = JSON.parse(stdout) as { mode: string; results: ToolResult[] }
    expect(out.mode).toBe('graph')
    expect(out.results.map((r) => r.id)).toEqual(BATCH.map((c) => c.id))
    const byId = new Map(out.results.map((r) => [r.id, r]))
    for (const r of out.results) {
      expect(r).toMatchObject({ ok: true, startedAt: expect.any(Number), endedAt: expect.any(Number), waitedFor: expect.any(Array) })
    }
    for (const [earlier, later] of CONFLICTS) {
      const a = byId.get(earlier)!
      const b = byId.get(later)!
      expect(overlap(a, b), `${earlier} and ${later} overlapped`).toBe(false)
      expect(b.startedAt as number).toBeGreaterThanOrEqual(a.endedAt as number)
    }
    expect(byId.get('r1')!.waitedFor).toEqual(['w1'])
    expect(byId.get('r2')!.waitedFor).toEqual([])
    expect(byId.get('w2')!.waitedFor).toEqual(['w1', 'r1', 'r3'])
    // What may share did: the reads of other paths and the nap ran beside the first write.
    expect(overlap(byId.get('w1')!, byId.get('r2')!)).toBe(true)
    expect(overlap(byId.get('w1')!, byId.get('n1')!)).toBe(true)
    expect(overlap(byId.get('r1')!, byId.get('r3')!)).toBe(true)
    expect(byId.get('r1')!.content).toBe('one') // read after the first write, before the second
    expect(byId.get('r3')!.content).toBe('x.txt')
    expect(readFileSync(path.join(root, 'a', 'x.txt'), 'utf8')).toBe('two')
  })

  test('serial mode from --mode: no two calls overlap; a failed call gives exit code 1 and a null start', async () => {
    const { code, stdout } = await launch.serial()
    expect(code).toBe(1)
    const out = JSON.parse(stdout) as { mode: string; results: ToolResult[] }
    expect(out.mode).toBe('serial')
    const ran = out.results.filter((r) => r.ok)
    for (let i = 1; i < ran.length; i++) expect(ran[i]!.startedAt as number).toBeGreaterThanOrEqual(ran[i - 1]!.endedAt as number)
    expect(out.results[3]).toMatchObject({ id: 'bad', ok: false, error: { code: 'E_TOOL_UNKNOWN' }, startedAt: null, endedAt: null })
  })

  test('run --trace without --json draws the timeline: a row per call, bars, and why each call waited', async () => {
    const { code, stdout } = await launch.trace()
    expect(code).toBe(0)
    const timeline = stdout.slice(stdout.indexOf('graph mode timeline:'))
    for (const c of BATCH) expect(timeline).toMatch(new RegExp(`^${c.id} +${c.name} +\\|[ █]+\\| [\\d.]+–[\\d.]+ ms  ok$`, 'm'))
    expect(timeline).toMatch(/waited for w1: reads a\/x\.txt, which w1 writes too/)
    expect(timeline).toMatch(/waited for r3: writes a\/x\.txt, which r3 reads \(a\)/)
  })
})

describe('toolhost run --trace-file', () => {
  test('writes the batch as a Chrome trace: a slice per call on non-overlapping worker lanes, a flow per wait', async () => {
    const { code, stderr } = await launch.traceFile()
    expect(stderr).not.toMatch(/internal error/)
    expect(code).toBe(0)
    const doc = JSON.parse(readFileSync(path.join(base, 'out', 'batch.trace.json'), 'utf8')) as TraceDocument
    const facts = checkTrace(doc, BATCH.map((c) => c.id))
    // Exactly the batch's waits: each conflict of a call with an earlier one it waited for.
    expect(facts.flows.map(([from, to]) => `${from}->${to}`).sort()).toEqual(CONFLICTS.map(([a, b]) => `${a}->${b}`).sort())
    expect(facts.laneNames.size).toBeGreaterThanOrEqual(2) // w1 ran beside r2 and n1
    expect(facts.slices.get('w1')!.name).toBe('write_text')
    expect(doc.otherData).toMatchObject({ generator: 'toolhost', mode: 'graph' })
  })
})

describe('toolhost run of a file without calls', () => {
  test('says the file holds no tool calls instead of printing nothing', async () => {
    const { code, stdout, stderr } = await launch.noCalls()
    expect(code).toBe(0)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/no-calls\.json holds no tool calls .*; nothing to run/)
  })
})

describe('Ctrl-C during toolhost run', () => {
  test('SIGINT: the running call is E_INTERRUPTED, the one not started is E_ABORTED, every call still has a result, exit 130', async () => {
    const root = workspace()
    const batch = writeBatch('interrupt.json', [
      { id: 'h', type: 'function', function: { name: 'hold', arguments: '{"marker":"started.txt"}' } },
      { id: 'n', type: 'function', function: { name: 'nap', arguments: '{"ms":1}' } },
    ])
    const child = spawn(process.execPath, [TOOLHOST_CLI, 'run', batch, '--json', '--mode', 'serial', '--config', config, '--root', root, '--plugins', PLUGINS], { cwd: base })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    // Interrupt once the first call is known to be running (it writes a marker file first).
    while (!existsSync(path.join(root, 'started.txt'))) await new Promise((r) => setTimeout(r, 50))
    child.kill('SIGINT')
    expect(await exited).toBe(130)
    const out = JSON.parse(stdout) as { results: ToolResult[] }
    expect(out.results.map((r) => [r.id, r.error?.code])).toEqual([['h', 'E_INTERRUPTED'], ['n', 'E_ABORTED']])
  })
})

describe('toolhost explain', () => {
  test('prints the plan (footprints, who waits for whom and why) and runs nothing', async () => {
    const { code, stdout, root } = await launch.explain()
    expect(code).toBe(0)
    expect(stdout).toMatch(/^graph mode plan \(6 calls\):/)
    // Each call: what it touches, what the permission system would decide (bypass in this config), whom it waits for.
    expect(stdout).toMatch(/^w1 write_text: write a\/x\.txt\n {4}permission: allow \(mode: .*bypass.*\)\n {4}starts at once$/m)
    expect(stdout).toMatch(/^r1 read_text: read a\/x\.txt\n {4}permission: allow \(.*\)\n {4}waits for w1: reads a\/x\.txt, which w1 writes too$/m)
    expect(stdout).toMatch(/^n1 nap: touches nothing shared\n {4}permission: allow \(.*\)\n {4}starts at once$/m)
    expect(existsSync(path.join(root, 'a', 'x.txt'))).toBe(false) // the write never ran
  })

  test('--json --mode partition gives the plan as JSON', async () => {
    const { code, stdout, root } = await launch.explainJson()
    expect(code).toBe(0)
    const plan = JSON.parse(stdout) as { mode: string; calls: Array<{ id: string; waitsFor: Array<{ id: string }> }> }
    expect(plan.mode).toBe('partition')
    // Groups: [w1] [r1 r2 n1 r3] [w2]
    expect(plan.calls.map((c) => [c.id, c.waitsFor.map((w) => w.id).sort()])).toEqual([
      ['w1', []],
      ['r1', ['w1']],
      ['r2', ['w1']],
      ['n1', ['w1']],
      ['r3', ['w1']],
      ['w2', ['n1', 'r1', 'r2', 'r3', 'w1']],
    ])
    expect(existsSync(path.join(root, 'a', 'x.txt'))).toBe(false)
  })
})

describe('renderTimeline', () => {
  test('a batch where nothing ran draws an empty axis, not Infinity', async () => {
    const { renderTimeline } = await import('../../src/cli/timeline.js')
    const text = renderTimeline([{ id: 'x', name: 'nap', ok: false, content: '', error: { code: 'E_ABORTED', message: 'skipped' }, startedAt: null, endedAt: null }], new Map())
    expect(text).not.toMatch(/Infinity|NaN/)
    expect(text).toMatch(/^x +nap +\|·+\| did not run  E_ABORTED$/m)
  })

  test('bars sit on one shared axis: a call that waited starts where the one before it ended', async () => {
    const { renderTimeline } = await import('../../src/cli/timeline.js')
    const text = renderTimeline(
      [
        { id: 'a', name: 'w', ok: true, content: '', startedAt: 100, endedAt: 150 },
        { id: 'b', name: 'r', ok: true, content: '', startedAt: 150, endedAt: 200 },
      ],
      new Map([['b', [{ id: 'a', reason: 'reads f, which a writes too' }]]]),
      20,
    )
    expect(text.split('\n')).toEqual([
      'call  tool   0 ms        100.0 ms',
      'a     w     |██████████          | 0.0–50.0 ms  ok',
      'b     r     |          ██████████| 50.0–100.0 ms  ok',
      '            waited for a: reads f, which a writes too',
    ])
  })
})
