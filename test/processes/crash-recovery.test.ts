import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, test } from 'vitest'
import { readCheckpoint } from '../../src/processes/checkpoint.js'
import { eventually, isProcessAlive, ProcessTestKit } from './process-test-kit.js'

const kit = new ProcessTestKit()
afterEach(() => kit.cleanup())

describe('crash recovery', () => {
  test('the host process dies by SIGKILL while its child lives on; a new host adopts it, pages its log and kills it', { timeout: 60_000 }, async () => {
    const root = kit.tempRoot()
    const host = spawn(process.execPath, ['bin/run-ts.mjs', 'test/fixtures/processes/crash-host.ts', root], { stdio: ['ignore', 'pipe', 'inherit'] })
    kit.pids.add(host.pid!)
    const [line] = (await once(createInterface({ input: host.stdout! }), 'line')) as [string]
    const { id, pid } = JSON.parse(line) as { id: string; pid: number }
    kit.pids.add(pid)

    host.kill('SIGKILL')
    await once(host, 'exit')
    expect(isProcessAlive(pid)).toBe(true)
    // The dead host still owns the entry; its owner pid is gone, so it can be adopted.
    expect(readCheckpoint(kit.options(root).checkpoint).processes[0]).toMatchObject({ id, pid, owner: { pid: host.pid } })

    const registry = await kit.open(root)
    expect(await registry.poll(id)).toMatchObject({ id, pid, status: 'running', adopted: true })
    await eventually(async () => (await registry.log(id)).totalLines === 3)
    const page = await registry.log(id, { offset: 2, limit: 2 })
    expect(page.lines).toEqual([{ n: 2, text: 'line 2' }, { n: 3, text: 'line 3' }])

    const ended = await registry.kill(id)
    expect(ended.status).toBe('exited')
    expect(isProcessAlive(pid)).toBe(false)
    const [completion] = await (async () => {
      for await (const c of registry.completions()) return [c]
      return []
    })()
    expect(completion).toMatchObject({ id, exitCode: null, tail: 'line 1\nline 2\nline 3\n' })
    expect(readCheckpoint(kit.options(root).checkpoint)).toMatchObject({ processes: [], completions: [] })
  })
})
