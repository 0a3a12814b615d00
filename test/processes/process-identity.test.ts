// Regressions for issue 12 items 3 and 12: a forged checkpoint entry must never make a host adopt or
// signal a process it did not start; the checkpoint is never followed through a symlink, a huge or
// malformed one is refused with a log line; two hosts opening one workspace at once adopt each
// process once and deliver each completion once.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, test } from 'vitest'
import { MAX_CHECKPOINT_BYTES, readCheckpoint, writeCheckpoint, type CheckpointProcess } from '../../src/processes/checkpoint.js'
import { CheckpointLock } from '../../src/processes/checkpoint-lock.js'
import { isOurGroup, processMarker, readMarker } from '../../src/processes/process-group.js'
import { processStartTime } from '../../src/processes/start-time.js'
import type { Logger } from '../../src/contract/types.js'
import { eventually, isProcessAlive, ProcessTestKit } from './process-test-kit.js'

const kit = new ProcessTestKit()
afterEach(() => kit.cleanup())

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = []
  const keep = (m: string): void => void lines.push(m)
  return { lines, debug: keep, info: keep, warn: keep, error: keep }
}

function entry(root: string, id: string, pid: number, overrides: Partial<CheckpointProcess> = {}): CheckpointProcess {
  return { id, pid, startTime: processStartTime(pid) ?? 0, command: 'sleep 30', cwd: root, log: path.join(root, '.toolhost/processes', `${id}.log`), background: true, notify: false, owner: null, ...overrides }
}

function stranger(): number {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
  kit.pids.add(child.pid!)
  return child.pid!
}

describe('process identity: forged checkpoints', () => {
  test('a forged entry naming a live process with its real start time is neither adopted nor signalled', async () => {
    const root = kit.tempRoot()
    const pid = stranger()
    const options = kit.options(root)
    writeCheckpoint(options.checkpoint, { version: 1, processes: [entry(root, 'proc_00000000aa01', pid), entry(root, 'proc_00000000aa02', pid, { background: false })], completions: [] })
    const log = recordingLog()
    const registry = await kit.open(root, { log })
    for (const id of ['proc_00000000aa01', 'proc_00000000aa02']) {
      const info = await registry.poll(id)
      expect(info).toMatchObject({ status: 'exited', signalsSent: [] })
      expect(info.note).toMatch(/not adopted: pid \d+ could not be proven a process this workspace started/)
      expect((await registry.kill(id)).signalsSent).toEqual([])
    }
    expect(isProcessAlive(pid)).toBe(true)
    expect(log.lines.some((l) => l.includes('not adopted and will never be signalled'))).toBe(true)
  })

  test('pid 1 (and pid 0 or below) in a checkpoint is refused as malformed, never signalled', async () => {
    const root = kit.tempRoot()
    const options = kit.options(root)
    mkdirSync(path.dirname(options.checkpoint), { recursive: true })
    writeFileSync(options.checkpoint, JSON.stringify({ version: 1, processes: [entry(root, 'proc_00000000bb01', 1), { ...entry(root, 'proc_00000000bb02', 1), pid: -1 }], completions: [] }))
    const log = recordingLog()
    const registry = await kit.open(root, { log })
    expect(registry.list()).toEqual([])
    expect(log.lines.join('\n')).toMatch(/has 2 malformed entries; they were skipped/)
  })

  test("a process of another workspace, listed in this workspace's checkpoint, is not adopted", async () => {
    const other = await kit.open(kit.tempRoot())
    const theirs = await other.spawn('exec sleep 30', { background: true })
    const root = kit.tempRoot()
    writeCheckpoint(kit.options(root).checkpoint, { version: 1, processes: [entry(root, theirs.id, theirs.pid)], completions: [] })
    const registry = await kit.open(root)
    expect(await registry.poll(theirs.id)).toMatchObject({ status: 'exited', signalsSent: [] })
    expect(isProcessAlive(theirs.pid)).toBe(true)
    expect(readMarker(theirs.pid)).toBe(processMarker(theirs.id, kit.options(other.options.root).checkpoint))
  })

  test('a group is ours only with our marker; its members keep it after the leader exits', async () => {
    const root = kit.tempRoot()
    const registry = await kit.open(root)
    const started = await registry.spawn('sleep 30 & echo "child $!"', { background: true })
    await registry.wait(started.id, { until: 'leader' })
    const marker = processMarker(started.id, kit.options(root).checkpoint)
    await eventually(() => isOurGroup(started.pid, started.startedAt ? Date.parse(started.startedAt) : 0, marker))
    expect(isOurGroup(started.pid, 0, processMarker('proc_0000000000ff', kit.options(root).checkpoint))).toBe(false)
    expect(isOurGroup(1, 0, marker)).toBe(false)
  })
})

