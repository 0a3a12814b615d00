import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { readCheckpoint, writeCheckpoint } from '../../src/processes/checkpoint.js'
import type { ProcessCompletion } from '../../src/processes/completions.js'
import { processStartTime } from '../../src/processes/start-time.js'
import { eventually, isProcessAlive, outputContains, ProcessTestKit } from './process-test-kit.js'

const kit = new ProcessTestKit()
afterEach(() => kit.cleanup())

async function takeAll(iterator: AsyncGenerator<ProcessCompletion>, count: number): Promise<ProcessCompletion[]> {
  const out: ProcessCompletion[] = []
  while (out.length < count) {
    const next = await iterator.next()
    if (next.done) break
    out.push(next.value)
  }
  return out
}

describe('checkpoint and adoption', () => {
  test('close kills foreground processes, keeps background ones running and released in the checkpoint', async () => {
    const root = kit.tempRoot()
    const first = await kit.open(root)
    const fg = await first.spawn('exec sleep 30')
    const bg = await first.spawn('exec sleep 30', { background: true, notifyOnComplete: true })
    const options = kit.options(root)
    expect(readCheckpoint(options.checkpoint).processes.map((p) => [p.id, p.owner?.pid])).toEqual([[fg.id, process.pid], [bg.id, process.pid]])
    await first.close()
    expect(isProcessAlive(fg.pid)).toBe(false)
    expect(isProcessAlive(bg.pid)).toBe(true)
    const saved = readCheckpoint(options.checkpoint)
    expect(saved.processes).toEqual([
      { id: bg.id, pid: bg.pid, startTime: processStartTime(bg.pid), command: 'exec sleep 30', cwd: root, log: bg.log, background: true, notify: true, owner: null },
    ])
  })

  test('a new registry adopts a released background process, pages its log, and kills it', async () => {
    const root = kit.tempRoot()
    const first = await kit.open(root)
    const bg = await first.spawn('echo one; echo two; exec sleep 30', { background: true })
    await outputContains(first, bg.id, 'two')
    await first.close()

    const second = await kit.open(root)
    expect(await second.poll(bg.id)).toMatchObject({ pid: bg.pid, status: 'running', adopted: true })
    expect((await second.log(bg.id, { offset: 1 })).lines).toEqual([{ n: 1, text: 'one' }, { n: 2, text: 'two' }])
    await expect(second.write(bg.id, 'x')).rejects.toThrow(/earlier host/)
    const ended = await second.kill(bg.id)
    expect(ended).toMatchObject({ status: 'exited', exitCode: null, signalsSent: ['SIGTERM'] })
    expect(ended.note).toMatch(/ended after SIGTERM was sent; exit code unknown/)
    expect(isProcessAlive(bg.pid)).toBe(false)
    expect(readCheckpoint(kit.options(root).checkpoint).processes).toEqual([])
  })

  test('a live pid whose start time does not match is neither adopted nor signalled', async () => {
    const root = kit.tempRoot()
    const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
    const pid = stranger.pid!
    kit.pids.add(pid)
    const options = kit.options(root)
    writeCheckpoint(options.checkpoint, {
      version: 1,
      processes: [{ id: 'proc_00000000ee01', pid, startTime: processStartTime(pid)! - 60_000, command: 'sleep 30', cwd: root, log: path.join(options.dir, 'proc_00000000ee01.log'), background: false, notify: true, owner: null }],
      completions: [],
    })
    const registry = await kit.open(root)
    const info = await registry.poll('proc_00000000ee01')
    expect(info).toMatchObject({ status: 'exited', adopted: true, exitCode: null, signalsSent: [] })
    expect(info.note).toMatch(/not adopted: pid \d+ could not be proven a process this workspace started; it is never signalled/)
    expect((await registry.kill('proc_00000000ee01')).signalsSent).toEqual([])
    // Even a foreground entry (which adoption would kill) is left alone: it is not the same process.
    expect(isProcessAlive(pid)).toBe(true)
    expect(registry.pendingCompletions.map((c) => c.id)).toEqual(['proc_00000000ee01'])
    expect(readCheckpoint(options.checkpoint).processes).toEqual([])
  })

  test('entries of another host that is still open are left alone and kept in the checkpoint', async () => {
    const root = kit.tempRoot()
    const options = kit.options(root)
    const owner = { pid: process.pid, startTime: processStartTime(process.pid)! }
    const entry = { id: 'proc_00000000ee02', pid: process.pid, startTime: owner.startTime, command: 'x', cwd: root, log: path.join(options.dir, 'proc_00000000ee02.log'), background: true, notify: false, owner }
    writeCheckpoint(options.checkpoint, { version: 1, processes: [entry], completions: [] })
    const registry = await kit.open(root)
    expect(registry.list()).toEqual([])
    const { id } = await registry.spawn('exec sleep 30', { background: true })
    expect(readCheckpoint(options.checkpoint).processes.map((p) => p.id)).toEqual(['proc_00000000ee02', id])
  })

  test('completions are delivered exactly once, across a restart; poll never consumes one', async () => {
    const root = kit.tempRoot()
    const first = await kit.open(root)
    const { id } = await first.spawn('echo done; exit 4', { notifyOnComplete: true })
    await first.wait(id)
    await eventually(() => first.pendingCompletions.length === 1)
    await first.poll(id)
    expect(first.pendingCompletions).toHaveLength(1)
    await first.close()
    expect(readCheckpoint(kit.options(root).checkpoint).completions.map((c) => c.id)).toEqual([id])

    const second = await kit.open(root)
    const controller = new AbortController()
    const [a, b] = [second.completions(controller.signal), second.completions(controller.signal)]
    const [got] = await Promise.race([takeAll(a, 1), takeAll(b, 1)])
    expect(got).toMatchObject({ id, command: 'echo done; exit 4', exitCode: 4, signal: null, tail: 'done\n' })
    expect(second.pendingCompletions).toEqual([])
    controller.abort()
    expect(await takeAll(a, 1)).toEqual([])
    expect(await takeAll(b, 1)).toEqual([])
    await second.close()

    const third = await kit.open(root)
    expect(third.pendingCompletions).toEqual([])
    expect(readCheckpoint(kit.options(root).checkpoint).completions).toEqual([])
  })

  test('a background process that ends while no host runs still yields its completion', async () => {
    const root = kit.tempRoot()
    const first = await kit.open(root)
    const { id, pid } = await first.spawn('echo working; exec sleep 30', { background: true, notifyOnComplete: true })
    await outputContains(first, id, 'working')
    await first.close()
    process.kill(-pid, 'SIGKILL')
    await eventually(() => !isProcessAlive(pid))

    const second = await kit.open(root)
    const [completion] = await takeAll(second.completions(), 1)
    expect(completion).toMatchObject({ id, exitCode: null, signal: null, tail: 'working\n' })
    expect(completion?.note).toMatch(/exit code unknown/)
  })

  test('an adopted notify process that ends is reported once, with its code unknown', async () => {
    const root = kit.tempRoot()
    const first = await kit.open(root)
    const { id, pid } = await first.spawn('echo hi; exec sleep 30', { background: true, notifyOnComplete: true })
    await first.close()
    const second = await kit.open(root)
    const drained = takeAll(second.completions(), 1)
    process.kill(-pid, 'SIGTERM')
    const [completion] = await drained
    expect(completion).toMatchObject({ id, exitCode: null, tail: 'hi\n' })
    expect(second.pendingCompletions).toEqual([])
  })

  test('an entry whose log lies outside processes.dir is dropped: never read, never deleted', async () => {
    const root = kit.tempRoot()
    const options = kit.options(root)
    const secret = path.join(root, 'secret.txt')
    writeFileSync(secret, 'do not page me\n')
    const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
    kit.pids.add(stranger.pid!)
    const entry = { id: 'proc_00000000ee03', pid: stranger.pid!, startTime: processStartTime(stranger.pid!)!, command: 'x', cwd: root, log: secret, background: true, notify: true, owner: null }
    writeCheckpoint(options.checkpoint, { version: 1, processes: [entry], completions: [] })
    const warnings: string[] = []
    const registry = await kit.open(root, { retentionMs: 0, log: { debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) } })
    expect(registry.list()).toEqual([])
    expect(warnings.join('\n')).toMatch(/names a log outside/)
    expect(readFileSync(secret, 'utf8')).toBe('do not page me\n')
    expect(isProcessAlive(stranger.pid!)).toBe(true)
    expect(readCheckpoint(options.checkpoint).processes).toEqual([])
  })

  test('a malformed checkpoint is reported and ignored', async () => {
    const root = kit.tempRoot()
    const warnings: string[] = []
    const options = kit.options(root)
    writeCheckpoint(options.checkpoint, { version: 1, processes: [], completions: [] })
    writeFileSync(options.checkpoint, '{ not json')
    const registry = await kit.open(root, { log: { debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) } })
    expect(registry.list()).toEqual([])
    expect(warnings.join('\n')).toMatch(/not valid JSON/)
    expect(readFileSync(options.checkpoint, 'utf8')).toBe('{ not json')
  })
})

