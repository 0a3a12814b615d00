/**
 * The host's own files under .toolhost (issue 12, new variants): a cloned repository or a command
 * can plant a symbolic link at `.toolhost`, at `.toolhost/processes`, at `durations.json` or at
 * `audit.jsonl`, or put a FIFO there. The host then overwrote a file outside the root with its
 * estimates, appended audit lines (arguments included) to one, wrote command output outside, and
 * hung for good at start-up (a FIFO at durations.json) or at exit (at audit.jsonl). Now it refuses
 * each with a warning and changes nothing outside the root.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import type { Logger } from '../../src/contract/types.js'
import { KnownSchemas } from '../../src/registry/known-schemas.js'
import { silentLogger } from '../../src/contract/logger.js'
import { appendStateFile, readStateFile, stateFolderProblem } from '../../src/workspace/state-files.js'
import { hostOn, makeSandbox, snapshot, type Sandbox } from './sandbox.js'

let sb: Sandbox
beforeEach(() => {
  sb = makeSandbox('toolhost-state-files-')
})
afterEach(() => sb.cleanup())

function recordingLog(): { log: Logger; warnings: string[] } {
  const warnings: string[] = []
  const keep = (message: string): void => void warnings.push(message)
  return { log: { ...silentLogger, warn: keep, error: keep }, warnings }
}

/**
 * Runs one echo and one terminal command on a host over `sb.root`, then closes it (flushing the
 * audit log and estimates); returns the terminal's result text.
 */
async function runOnce(log: Logger): Promise<string> {
  const host = await hostOn(sb.root, { log })
  try {
    const results = await host.run([{ id: 'e', name: 'echo', arguments: { text: 'hello' } }, { id: 't', name: 'terminal', arguments: { command: 'echo from-the-command' } }])
    expect(results[0]).toMatchObject({ ok: true })
    return results[1]!.content
  } finally {
    await host.close()
  }
}

describe('a planted link under .toolhost is refused, never followed', () => {
  test.each([
    ['.toolhost itself', () => symlinkSync(sb.sibling, path.join(sb.root, '.toolhost'))],
    ['.toolhost/processes', () => {
      mkdirSync(path.join(sb.root, '.toolhost'))
      symlinkSync(sb.sibling, path.join(sb.root, '.toolhost/processes'))
    }],
    ['.toolhost/durations.json and .toolhost/audit.jsonl', () => {
      mkdirSync(path.join(sb.root, '.toolhost'))
      symlinkSync(sb.secretFile, path.join(sb.root, '.toolhost/durations.json'))
      symlinkSync(sb.secretFile, path.join(sb.root, '.toolhost/audit.jsonl'))
    }],
  ])('%s', async (_where, plant) => {
    plant()
    const before = snapshot(sb.base, sb.root)
    const { log, warnings } = recordingLog()
    const terminal = await runOnce(log)
    expect(snapshot(sb.base, sb.root)).toEqual(before)
    expect([...warnings, terminal].join('\n')).toContain('symbolic link')
  })
})

describe('a FIFO among the host\'s own files is refused at once', () => {
  test('readStateFile and appendStateFile refuse a FIFO instead of blocking', async () => {
    const fifo = path.join(sb.root, 'fifo')
    execFileSync('mkfifo', [fifo])
    expect(readStateFile(fifo, 1000)).toEqual({ problem: expect.stringContaining('not a regular file') })
    await expect(appendStateFile(fifo, 'line\n')).rejects.toThrow('not a regular file')
  })

  test('a host starts and closes over a FIFO at durations.json and at audit.jsonl', async () => {
    mkdirSync(path.join(sb.root, '.toolhost'))
    execFileSync('mkfifo', [path.join(sb.root, '.toolhost/durations.json')])
    execFileSync('mkfifo', [path.join(sb.root, '.toolhost/audit.jsonl')])
    const { log, warnings } = recordingLog()
    await runOnce(log)
    expect(warnings.join('\n')).toContain('not a regular file')
  })
})

describe('what is still allowed', () => {
  test('a real .toolhost gets the estimates and the audit log; a file outside the root is the operator\'s choice', async () => {
    await runOnce(silentLogger)
    expect(readFileSync(path.join(sb.root, '.toolhost/audit.jsonl'), 'utf8')).toContain('"tool":"echo"')
    expect(stateFolderProblem(sb.root, path.join(sb.sibling, 'x', 'audit.jsonl'))).toBeUndefined()
    writeFileSync(path.join(sb.root, 'plain'), 'x')
    expect(stateFolderProblem(sb.root, path.join(sb.root, 'plain', 'audit.jsonl'))).toContain('not a folder')
  })
})

describe('planted files the host reads synchronously', () => {
  test('a FIFO at the process checkpoint lock is broken like a stale lock: the command runs', async () => {
    mkdirSync(path.join(sb.root, '.toolhost'))
    execFileSync('mkfifo', [path.join(sb.root, '.toolhost/processes.json.lock')])
    const terminal = await runOnce(silentLogger)
    expect(terminal).toContain('from-the-command')
  })

  test('the schema cache is used only in a folder of our own, never through a FIFO or a shared folder', () => {
    const own = path.join(sb.base, 'cache')
    mkdirSync(own, { mode: 0o700 })
    const fifo = path.join(own, 'known.txt')
    execFileSync('mkfifo', [fifo])
    expect(new KnownSchemas(fifo).has('k')).toBe(false) // returns: the FIFO is not read
    const shared = path.join(sb.base, 'shared')
    mkdirSync(shared)
    chmodSync(shared, 0o777)
    writeFileSync(path.join(shared, 'known.txt'), 'planted\n')
    const cache = new KnownSchemas(path.join(shared, 'known.txt'))
    expect(cache.has('planted')).toBe(false)
    cache.add('mine')
    cache.save()
    expect(readFileSync(path.join(shared, 'known.txt'), 'utf8')).toBe('planted\n')
  })
})
