// State a repository ships under .toolhost/ is not trusted (issue 32.3): a host "renewed" in 2100,
// a lock dated 2100, a dangling state.lock link, a 9 MB or malformed state.json are set aside with a
// warning; no call waits on them, and the hosts of the root go on coordinating.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { createLogger } from '../../src/contract/logger.js'

// This file is about the local store: vitest.config.ts sets TOOLHOST_STORE=memory for the others.
delete process.env['TOOLHOST_STORE']

const YEAR_2100 = Date.UTC(2100, 0, 1)
let root: string
let store: string
const hosts: Host[] = []

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-planted-state-')))
  store = path.join(root, '.toolhost', 'store')
  mkdirSync(store, { recursive: true })
})

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
  rmSync(root, { recursive: true, force: true })
})

async function hostOn(): Promise<{ host: Host; lines: string[] }> {
  const lines: string[] = []
  const host = await createHost({ root, config: { plugins: { builtins: ['basics', 'files'] }, env_file: '', dispatch: { timeout_ms: 5000 } }, permissionMode: 'bypass', audit: false, log: createLogger('warn', (l) => lines.push(l)), env: {} })
  hosts.push(host)
  return { host, lines }
}

const plantedHost = { pid: 999_999, machine: 'attacker', beat: YEAR_2100, shared: true }
const barrier = { id: 'l1', host: 'planted', call: 'c', claim: { kind: 'barrier' }, token: 1 }

describe('a planted .toolhost/store', () => {
  test.each([
    ['a host renewed in 2100 holding a barrier lease', () => writeFileSync(path.join(store, 'state.json'), JSON.stringify({ version: 1, next: 2, hosts: { planted: plantedHost }, leases: [barrier], waiters: [], rates: {}, tokens: {} }))],
    ['a 9 MB state.json', () => writeFileSync(path.join(store, 'state.json'), `{"version":1,"pad":"${'x'.repeat(9 << 20)}"}`)],
    ['a malformed state.json', () => writeFileSync(path.join(store, 'state.json'), '{"version": 1, "hosts": ')],
    ['state.json as a link out of the root', () => symlinkSync('/etc/hostname', path.join(store, 'state.json'))],
    ['a lock dated 2100', () => {
      mkdirSync(path.join(store, 'state.lock'))
      utimesSync(path.join(store, 'state.lock'), YEAR_2100 / 1000, YEAR_2100 / 1000)
    }],
    ['a dangling state.lock link', () => symlinkSync(path.join(root, 'nowhere'), path.join(store, 'state.lock'))],
  ])('%s: two hosts still coordinate and calls run', async (what, plant) => {
    plant()
    const first = await hostOn()
    const second = await hostOn()
    if (!what.startsWith('a host')) expect([...first.lines, ...second.lines].join('\n')).toMatch(/was set aside/)
    const [a, b] = await Promise.all([
      first.host.call({ id: 'a', name: 'write_file', arguments: { path: 'shared.txt', content: 'a' } }),
      second.host.call({ id: 'b', name: 'write_file', arguments: { path: 'shared.txt', content: 'b' } }),
    ])
    expect(a, a.content).toMatchObject({ ok: true })
    expect(b, b.content).toMatchObject({ ok: true })
    // Both hosts are in the store, and nothing planted is (they coordinate through it).
    const state = JSON.parse(readFileSync(path.join(store, 'state.json'), 'utf8')) as { hosts: Record<string, { pid: number }>; leases: unknown[] }
    expect(Object.values(state.hosts).map((h) => h.pid)).toEqual([process.pid, process.pid])
    expect(Object.keys(state.hosts)).not.toContain('planted')
    expect(JSON.stringify(state)).not.toContain('attacker')
  })
})

describe('a planted process checkpoint lock', () => {
  test('naming a live process and dated 2100, it is broken at once, not waited out', async () => {
    const { CheckpointLock } = await import('../../src/processes/checkpoint-lock.js')
    const { processStartTime } = await import('../../src/processes/start-time.js')
    const checkpoint = path.join(root, '.toolhost', 'processes.json')
    const lock = new CheckpointLock(checkpoint, root)
    // The parent process is alive and its start time is real: only the date gives the lock away.
    writeFileSync(lock.file, JSON.stringify({ pid: process.ppid, startTime: processStartTime(process.ppid) }))
    utimesSync(lock.file, YEAR_2100 / 1000, YEAR_2100 / 1000)
    // A timeout of 0: any wait for the planted holder would throw.
    expect(lock.hold(() => 'held', 0)).toBe('held')
  })
})
