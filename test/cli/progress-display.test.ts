// The CLI shows tools' progress: a live line on a terminal, throttled plain lines elsewhere, and
// (end to end) `toolhost call` prints a long call's progress on stderr without any debug setting.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { showProgress } from '../../src/cli/progress-display.js'
import type { HostEvent } from '../../src/index.js'
import { TOOLHOST_CLI } from '../toolhost-cli.js'

function fakeHost(): { host: { onEvent(listener: (e: HostEvent) => void): () => void }; emit: (e: HostEvent) => void; listening: () => number } {
  const listeners = new Set<(e: HostEvent) => void>()
  return {
    host: { onEvent: (l) => (listeners.add(l), () => void listeners.delete(l)) },
    emit: (e) => listeners.forEach((l) => l(e)),
    listening: () => listeners.size,
  }
}

const progress = (id: string, message: string, p?: number, total?: number): HostEvent => ({ type: 'progress', id, message, ...(p === undefined ? {} : { progress: p }), ...(total === undefined ? {} : { total }) })
const finished = (id: string): HostEvent => ({ type: 'finished', id, seq: 0, at: 0, ok: true })

describe('showProgress', () => {
  test('on a terminal: one line redrawn in place, naming how many others report, cleared at the end', () => {
    const { host, emit, listening } = fakeHost()
    let out = ''
    const stop = showProgress(host, { isTTY: true, write: (t) => (out += t) })
    emit(progress('a', 'reading', 1, 4))
    emit(progress('b', 'fetching'))
    emit(finished('b'))
    emit(progress('a', 'reading', 4, 4))
    emit(finished('a'))
    stop()
    expect(out.split('\r\x1b[2K').slice(1)).toEqual(['a: reading (1/4, 25%)', 'b: fetching (+1 more)', 'a: reading (1/4, 25%)', 'a: reading (4/4, 100%)', ''])
    expect(listening()).toBe(0)
  })

  test('elsewhere: plain lines, at most one per call per interval, always the last step', () => {
    const { host, emit } = fakeHost()
    let out = ''
    let clock = 0
    const stop = showProgress(host, { write: (t) => (out += t) }, { now: () => clock, intervalMs: 1000 })
    emit(progress('a', 'step', 0, 100))
    clock = 10
    emit(progress('a', 'step', 50, 100)) // within the interval: skipped
    emit(progress('b', 'other call')) // another call has its own interval
    clock = 20
    emit(progress('a', 'step', 100, 100)) // completes the total: shown
    clock = 1500
    emit(progress('b', 'later'))
    stop()
    expect(out).toBe('progress a: step (0/100, 0%)\nprogress b: other call\nprogress a: step (100/100, 100%)\nprogress b: later\n')
  })

  test('toolhost call shows a long call’s progress on stderr (not a terminal: plain lines)', { timeout: 60_000 }, async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-progress-'))
    try {
      const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
        execFile(process.execPath, [TOOLHOST_CLI, 'call', 'test_tool_with_progress', '--config', 'test/fixtures/conformance/config.yaml', '--root', root], (error, stdout, stderr) => (error ? reject(error) : resolve({ stdout, stderr })))
      })
      expect(stdout.trim()).toBe('Progress test completed')
      expect(stderr).toContain('progress call_1: starting (0/100, 0%)\n')
      expect(stderr).toContain('progress call_1: done (100/100, 100%)\n')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
