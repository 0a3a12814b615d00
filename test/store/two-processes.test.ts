/**
 * Real host processes on one workspace root (two `toolhost run` CLIs, from the TypeScript sources):
 * their conflicting path-scoped writes never overlap, a rate rule holds across them, and a host
 * killed with SIGKILL while holding a reservation blocks the other only until its lease goes. The
 * handler stamps its start and end with the machine's wall clock (test/fixtures/store/plugins/
 * stamp.ts): the stamps alone prove who ran when. Waits are driven by what the processes print
 * (TOOLHOST_LOG=debug: "call … waits for …") and by gate files, never by sleeps. The last case is a
 * CLI `run` racing a running `serve --http` on the root (an MCP v2 client drives the serve side).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { HOST_TTL_MS } from '../../src/store/store-state.js'
import { outputOf, REPO, TOOLHOST_CLI, type CliRun } from '../toolhost-cli.js'
// This file is about hosts coordinating through the local store: vitest.config.ts sets TOOLHOST_STORE=memory for the others.
delete process.env['TOOLHOST_STORE']

const PLUGINS = path.join(REPO, 'test/fixtures/store/plugins')
// Each process takes a second or two to start under tsx on a loaded machine.
const SLOW = 150_000

interface Stamp {
  tag: string
  event: 'start' | 'end'
  pid: number
  at: number
}

let base: string
let root: string
let stamps: string
const children: ChildProcessWithoutNullStreams[] = []

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-two-processes-')))
  root = path.join(base, 'root')
  stamps = path.join(base, 'stamps.jsonl')
  writeFileSync(stamps, '')
  mkdirSync(root)
})

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  rmSync(base, { recursive: true, force: true })
})

function writeConfig(extra = ''): string {
  const file = path.join(base, 'config.yaml')
  writeFileSync(file, `plugins:\n  builtins: false\n  dirs: []\nenv_file: ""\npermissions:\n  mode: bypass\n  audit_log: ""\ndispatch:\n  duration_estimates: ""\n${extra}`)
  return file
}

/** A `toolhost run` of one stamp_write call on the shared root; `out` collects its output as it comes. */
function runOne(config: string, call: { tag: string; path: string; gate?: string }) {
  const batch = path.join(base, `${call.tag}.json`)
  writeFileSync(batch, JSON.stringify([{ id: call.tag, name: 'stamp_write', arguments: call }]))
  const child = spawn(process.execPath, [TOOLHOST_CLI, 'run', batch, '--json', '--config', config, '--root', root, '--plugins', PLUGINS], {
    cwd: base,
    env: { ...process.env, STAMP_LOG: stamps, TOOLHOST_LOG: 'debug', TOOLHOST_STORE: '' },
  })
  children.push(child)
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const done: Promise<CliRun> = outputOf(child)
  return { child, done, stderr: () => stderr }
}

const readStamps = (): Stamp[] => readFileSync(stamps, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Stamp)
const stampOf = (tag: string, event: Stamp['event']): Stamp | undefined => readStamps().find((s) => s.tag === tag && s.event === event)
const until = (check: () => void): Promise<void> => vi.waitFor(check, { timeout: 60_000, interval: 20 })

