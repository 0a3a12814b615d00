import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { emptyCheckpoint, readCheckpoint, writeCheckpoint, type Checkpoint } from '../../src/processes/checkpoint.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-ckpt-'))
  dirs.push(dir)
  return path.join(dir, 'nested', 'processes.json')
}

const sample: Checkpoint = {
  version: 1,
  processes: [{ id: 'proc_a', pid: 123, startTime: 1_700_000_000_000, command: 'sleep 1', cwd: '/w', log: '/w/.toolhost/processes/proc_a.log', background: true, notify: false, owner: null }],
  completions: [{ id: 'proc_b', command: 'true', exitCode: 0, signal: null, tail: '', endedAt: '2026-01-01T00:00:00.000Z', owner: { pid: 9, startTime: 5 } }],
}

describe('checkpoint file', () => {
  test('round-trips, creating the folder, and leaves no temporary file behind', () => {
    const file = tempFile()
    writeCheckpoint(file, sample)
    expect(readCheckpoint(file)).toEqual(sample)
    writeCheckpoint(file, emptyCheckpoint())
    expect(readCheckpoint(file)).toEqual(emptyCheckpoint())
    expect(readdirSync(path.dirname(file))).toEqual(['processes.json'])
  })

  test('a missing file is an empty checkpoint, without a complaint', () => {
    const problems: string[] = []
    expect(readCheckpoint(tempFile(), (m) => problems.push(m))).toEqual(emptyCheckpoint())
    expect(problems).toEqual([])
  })

  test.each([
    { name: 'not JSON', text: '{"version":1,', problem: /not valid JSON/, processes: 0 },
    { name: 'a malformed entry', text: JSON.stringify({ ...sample, processes: [...sample.processes, { id: 'x', pid: 'nope' }] }), problem: /1 malformed entry/, processes: 1 },
    { name: 'a non-positive pid', text: JSON.stringify({ ...sample, processes: [{ ...sample.processes[0], pid: 0 }] }), problem: /1 malformed entry/, processes: 0 },
  ])('$name is reported and skipped', ({ text, problem, processes }) => {
    const file = tempFile()
    writeCheckpoint(file, emptyCheckpoint())
    writeFileSync(file, text)
    const problems: string[] = []
    const read = readCheckpoint(file, (m) => problems.push(m))
    expect(problems.join('\n')).toMatch(problem)
    expect(read.processes).toHaveLength(processes)
  })

  test('the file is written whole (a reader never sees a partial document)', () => {
    const file = tempFile()
    const big: Checkpoint = { ...sample, processes: Array.from({ length: 500 }, (_, i) => ({ ...sample.processes[0]!, id: `proc_${i}` })) }
    writeCheckpoint(file, sample)
    writeCheckpoint(file, big)
    expect(JSON.parse(readFileSync(file, 'utf8')).processes).toHaveLength(500)
  })
})
