// The CLI as a process against faulty plugins (issue 12, items 2, 4, 7, 20): a stray rejection or
// timer throw, a handler that ignores its abort with a conflicting call behind it, a handler that
// leaves an interval, a deeply nested argument for `explain`, and a disk that refuses the spilled
// result. Every result is printed and the process exits with the right code.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { outputOf, TOOLHOST_CLI } from '../toolhost-cli.js'

const BIN = TOOLHOST_CLI
const CONFIG = path.resolve('test/fixtures/hostile/config.yaml')
const FAULTY = path.resolve('test/fixtures/hostile/plugins/faulty.ts')

let root: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-cli-faulty-')))
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

/** `toolhost ARGS --config … --root …` (from the sources), optionally under a shell prefix (ulimit). */
function toolhost(args: string[], shellPrefix?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const argv = [BIN, ...args, '--config', CONFIG, '--root', root]
  const child = shellPrefix === undefined
    ? spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('bash', ['-c', `${shellPrefix}; exec "$0" "$@"`, process.execPath, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] })
  return outputOf(child)
}

function batch(calls: Array<{ id: string; name: string; arguments: unknown }>): string {
  const file = path.join(root, 'batch.json')
  writeFileSync(file, JSON.stringify({ tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }))
  return file
}

test('a plugin\'s stray rejection and timer throw do not kill the CLI: every result prints, the plugin is named', async () => {
  const file = batch([
    { id: 's', name: 'stray', arguments: {} },
    { id: 'e', name: 'echo', arguments: { text: 'still here' } },
  ])
  const run = await toolhost(['run', file])
  expect(run.stdout).toContain('ok    s stray')
  expect(run.stdout).toContain('ok    e echo')
  expect(run.stdout).toContain('still here')
  expect(run.code).toBe(0)
  expect(run.stderr).toContain(`an unhandled promise rejection from plugin ${FAULTY} (tools: `)
  expect(run.stderr).toContain('stray rejection from the fixture')
})

test('run prints every result when a handler ignores its abort and a conflicting call waits behind it (was: no output, exit 13)', async () => {
  const file = batch([
    { id: 'h', name: 'stubborn', arguments: { path: 'shared.txt' } },
    { id: 't', name: 'touch', arguments: { path: 'shared.txt' } },
  ])
  const run = await toolhost(['run', file, '--json'])
  expect(run.code, run.stderr).toBe(1)
  const { results } = JSON.parse(run.stdout) as { results: Array<{ id: string; ok: boolean; content: string; error?: { code: string } }> }
  expect(results.map((r) => [r.id, r.ok, r.error?.code])).toEqual([['h', false, 'E_TIMEOUT'], ['t', true, undefined]])
  expect(results[1]!.content).toBe('touched shared.txt')
})

test('call exits after a timed-out handler left an interval running (was: never exited)', async () => {
  const run = await toolhost(['call', 'leaky', '{}'])
  expect(run.code).toBe(1)
  expect(run.stderr).toContain('error E_TIMEOUT: timed out after 200 ms running leaky')
})

test('explain of a batch with an argument nested 5,000 deep refuses that call alone (was: internal error: RangeError)', async () => {
  const text = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`
  const file = path.join(root, 'deep.json')
  writeFileSync(file, JSON.stringify({ tool_calls: [
    { id: 'deep', type: 'function', function: { name: 'anything', arguments: text } },
    { id: 'fine', type: 'function', function: { name: 'anything', arguments: '{"b":1}' } },
  ] }))
  const run = await toolhost(['explain', file])
  expect(run.code, run.stderr).toBe(0)
  expect(run.stdout).toContain('deep anything: will not run — E_ARGS_INVALID: the arguments are nested more than 64 levels deep')
  expect(run.stdout).toMatch(/fine anything: touches nothing shared/)
  expect(run.stderr).not.toContain('internal error')
})

test('a result that cannot be saved (the disk refuses the file) leaves no partial file and says why', async () => {
  // `ulimit -f` makes writes past 64 KiB fail with EFBIG, as a full disk fails with ENOSPC.
  const run = await toolhost(['call', 'long_text', '{"lines":5000}', '--json'], "trap '' XFSZ; ulimit -f 64")
  expect(run.code, run.stderr).toBe(0)
  const result = JSON.parse(run.stdout) as { ok: boolean; content: string; truncated?: boolean; savedTo?: string }
  expect(result.truncated).toBe(true)
  expect(result.savedTo).toBeUndefined()
  expect(result.content).toMatch(/\[truncated: showing \d+ of \d+ characters; the whole text could not be saved \(EFBIG: file too large, write\)\]$/)
  expect(result.content.length).toBeLessThanOrEqual(100_000)
  const results = path.join(root, '.toolhost', 'results')
  expect(readdirSync(results)).toEqual([])
})
