// Issue 24 #15: when a process's log file cannot grow (a full disk: ENOSPC), its output used to be
// lost although it fits in memory. The output now reaches the host as it is written (through the
// `tee` relay), so it is kept in memory, and poll, the log page and the terminal's result say the
// log stopped short. The write failure is injected: the log is opened on /dev/full, where every
// write fails with ENOSPC (a real full disk: test/plugins/terminal.test.ts, as root).
import { openSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, test } from 'vitest'
import { findRelayTee } from '../../src/processes/output-relay.js'
import { ProcessTestKit } from './process-test-kit.js'

const kit = new ProcessTestKit()
afterEach(() => kit.cleanup())

const tee = findRelayTee()
if (tee === undefined) console.log('relay tests skipped: no tee that takes -p on PATH (GNU coreutils)')
const diskFull = (): number => openSync('/dev/full', 'w')
const STOPPED = 'the log file stopped growing (No space left on device): the output is kept in memory only, its latest 1000 characters (processes.buffer_chars); lines that leave memory are lost'

describe.skipIf(tee === undefined)('a log file that cannot grow (reason: needs a tee that takes -p, see the line printed above)', () => {
  test('the output is kept in memory and poll says the log stopped short', async () => {
    const registry = await kit.open(kit.tempRoot(), { bufferChars: 1000, openLog: diskFull })
    const { id } = await registry.spawn('printf "one\\ntwo\\n"; echo three >&2')
    const { outcome, process: done } = await registry.wait(id, { timeoutMs: 20_000 })
    expect(outcome).toBe('exited')
    expect(done).toMatchObject({ exitCode: 0, tail: 'one\ntwo\nthree\n', lines: 3, logProblem: STOPPED })
  })

  test('a log page serves the lines from memory and says why the ones that left it are gone', async () => {
    const registry = await kit.open(kit.tempRoot(), { bufferChars: 1000, openLog: diskFull })
    const { id } = await registry.spawn('i=1; while [ $i -le 300 ]; do echo "line $i"; i=$((i+1)); done')
    await registry.wait(id, { timeoutMs: 20_000 })
    const last = await registry.log(id, { limit: 2 })
    expect(last).toMatchObject({ totalLines: 300, lines: [{ n: 299, text: 'line 299' }, { n: 300, text: 'line 300' }], fromMemory: { from: 299, to: 300 }, missing: null, logProblem: STOPPED })
    const first = await registry.log(id, { offset: 1, limit: 2 })
    expect(first).toMatchObject({ lines: [], fromFile: null, missing: { from: 1, to: 2 }, logProblem: STOPPED })
  })

  test('with a log that can grow, the log file and memory hold the same output, and no problem is reported', async () => {
    const registry = await kit.open(kit.tempRoot())
    const { id } = await registry.spawn('printf "one\\ntwo\\n"; echo three >&2')
    const { process: done } = await registry.wait(id, { timeoutMs: 20_000 })
    expect(done.tail).toBe('one\ntwo\nthree\n')
    expect(done).not.toHaveProperty('logProblem')
    expect(readFileSync(done.log, 'utf8')).toBe('one\ntwo\nthree\n')
  })
})

describe('without the relay (the registry option relayOutput: false, or no tee that takes -p)', () => {
  test('the process writes its log itself: a log that cannot grow loses the output', async () => {
    const registry = await kit.open(kit.tempRoot(), { bufferChars: 1000, openLog: diskFull, relayOutput: false })
    const { id } = await registry.spawn('printf "one\\ntwo\\n"')
    const { process: done } = await registry.wait(id, { timeoutMs: 20_000 })
    expect(done.tail).toBe('')
  })
})
