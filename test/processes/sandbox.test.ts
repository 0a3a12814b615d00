// The bubblewrap sandbox for terminal commands (issue 12): the workspace root is the only writable
// place, no network by default, and sandboxed processes stay killable as a group and adoptable after
// a host crash. Skipped only where bwrap cannot run (not installed, or the kernel refuses user
// namespaces); .ci/run installs bubblewrap when it runs as root.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, test } from 'vitest'
import { createHost, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { groupMembers } from '../../src/processes/process-group.js'
import { bwrapProblem, decideSandbox } from '../../src/processes/sandbox.js'
import { eventually, isProcessAlive, ProcessTestKit } from './process-test-kit.js'

const problem = bwrapProblem()
if (problem) console.log(`sandbox tests skipped: ${problem}`)

const kit = new ProcessTestKit()
const hosts: Host[] = []
const servers: Server[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) {
    for (const p of host.services.processes.list()) kit.pids.add(p.pid)
    await host.close()
  }
  for (const server of servers.splice(0)) server.close()
  await kit.cleanup()
})

async function sandboxedHost(root: string, terminal: Record<string, unknown> = {}, env?: NodeJS.ProcessEnv): Promise<Host> {
  const host = await createHost({ root, ...(env ? { env } : {}), config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, processes: { kill_grace_ms: 400 }, terminal: { sandbox: 'bwrap', ...terminal } }, plugins: ['plugins'], log: silentLogger })
  hosts.push(host)
  host.services.processes.onEvent((event) => {
    if (event.type === 'spawned') kit.pids.add(event.process.pid)
  })
  return host
}

async function run(host: Host, command: string): Promise<string> {
  const result = await host.call({ id: 'c', name: 'terminal', arguments: { command } })
  return result.content
}