describe('two host processes on one root', () => {
  test('conflicting path-scoped writes never overlap: the second waits for the first, and says so', async () => {
    const config = writeConfig()
    const gate = path.join(base, 'gate-p1')
    const first = runOne(config, { tag: 'p1', path: 'a.txt', gate })
    await until(() => expect(stampOf('p1', 'start')).toBeDefined())
    const second = runOne(config, { tag: 'p2', path: 'a.txt' })
    await until(() => expect(second.stderr()).toMatch(/call p2 waits for p1 \(writes a\.txt, which p1 on host \d+ writes too\)/))
    expect(stampOf('p2', 'start')).toBeUndefined()
    writeFileSync(gate, '')
    const [one, two] = await Promise.all([first.done, second.done])
    expect([one.code, two.code], `${one.stderr}\n${two.stderr}`).toEqual([0, 0])
    expect(stampOf('p2', 'start')!.at).toBeGreaterThanOrEqual(stampOf('p1', 'end')!.at)
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('p2')
    // The last host out left nothing behind.
    expect(existsSync(path.join(root, '.toolhost'))).toBe(false)
  }, SLOW)

  test('a rate rule (concurrency 1) holds across processes, even for calls on different paths', async () => {
    const config = writeConfig('rate_limits:\n  stamp_write: { concurrency: 1 }\n')
    const gate = path.join(base, 'gate-p1')
    const first = runOne(config, { tag: 'p1', path: 'x.txt', gate })
    await until(() => expect(stampOf('p1', 'start')).toBeDefined())
    const second = runOne(config, { tag: 'p2', path: 'y.txt' })
    await until(() => expect(second.stderr()).toMatch(/call p2 waits for a rate slot of stamp_write \(1 at once\)/))
    expect(stampOf('p2', 'start')).toBeUndefined()
    writeFileSync(gate, '')
    const [one, two] = await Promise.all([first.done, second.done])
    expect([one.code, two.code], `${one.stderr}\n${two.stderr}`).toEqual([0, 0])
    expect(stampOf('p2', 'start')!.at).toBeGreaterThanOrEqual(stampOf('p1', 'end')!.at)
  }, SLOW)

  test('a holder killed with SIGKILL blocks the other only until its lease goes (at once: its pid is gone)', async () => {
    const config = writeConfig()
    const first = runOne(config, { tag: 'p1', path: 'a.txt', gate: path.join(base, 'never') })
    await until(() => expect(stampOf('p1', 'start')).toBeDefined())
    const second = runOne(config, { tag: 'p2', path: 'a.txt' })
    await until(() => expect(second.stderr()).toMatch(/call p2 waits for p1/))
    const killedAt = Date.now()
    first.child.kill('SIGKILL')
    const two = await second.done
    expect(two.code, two.stderr).toBe(0)
    expect(stampOf('p1', 'end')).toBeUndefined()
    // Within the lease (HOST_TTL_MS after the holder's last renewal), not at some later time.
    expect(stampOf('p2', 'start')!.at - killedAt).toBeLessThan(HOST_TTL_MS)
  }, SLOW)

  test('a CLI run racing a running serve on the root: its conflicting write waits for the one serve runs', async () => {
    const config = writeConfig()
    // serve has no --plugins: its config names the fixture folder.
    const serveConfig = path.join(base, 'serve.yaml')
    writeFileSync(serveConfig, readFileSync(config, 'utf8').replace('  dirs: []', `  dirs: [${JSON.stringify(PLUGINS)}]`))
    const serve = spawn(process.execPath, [TOOLHOST_CLI, 'serve', '--http', '0', '--config', serveConfig, '--root', root], { cwd: base, env: { ...process.env, STAMP_LOG: stamps, TOOLHOST_STORE: '' } })
    children.push(serve)
    let serveErr = ''
    serve.stderr.on('data', (chunk: Buffer) => (serveErr += chunk.toString()))
    serve.stdout.resume()
    await until(() => expect(serveErr).toMatch(/MCP Streamable HTTP at (\S+)/))
    const client = new Client({ name: 'two-processes', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new StreamableHTTPClientTransport(new URL(/MCP Streamable HTTP at (\S+)/.exec(serveErr)![1]!)))
    try {
      const gate = path.join(base, 'gate-s1')
      const served = client.callTool({ name: 'stamp_write', arguments: { tag: 's1', path: 'a.txt', gate } })
      await until(() => expect(stampOf('s1', 'start')).toBeDefined())
      const cli = runOne(config, { tag: 'c1', path: 'a.txt' })
      await until(() => expect(cli.stderr()).toMatch(/call c1 waits for \S+ \(writes a\.txt, which \S+ on host \d+ writes too\)/))
      expect(stampOf('c1', 'start')).toBeUndefined()
      writeFileSync(gate, '')
      const [result, run] = await Promise.all([served, cli.done])
      expect((result as { content: Array<{ text: string }> }).content[0]!.text).toBe('s1')
      expect(run.code, run.stderr).toBe(0)
      expect(stampOf('c1', 'start')!.at).toBeGreaterThanOrEqual(stampOf('s1', 'end')!.at)
      expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('c1')
    } finally {
      await client.close()
    }
  }, SLOW)
})