// Issue 24 #16 (b): two hosts starting together on one root delivered one completion twice. Which
// host queues a completion is decided from the checkpoint (under its lock; a lock held past its
// stale limit on a loaded machine is broken), so both can queue it; delivery claims it first, one
// O_EXCL step only one host wins. The window is widened here: the second registry reads the
// checkpoint as it was before the first wrote its claim of ownership (a pause between reading and
// claiming), so both hold the completion.
describe('a completion two hosts both hold is delivered once', () => {
  test('both registries queued it; one delivers it, the other drops it, and no one holds it after', async () => {
    const root = kit.tempRoot()
    const options = kit.options(root)
    const first = await kit.open(root)
    const { id } = await first.spawn('echo done', { notifyOnComplete: true })
    await first.wait(id)
    await eventually(() => first.pendingCompletions.length === 1)
    await first.close()
    const unclaimed = readFileSync(options.checkpoint, 'utf8')

    const a = await kit.open(root)
    writeFileSync(options.checkpoint, unclaimed) // what b reads: a has read it, and not yet written its claim
    const b = await kit.open(root)
    expect([a.pendingCompletions.map((c) => c.id), b.pendingCompletions.map((c) => c.id)]).toEqual([[id], [id]])

    const controller = new AbortController()
    const fromA = a.completions(controller.signal).next()
    const fromB = b.completions(controller.signal).next()
    const delivered = await Promise.race([fromA, fromB])
    expect(delivered).toEqual({ done: false, value: expect.objectContaining({ id, tail: 'done\n' }) })
    // The other dropped it on the way and waits for more; nothing is left to deliver anywhere.
    expect([...a.pendingCompletions, ...b.pendingCompletions]).toEqual([])
    controller.abort()
    const results = await Promise.all([fromA, fromB])
    expect(results.filter((r) => !r.done)).toHaveLength(1)
    expect(readCheckpoint(options.checkpoint).completions).toEqual([])
  })

  test('claims older than processes.retention_ms are swept when a registry opens', async () => {
    const root = kit.tempRoot()
    const options = kit.options(root)
    const old = path.join(options.dir, 'proc_0a1b.delivered')
    const recent = path.join(options.dir, 'proc_2c3d.delivered')
    const mine = path.join(options.dir, 'notes.delivered')
    mkdirSync(options.dir, { recursive: true })
    for (const file of [old, recent, mine]) writeFileSync(file, '')
    const longAgo = new Date(Date.now() - options.retentionMs - 60_000)
    utimesSync(old, longAgo, longAgo)
    utimesSync(mine, longAgo, longAgo)
    await kit.open(root)
    expect([existsSync(old), existsSync(recent), existsSync(mine)]).toEqual([false, true, true])
  })
})