describe.skipIf(problem !== undefined)('terminal.sandbox: bwrap (reason: needs a bwrap that runs; sudo apt-get install -y bubblewrap enables it where the kernel allows user namespaces, see the line printed above)', () => {
  test('a write outside the root fails inside the sandbox; inside the root it succeeds; the host state folder is read-only', async () => {
    const root = kit.tempRoot()
    const outside = kit.tempRoot()
    const host = await sandboxedHost(root)
    expect(host.services.processes.sandboxStatus).toMatch(/^bwrap .*network off/)
    expect(await run(host, `echo in > inside.txt && echo wrote-inside`)).toContain('wrote-inside')
    expect(readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('in\n')
    expect(await run(host, `echo out > ${outside}/outside.txt; echo "status $?"`)).toMatch(/status [1-9]/)
    expect(existsSync(path.join(outside, 'outside.txt'))).toBe(false)
    expect(await run(host, `echo '{}' > ${root}/.toolhost/processes.json; echo "status $?"`)).toMatch(/status [1-9]/)
    expect(await run(host, `echo x > ${os.homedir()}/.toolhost-sandbox-probe; echo "status $?"`)).toMatch(/status [1-9]/)
    // /tmp is private: what a command leaves there is not the host's /tmp.
    expect(await run(host, 'echo t > /tmp/toolhost-sandbox-probe && cat /tmp/toolhost-sandbox-probe')).toContain('t')
    expect(existsSync('/tmp/toolhost-sandbox-probe')).toBe(false)
  })

  test('no network by default: a connection to a 127.0.0.1 server the test started fails; terminal.network: true allows it', async () => {
    const server = createServer((socket) => {
      socket.on('error', () => {})
      socket.end('hello\n')
    })
    servers.push(server)
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const port = (server.address() as { port: number }).port
    // bash's /dev/tcp, not this node: a node binary installed under /tmp (Node 22/24 in CI) is hidden by the sandbox's private /tmp.
    const connect = `bash -c '(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo "refused ECONNREFUSED"'`
    const offline = await sandboxedHost(kit.tempRoot())
    expect(await run(offline, connect)).toMatch(/refused E/)
    const online = await sandboxedHost(kit.tempRoot(), { network: true })
    expect(await run(online, connect)).toContain('connected')
  })

  test('a sandboxed background process is killed as a group, its children too', async () => {
    const host = await sandboxedHost(kit.tempRoot())
    const processes = host.services.processes
    const started = await processes.spawn('sleep 1000 & exec sleep 1001', { background: true })
    expect(started.sandboxed).toBe(true)
    await eventually(() => groupMembers(started.pid).length >= 4) // bwrap, its pid-1, sleep, sleep
    const members = groupMembers(started.pid)
    const killed = await processes.kill(started.id)
    expect(killed).toMatchObject({ status: 'exited', signalsSent: ['SIGTERM'] })
    for (const pid of members) expect(isProcessAlive(pid)).toBe(false)
  })

  test('a sandboxed background command gets the host\'s environment (createHost env), not the process\'s', async () => {
    const root = kit.tempRoot()
    process.env.TOOLHOST_SANDBOX_LEAK_PROBE = 'leaked'
    try {
      const host = await sandboxedHost(root, {}, { PATH: process.env.PATH, FROM_HOST: 'host-value' })
      const started = await host.call({ id: 'bg', name: 'terminal', arguments: { command: 'echo "${FROM_HOST}|${TOOLHOST_SANDBOX_LEAK_PROBE}" > env.txt', background: true } })
      expect(started.ok).toBe(true)
      const id = /proc_[A-Za-z0-9_]+/.exec(started.content)![0]
      const { outcome, process: ended } = await host.services.processes.wait(id, { timeoutMs: 20_000 })
      expect(outcome).toBe('exited')
      expect(ended).toMatchObject({ sandboxed: true, exitCode: 0 })
      expect(readFileSync(path.join(root, 'env.txt'), 'utf8')).toBe('host-value|\n')
    } finally {
      delete process.env.TOOLHOST_SANDBOX_LEAK_PROBE
    }
  })

  test('a sandboxed background process is adopted after the host crashes, then killed as a group', { timeout: 60_000 }, async () => {
    const root = kit.tempRoot()
    const crashed = spawn(process.execPath, ['bin/run-ts.mjs', 'test/fixtures/processes/sandbox-crash-host.ts', root], { stdio: ['ignore', 'pipe', 'inherit'] })
    kit.pids.add(crashed.pid!)
    const [line] = (await once(createInterface({ input: crashed.stdout! }), 'line')) as [string]
    const { id, pid } = JSON.parse(line) as { id: string; pid: number }
    kit.pids.add(pid)
    crashed.kill('SIGKILL')
    await once(crashed, 'exit')
    await eventually(() => groupMembers(pid).length >= 4)
    const members = groupMembers(pid)

    const host = await sandboxedHost(root)
    expect(await host.services.processes.poll(id)).toMatchObject({ id, pid, status: 'running', adopted: true })
    const killed = await host.services.processes.kill(id)
    expect(killed).toMatchObject({ status: 'exited', signalsSent: ['SIGTERM'] })
    for (const member of members) expect(isProcessAlive(member)).toBe(false)
  })
})

describe('deciding the sandbox', () => {
  test('off needs nothing; bwrap where it cannot run fails start-up naming the key; auto falls back and says why', () => {
    expect(decideSandbox({ sandbox: 'off', network: false }, { root: '/ws', readOnly: [], where: 'config.yaml' })).toMatchObject({ plan: undefined, status: expect.stringMatching(/^off \(terminal\.sandbox: off\)/) })
    const saved = process.env.PATH
    process.env.PATH = '/nonexistent'
    try {
      expect(() => decideSandbox({ sandbox: 'bwrap', network: false }, { root: '/ws', readOnly: [], where: 'config.yaml' })).toThrow(/config\.yaml: key `terminal\.sandbox` is bwrap, but bwrap is not installed/)
      expect(decideSandbox({ sandbox: 'auto', network: false }, { root: '/ws', readOnly: [], where: 'config.yaml' }).status).toMatch(/^off: terminal\.sandbox is auto and bwrap is not installed/)
    } finally {
      process.env.PATH = saved
    }
  })
})

describe.skipIf(problem !== undefined)('the read-only mounts (reason: needs a bwrap that runs; sudo apt-get install -y bubblewrap enables it)', () => {
  test('a path inside another read-only folder is not mounted again (a file the host replaces by rename made bwrap fail with EINVAL as a command started)', () => {
    const decision = decideSandbox({ sandbox: 'auto', network: false }, { root: '/ws', readOnly: ['/ws/config.yaml', '/ws/.toolhost/processes.json', '/ws/.toolhost', '/ws/.toolhost-x', '/ws/.toolhost/store', '/elsewhere/x'], where: 'config.yaml' })
    expect(decision.plan?.readOnly).toEqual(['/ws/.toolhost', '/ws/.toolhost-x', '/ws/config.yaml'])
  })
})
