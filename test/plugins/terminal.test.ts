import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { createHost, type Host } from '../../src/index.js'
import { isProcessAlive } from '../../src/processes/start-time.js'
import { eventually } from '../processes/process-test-kit.js'

const hosts: Host[] = []
const roots: string[] = []
const pids = new Set<number>()

afterEach(async () => {
  for (const host of hosts.splice(0)) {
    for (const p of host.services.processes.list()) pids.add(p.pid)
    await host.close()
  }
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  pids.clear()
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

async function open(config: Record<string, unknown> = {}, extra: { env?: NodeJS.ProcessEnv; root?: string } = {}): Promise<Host> {
  const root = extra.root ?? realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-term-')))
  if (!extra.root) roots.push(root)
  const host = await createHost({
    ...(extra.env ? { env: extra.env } : {}),
    root,
    config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, processes: { kill_grace_ms: 300 }, ...config },
    plugins: ['plugins'],
    log: { debug() {}, info() {}, warn() {}, error() {} },
  })
  hosts.push(host)
  host.services.processes.onEvent((event) => {
    if (event.type === 'spawned') pids.add(event.process.pid)
  })
  return host
}

const call = (host: Host, name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
  host.call({ id: 'c1', name, arguments: JSON.stringify(args) }, signal ? { signal } : {})

describe('terminal', () => {
  test('foreground: returns the exit code and the interleaved output', async () => {
    const host = await open()
    const result = await call(host, 'terminal', { command: 'echo out; echo err >&2; exit 2' })
    expect(result.ok).toBe(true)
    expect(result.content).toMatch(/^\[proc_[0-9a-f]+: exited with code 2 after \d+ ms\]\nout\nerr\n$/)
  })

  // The tests that read `$!` run uncontained: inside a PID namespace (processes.containment, the
  // sandbox) `$!` is the namespace's pid, not the host's. Containment: test/processes/containment.test.ts.
  test('foreground timeout kills the whole process group: no orphan is left', async () => {
    const host = await open({ processes: { kill_grace_ms: 300, containment: 'off' } })
    const result = await call(host, 'terminal', { command: 'sleep 1000 & echo "child $!"; wait', timeout_ms: 300 })
    expect(result).toMatchObject({ ok: false, error: { code: 'E_TIMEOUT' } })
    expect(result.content).toMatch(/timed out after 300 ms: the command's process group was killed \(ended by SIGTERM/)
    const grandchild = Number(/child (\d+)/.exec(result.content)?.[1])
    expect(grandchild).toBeGreaterThan(0)
    pids.add(grandchild)
    await eventually(() => !isProcessAlive(grandchild), 2000)
  })

  test('an interrupt kills the command\'s group and answers E_INTERRUPTED', async () => {
    const host = await open({ dispatch: { interrupt_grace_ms: 2000 } })
    const controller = new AbortController()
    let pid = 0
    host.services.processes.onEvent((event) => {
      if (event.type === 'spawned') {
        pid = event.process.pid
        controller.abort()
      }
    })
    const result = await call(host, 'terminal', { command: 'exec sleep 1000' }, controller.signal)
    expect(result).toMatchObject({ ok: false, error: { code: 'E_INTERRUPTED' } })
    expect(pid).toBeGreaterThan(0)
    await eventually(() => !isProcessAlive(pid), 2000)
  })

  test('background returns the id at once; process polls, pages, waits for and kills it', async () => {
    const host = await open()
    const started = await call(host, 'terminal', { command: 'echo hello; exec sleep 1000', background: true })
    const id = /started (proc_[0-9a-f]+) \(pid (\d+)\)/.exec(started.content)?.[1]
    expect(id).toBeDefined()
    await eventually(async () => (await host.services.processes.poll(id!)).tail === 'hello\n')
    const poll = JSON.parse((await call(host, 'process', { action: 'poll', id })).content)
    expect(poll).toMatchObject({ id, status: 'running', background: true, tail: 'hello\n' })
    const log = await call(host, 'process', { action: 'log', id, offset: 1 })
    expect(log.content).toBe(`[${id}: lines 1-1 of 1]\n1\thello`)
    const waited = JSON.parse((await call(host, 'process', { action: 'wait', id, timeout_ms: 20 })).content)
    expect(waited.outcome).toBe('timeout')
    const list = JSON.parse((await call(host, 'process', { action: 'list' })).content)
    expect(list.processes.map((p: { id: string }) => p.id)).toEqual([id])
    const killed = JSON.parse((await call(host, 'process', { action: 'kill', id })).content)
    expect(killed).toMatchObject({ id, status: 'exited', signal: 'SIGTERM', summary: 'ended by SIGTERM after SIGTERM was sent to its group' })
  })

  test('write sends data to a background process\'s stdin', async () => {
    const host = await open()
    const started = await call(host, 'terminal', { command: 'read name; echo "hi $name"', background: true })
    const id = /started (proc_[0-9a-f]+)/.exec(started.content)?.[1]
    expect((await call(host, 'process', { action: 'write', id, data: 'Ada\n' })).content).toBe(`wrote 4 characters to the stdin of ${id}`)
    const waited = JSON.parse((await call(host, 'process', { action: 'wait', id })).content)
    expect(waited).toMatchObject({ outcome: 'exited', process: { exitCode: 0, tail: 'hi Ada\n' } })
  })

  test.each([
    { args: { action: 'poll', id: 'proc_missing' }, code: 'E_NOT_FOUND' },
    { args: { action: 'kill', id: 'proc_missing' }, code: 'E_NOT_FOUND' },
    { args: { action: 'poll' }, code: 'E_ARGS_INVALID' },
    { args: { action: 'write', id: 'proc_missing' }, code: 'E_ARGS_INVALID' },
    { args: { action: 'explode', id: 'x' }, code: 'E_ARGS_INVALID' },
  ])('process $args.action refuses: $code', async ({ args, code }) => {
    const host = await open()
    expect(await call(host, 'process', args)).toMatchObject({ ok: false, error: { code } })
  })

  test('a working folder outside the root is refused', async () => {
    const host = await open()
    const result = await call(host, 'terminal', { command: 'pwd', workdir: '..' })
    expect(result).toMatchObject({ ok: false, error: { code: 'E_PATH_OUTSIDE_ROOT' } })
  })

  test('E_LIMIT at processes.max_running', async () => {
    const host = await open({ processes: { kill_grace_ms: 300, max_running: 1 } })
    expect((await call(host, 'terminal', { command: 'exec sleep 1000', background: true })).ok).toBe(true)
    const second = await call(host, 'terminal', { command: 'echo no' })
    expect(second).toMatchObject({ ok: false, error: { code: 'E_LIMIT' } })
    expect(second.content).toMatch(/processes\.max_running is 1/)
  })

  test('long output keeps its end within the result limit and says how to page the rest', async () => {
    const host = await open({ limits: { max_result_chars: 2000 } })
    const result = await call(host, 'terminal', { command: 'seq 1 10000' })
    expect(result.ok).toBe(true)
    expect(result.truncated).toBeUndefined()
    expect(result.content.length).toBeLessThanOrEqual(2000)
    expect(result.content.endsWith('9999\n10000\n')).toBe(true)
    expect(result.content).toMatch(/the first \d+ characters of output are not shown; page them with process \{"action":"log","id":"proc_[0-9a-f]+","offset":1\}/)
  })

  test('terminal is a barrier in the scheduler; process calls on one id are ordered by a resource key', async () => {
    const host = await open()
    const plan = await host.explain([
      { id: 'a', name: 'terminal', arguments: '{"command":"ls"}' },
      { id: 'b', name: 'process', arguments: '{"action":"poll","id":"p1"}' },
      { id: 'c', name: 'process', arguments: '{"action":"kill","id":"p1"}' },
    ])
    expect(plan.calls[0]?.footprint).toMatchObject({ kind: 'barrier' })
    expect(plan.calls[2]?.footprint).toEqual({ kind: 'scoped', touches: [expect.objectContaining({ target: 'key:process:p1', access: 'write' })] })
    expect(plan.calls[2]?.waitsFor.map((w) => w.id)).toEqual(['a', 'b'])
  })

  test.each([
    { command: 'rm -rf build', dangerous: true },
    { command: 'git push --force origin main', dangerous: true },
    { command: 'dd if=/dev/zero of=/dev/sda', dangerous: true },
    { command: 'mkfs.ext4 /dev/sdb1', dangerous: true },
    { command: 'ls -la', dangerous: false },
    { command: 'git push origin main', dangerous: false },
  ])('destructive($command) is $dangerous with the default patterns', async ({ command, dangerous }) => {
    const host = await open()
    const tool = host.registry.get('terminal')!
    expect(tool.destructive({ command }, { root: host.root })).toBe(dangerous)
  })

  test('terminal.dangerous_patterns replaces the defaults for this host; a bad pattern stops start-up', async () => {
    const host = await open({ terminal: { dangerous_patterns: ['\\bdeploy\\b'] } })
    const tool = host.registry.get('terminal')!
    expect(tool.destructive({ command: 'deploy prod' }, { root: host.root })).toBe(true)
    expect(tool.destructive({ command: 'rm -rf build' }, { root: host.root })).toBe(false)
    // Closing the host withdraws its list: back to the built-in defaults.
    hosts.splice(hosts.indexOf(host), 1)
    await host.close()
    expect(tool.destructive({ command: 'deploy prod' }, { root: host.root })).toBe(false)
    expect(tool.destructive({ command: 'rm -rf build' }, { root: host.root })).toBe(true)
    await expect(open({ terminal: { dangerous_patterns: ['(unclosed'] } })).rejects.toMatchObject({
      code: 'E_CONFIG_INVALID',
      message: expect.stringContaining('terminal.dangerous_patterns[0]'),
    })
  })

  test('createHost({ env }) is the environment of commands, not process.env', async () => {
    process.env.TOOLHOST_TEST_LEAK = 'leaked'
    try {
      const host = await open({}, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FROM_HOST: 'from-host' } })
      const result = await call(host, 'terminal', { command: 'echo "[$FROM_HOST][$TOOLHOST_TEST_LEAK]"' })
      expect(result.content).toContain('[from-host][]')
    } finally {
      delete process.env.TOOLHOST_TEST_LEAK
    }
  })

  test('orphans: what a foreground command leaves running in its group is stopped when its shell exits, and said so', async () => {
    const host = await open({ processes: { kill_grace_ms: 300, containment: 'off' } })
    const result = await call(host, 'terminal', { command: 'sleep 1000 & echo "child $!"' })
    expect(result.ok).toBe(true)
    expect(result.content).toMatch(/exited with code 0 after SIGTERM was sent to its group/)
    expect(result.content).toMatch(/its shell exited, but 1 process it started was still running in its group and was stopped \(SIGTERM\)/)
    const child = Number(/child (\d+)/.exec(result.content)?.[1])
    pids.add(child)
    expect(isProcessAlive(child)).toBe(false)
  })

  // With bwrap's PID namespace, bwrap reports the command's exit before its own init process in the
  // namespace has ended: for a moment the group still has a member. A process named bwrap (a copy of
  // sleep) plays that part here; the command is over, so nothing may be said to be left or stopped.
  test('a command whose group holds only the sandbox\'s own process when its shell exits has ended: no process is said left running, none is stopped', async () => {
    const host = await open({ processes: { kill_grace_ms: 300, containment: 'off' } })
    const bin = mkdtempSync(path.join(os.tmpdir(), 'toolhost-fake-bwrap-'))
    roots.push(bin)
    const fake = path.join(bin, 'bwrap')
    writeFileSync(fake, readFileSync(execFileSync('sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim()), { mode: 0o755 })
    const result = await call(host, 'terminal', { command: `"${fake}" 0.4 >/dev/null 2>&1 & echo done` })
    expect(result.ok).toBe(true)
    expect(result.content).toMatch(/^\[proc_[0-9a-f]+: exited with code 0 after \d+ ms\]\ndone\n$/)
  })

  test('orphans: a background command whose shell forked and exited is running until its group ends; kill stops the group', async () => {
    const host = await open({ processes: { kill_grace_ms: 300, containment: 'off' } })
    const started = await call(host, 'terminal', { command: 'sleep 1000 & echo "child $!"', background: true })
    const id = /started (proc_[0-9a-f]+)/.exec(started.content)![1]!
    await eventually(async () => JSON.parse((await call(host, 'process', { action: 'poll', id })).content).stillRunning === 1)
    const killed = JSON.parse((await call(host, 'process', { action: 'kill', id })).content)
    expect(killed).toMatchObject({ status: 'exited', signalsSent: ['SIGTERM'] })
    const child = Number(/child (\d+)/.exec(killed.tail)?.[1])
    pids.add(child)
    expect(isProcessAlive(child)).toBe(false)
  })

  const isRoot = process.getuid?.() === 0
  test.skipIf(!isRoot)('a command whose log cannot grow (disk full) still returns its output, and says the log stopped short (reason: mounting a tiny tmpfs needs root; run npm test as root to enable it)', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-term-')))
    roots.push(root)
    const logs = path.join(root, '.toolhost/processes')
    mkdirSync(logs, { recursive: true })
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', logs])
    try {
      // Fill the log folder's file system to the last byte.
      try {
        writeFileSync(path.join(logs, 'filler'), Buffer.alloc(1024 * 1024))
      } catch {
        // ENOSPC: full, as intended
      }
      const host = await open({}, { root })
      const result = await call(host, 'terminal', { command: 'echo hello' })
      // Issue 24 #15: the output goes to the host as it is written (the tee relay), so a full disk costs the log, not the result.
      expect(result.content).toMatch(/^\[proc_[0-9a-f]+: exited with code 0 after \d+ ms\]\n\[the log file stopped growing at 0 bytes \(No space left on device\): the output is kept in memory only, its latest 200000 characters \(processes\.buffer_chars\); lines that leave memory are lost\]\nhello\n$/)
      await host.close()
      hosts.splice(hosts.indexOf(host), 1)
    } finally {
      execFileSync('umount', [logs])
    }
  })
})
