import { existsSync, mkdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { ProcessEvent } from '../../src/processes/process-registry.js'
import { eventually, isProcessAlive, outputContains, ProcessTestKit } from './process-test-kit.js'

const kit = new ProcessTestKit()
afterEach(() => kit.cleanup())

describe('ProcessRegistry: running and observing', () => {
  test('runs a command through the shell and reports its exit code and interleaved output', async () => {
    const registry = await kit.open(kit.tempRoot())
    const started = await registry.spawn('echo out; echo err >&2; echo out2; exit 3')
    expect(started).toMatchObject({ status: 'running', background: false, adopted: false })
    const { outcome, process: done } = await registry.wait(started.id)
    expect(outcome).toBe('exited')
    expect(done).toMatchObject({ status: 'exited', exitCode: 3, signal: null, tail: 'out\nerr\nout2\n', lines: 3 })
  })

  test('poll reports status, pid, uptime and the last 1000 characters', async () => {
    const registry = await kit.open(kit.tempRoot())
    const { id, pid } = await registry.spawn('for i in $(seq 1 300); do echo "line $i"; done; exec sleep 30', { background: true })
    await outputContains(registry, id, 'line 300\n')
    const info = await registry.poll(id)
    expect(info).toMatchObject({ id, pid, status: 'running', exitCode: null, signal: null, lines: 300 })
    expect(info.tail.length).toBe(1000)
    expect(info.tail.endsWith('line 299\nline 300\n')).toBe(true)
    expect(info.uptimeMs).toBeGreaterThanOrEqual(0)
    expect(isProcessAlive(pid)).toBe(true)
  })

  test('startedAt and uptimeMs of a spawned command lie within the spawn-to-end interval (the OS start time is a second coarse)', async () => {
    const registry = await kit.open(kit.tempRoot())
    const before = Date.now()
    const started = await registry.spawn('true')
    const { process: done } = await registry.wait(started.id)
    const after = Date.now()
    expect(Date.parse(done.startedAt)).toBeGreaterThanOrEqual(before)
    expect(done.uptimeMs).toBeLessThanOrEqual(after - before)
  })

  test('log pages by stable line numbers, reading lines gone from memory from the log file', async () => {
    const registry = await kit.open(kit.tempRoot(), { bufferChars: 1000 })
    const { id } = await registry.spawn('seq 1 5000')
    await registry.wait(id)
    const head = await registry.log(id, { offset: 1, limit: 3 })
    expect(head.lines).toEqual([{ n: 1, text: '1' }, { n: 2, text: '2' }, { n: 3, text: '3' }])
    expect(head).toMatchObject({ totalLines: 5000, fromFile: { from: 1, to: 3 }, fromMemory: null, missing: null })
    expect(head.firstLineInMemory).toBeGreaterThan(4000)

    const last = await registry.log(id, { limit: 2 })
    expect(last.lines).toEqual([{ n: 4999, text: '4999' }, { n: 5000, text: '5000' }])
    expect(last).toMatchObject({ fromMemory: { from: 4999, to: 5000 }, fromFile: null })

    const first = head.firstLineInMemory
    const across = await registry.log(id, { offset: first - 2, limit: 4 })
    expect(across.lines.map((l) => l.text)).toEqual([first - 2, first - 1, first, first + 1].map(String))
    expect(across).toMatchObject({ fromFile: { from: first - 2, to: first - 1 }, fromMemory: { from: first, to: first + 1 } })

    const middle = await registry.log(id, { offset: 2500, limit: 2 })
    expect(middle.lines).toEqual([{ n: 2500, text: '2500' }, { n: 2501, text: '2501' }])
  })

  test('a process that ignores SIGTERM is killed by the escalation and reported as SIGKILL', async () => {
    const registry = await kit.open(kit.tempRoot(), { killGraceMs: 300 })
    const { id, pid } = await registry.spawn(`trap '' TERM; echo ready; while :; do sleep 1; done`, { background: true })
    await outputContains(registry, id, 'ready')
    const ended = await registry.kill(id)
    expect(ended).toMatchObject({ status: 'exited', exitCode: null, signal: 'SIGKILL', signalsSent: ['SIGTERM', 'SIGKILL'] })
    expect(isProcessAlive(pid)).toBe(false)
  })

  test('a process that honours SIGTERM ends by it, without SIGKILL', async () => {
    const registry = await kit.open(kit.tempRoot(), { killGraceMs: 5000 })
    const { id } = await registry.spawn('exec sleep 30', { background: true })
    const ended = await registry.kill(id)
    expect(ended).toMatchObject({ status: 'exited', signal: 'SIGTERM', signalsSent: ['SIGTERM'] })
  })

  test('orphans: a command whose shell exited is running until the last process of its group ends, and kill reaches them', async () => {
    const registry = await kit.open(kit.tempRoot())
    const { id } = await registry.spawn('sleep 30 & echo "grandchild $!"', { background: true })
    // The shell exits at once; its grandchild holds the output and stdin, and poll and wait do not hang on it.
    const { outcome, process: shellDone } = await registry.wait(id, { until: 'leader' })
    expect(outcome).toBe('exited')
    const grandchild = Number(/grandchild (\d+)/.exec(shellDone.tail)?.[1])
    kit.pids.add(grandchild)
    await eventually(async () => (await registry.poll(id)).stillRunning === 1)
    const running = await registry.poll(id)
    expect(running).toMatchObject({ status: 'running', exitCode: 0, stillRunning: 1 })
    expect(running.note).toMatch(/its shell exited with code 0, but 1 process it started is still running in its group/)
    expect((await registry.wait(id, { timeoutMs: 100 })).outcome).toBe('timeout')
    const killed = await registry.kill(id)
    expect(killed).toMatchObject({ status: 'exited', exitCode: 0, signalsSent: ['SIGTERM'] })
    expect(isProcessAlive(grandchild)).toBe(false)
  })

  test('wait returns timeout, then interrupted, then wakes when the process exits', async () => {
    const registry = await kit.open(kit.tempRoot())
    const { id } = await registry.spawn('read line; echo "got $line"', { background: true })
    // Timing-based: the process waits for stdin, so it cannot end within these 50 ms.
    expect((await registry.wait(id, { timeoutMs: 50 })).outcome).toBe('timeout')
    const controller = new AbortController()
    const interrupted = registry.wait(id, { signal: controller.signal })
    controller.abort()
    expect((await interrupted).outcome).toBe('interrupted')
    const waiting = registry.wait(id)
    await registry.write(id, 'hello\n')
    const { outcome, process: done } = await waiting
    expect(outcome).toBe('exited')
    expect(done).toMatchObject({ exitCode: 0, tail: 'got hello\n' })
  })

  test('kill of an already ended process reports how it ended', async () => {
    const registry = await kit.open(kit.tempRoot())
    const { id } = await registry.spawn('exit 7')
    await registry.wait(id)
    expect(await registry.kill(id)).toMatchObject({ status: 'exited', exitCode: 7, signalsSent: [] })
  })

  test('list shows this host\'s processes; events report spawn, exit and completion', async () => {
    const registry = await kit.open(kit.tempRoot())
    const events: ProcessEvent['type'][] = []
    registry.onEvent((event) => events.push(event.type))
    const a = await registry.spawn('exit 0', { notifyOnComplete: true })
    await registry.wait(a.id)
    const b = await registry.spawn('exec sleep 30', { background: true })
    expect(registry.list().map((p) => [p.id, p.status])).toEqual([[a.id, 'exited'], [b.id, 'running']])
    await eventually(() => events.length >= 4)
    expect(events).toEqual(['spawned', 'completion', 'exited', 'spawned'])
  })
})

describe('ProcessRegistry: limits and refusals', () => {
  test('E_LIMIT at processes.max_running, with a message that says what to do', async () => {
    const registry = await kit.open(kit.tempRoot(), { maxRunning: 2 })
    const first = await registry.spawn('exec sleep 30', { background: true })
    await registry.spawn('exec sleep 30', { background: true })
    await expect(registry.spawn('echo third')).rejects.toMatchObject({
      code: 'E_LIMIT',
      message: expect.stringMatching(/2 are running and processes\.max_running is 2.*kill/),
    })
    await registry.kill(first.id)
    const third = await registry.spawn('echo third')
    expect((await registry.wait(third.id)).process.tail).toBe('third\n')
  })

  test.each([
    { name: 'a parent folder', cwd: '..', code: 'E_PATH_OUTSIDE_ROOT' },
    { name: 'an absolute path elsewhere', cwd: '/', code: 'E_PATH_OUTSIDE_ROOT' },
    { name: 'a symlink leading out', cwd: 'out-link', code: 'E_PATH_OUTSIDE_ROOT' },
    { name: 'a missing folder', cwd: 'missing', code: 'E_NOT_FOUND' },
  ])('refuses a working folder that is $name', async ({ cwd, code }) => {
    const root = kit.tempRoot()
    symlinkSync(path.dirname(root), path.join(root, 'out-link'))
    const registry = await kit.open(root)
    await expect(registry.spawn('pwd', { cwd })).rejects.toMatchObject({ code })
    expect(registry.list()).toEqual([])
  })

  test('runs in a folder inside the root', async () => {
    const root = kit.tempRoot()
    mkdirSync(path.join(root, 'sub/dir'), { recursive: true })
    const registry = await kit.open(root)
    const { id } = await registry.spawn('pwd', { cwd: 'sub/dir' })
    expect((await registry.wait(id)).process.tail).toBe(path.join(root, 'sub/dir') + '\n')
  })

  test.each(['poll', 'log', 'wait', 'kill', 'write'] as const)('%s of an unknown id is E_NOT_FOUND', async (action) => {
    const registry = await kit.open(kit.tempRoot())
    const call = action === 'write' ? registry.write('proc_nope', 'x') : registry[action]('proc_nope')
    await expect(call).rejects.toMatchObject({ code: 'E_NOT_FOUND', message: expect.stringContaining('"proc_nope"') })
  })

  test('writing to a foreground process or an ended one fails with the reason', async () => {
    const registry = await kit.open(kit.tempRoot())
    const { id } = await registry.spawn('exec sleep 30')
    await expect(registry.write(id, 'x')).rejects.toThrow(/foreground command gets no stdin/)
    await registry.kill(id)
    await expect(registry.write(id, 'x')).rejects.toThrow(/has ended/)
  })

  test('an ended process is forgotten after retention_ms, and its log file removed', async () => {
    const registry = await kit.open(kit.tempRoot(), { retentionMs: 0 })
    const { id, log } = await registry.spawn('echo bye')
    const { process: done } = await registry.wait(id)
    expect(done.tail).toBe('bye\n')
    expect(registry.list()).toEqual([])
    await eventually(() => !existsSync(log))
    await expect(registry.poll(id)).rejects.toMatchObject({ code: 'E_NOT_FOUND' })
  })
})