describe('process identity: the checkpoint file', () => {
  test('a symlinked checkpoint is not followed: no adoption from it, and the next write replaces the link, not its target', async () => {
    const root = kit.tempRoot()
    const options = kit.options(root)
    const target = path.join(kit.tempRoot(), 'elsewhere.json')
    writeCheckpoint(target, { version: 1, processes: [entry(root, 'proc_00000000cc01', stranger())], completions: [] })
    mkdirSync(path.dirname(options.checkpoint), { recursive: true })
    symlinkSync(target, options.checkpoint)
    const log = recordingLog()
    const registry = await kit.open(root, { log })
    expect(registry.list()).toEqual([])
    expect(log.lines.join('\n')).toMatch(/the process checkpoint: .* is a symbolic link; it was not followed .*; no process was adopted from it/)
    await registry.spawn('true', { background: true })
    expect(readCheckpoint(target).processes.map((p) => p.id)).toEqual(['proc_00000000cc01'])
  })

  test('a huge checkpoint is refused with a log line, not read', async () => {
    const root = kit.tempRoot()
    const options = kit.options(root)
    mkdirSync(path.dirname(options.checkpoint), { recursive: true })
    writeFileSync(options.checkpoint, `{"version":1,"processes":[${' '.repeat(MAX_CHECKPOINT_BYTES)}],"completions":[]}`)
    const log = recordingLog()
    const registry = await kit.open(root, { log })
    expect(registry.list()).toEqual([])
    expect(log.lines.join('\n')).toMatch(/bytes, over the \d+-byte limit; it was not read; no process was adopted from it/)
  })

  test('a malformed checkpoint (deeply nested, not JSON) is refused with a log line, not a crash', async () => {
    for (const text of ['['.repeat(100_000), '{"version":1,"processes":{"0":1}}', 'null']) {
      const root = kit.tempRoot()
      const options = kit.options(root)
      mkdirSync(path.dirname(options.checkpoint), { recursive: true })
      writeFileSync(options.checkpoint, text)
      const log = recordingLog()
      const registry = await kit.open(root, { log })
      expect(registry.list()).toEqual([])
    }
  })
})

describe('the checkpoint lock', () => {
  test('a stale lock (its owner is dead) is broken; a live owner is waited for and named', () => {
    const root = kit.tempRoot()
    const checkpoint = kit.options(root).checkpoint
    mkdirSync(path.dirname(checkpoint), { recursive: true })
    writeFileSync(`${checkpoint}.lock`, JSON.stringify({ pid: 999_999_999, startTime: 1 }))
    const lock = new CheckpointLock(checkpoint)
    expect(lock.hold(() => 'held')).toBe('held')
    const pid = stranger()
    writeFileSync(`${checkpoint}.lock`, JSON.stringify({ pid, startTime: processStartTime(pid) }))
    expect(() => lock.hold(() => 'held', 50)).toThrow(new RegExp(`held by process ${pid}`))
  })

  test('two hosts opening one workspace at once: each process adopted once, each completion delivered once', { timeout: 60_000 }, async () => {
    const root = kit.tempRoot()
    const first = await kit.open(root)
    const running = await Promise.all([1, 2, 3].map(() => first.spawn('exec sleep 30', { background: true, notifyOnComplete: true })))
    const quick = await first.spawn('echo done', { background: true, notifyOnComplete: true })
    await first.wait(quick.id)
    // Released without delivering: the next hosts find three processes and one completion.
    await first.close()
    kit.registries.splice(kit.registries.indexOf(first), 1)
    const children = [0, 1].map(() => spawn(process.execPath, ['bin/run-ts.mjs', 'test/fixtures/processes/open-registry.ts', root], { stdio: ['ignore', 'pipe', 'inherit'] }))
    const reports = await Promise.all(children.map(async (child) => {
      kit.pids.add(child.pid!)
      const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
      return JSON.parse(line) as { adopted: string[]; completions: string[] }
    }))
    const adopted = reports.flatMap((r) => r.adopted).sort()
    expect(adopted).toEqual(running.map((p) => p.id).sort())
    expect(reports.flatMap((r) => r.completions)).toEqual([quick.id])
    for (const child of children) child.kill('SIGKILL')
  })
})
