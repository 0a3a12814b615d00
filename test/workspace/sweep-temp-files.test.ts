// Temp files a killed write leaves are swept and never searched (issue 12, item 19): kill -9 during a
// write leaves `.toolhost-<hex>.tmp` beside the target; search_files returned them and nothing removed
// them. The start-up sweep removes only ours, only old ones, never through a link.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { registry } from '../../src/index.js'
import { sweepStaleTempFiles } from '../../src/workspace/sweep-temp-files.js'
import { tempFileName, tempFileWriter, THIS_MACHINE } from '../../src/workspace/temp-file-names.js'
import { createHost } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { call, hostOn, makeSandbox, snapshot, type Sandbox } from './sandbox.js'

let sb: Sandbox
const OURS = '.toolhost-0123456789ab.tmp'
const HOUR_AGO = (Date.now() - 2 * 3_600_000) / 1000

function file(relative: string, text: string, old: boolean): string {
  const full = path.join(sb.root, relative)
  mkdirSync(path.dirname(full), { recursive: true })
  writeFileSync(full, text)
  if (old) utimesSync(full, HOUR_AGO, HOUR_AGO)
  return full
}

beforeEach(() => {
  sb = makeSandbox('toolhost-sweep-')
  registry.clear()
})

afterEach(() => {
  registry.clear()
  sb.cleanup()
})

test('the start-up sweep removes only our old temp files, never through links, never in node_modules', async () => {
  file(`a/${OURS}`, 'half a write', true)
  file(`a/deep/er/${OURS}`, 'half a write', true)
  file('a/.toolhost-aaaaaaaaaaaa.tmp', 'a write in progress', false)
  file('b/other.tmp', 'not ours', true)
  file('b/.toolhost-notours.tmp', 'not our pattern', true)
  file(`node_modules/pkg/${OURS}`, 'skipped', true)
  writeFileSync(path.join(sb.sibling, OURS), 'outside the root')
  utimesSync(path.join(sb.sibling, OURS), HOUR_AGO, HOUR_AGO)
  symlinkSync(sb.sibling, path.join(sb.root, 'linked'))
  symlinkSync(path.join(sb.sibling, OURS), path.join(sb.root, 'b', '.toolhost-bbbbbbbbbbbb.tmp'))
  const outside = snapshot(sb.base, sb.root)
  const host = await hostOn(sb.root, { loadPlugins: false })
  const { removed } = await host.services.tempSweep!
  await host.close()
  expect(removed.sort()).toEqual([`a/${OURS}`, `a/deep/er/${OURS}`])
  expect(existsSync(path.join(sb.root, 'a', '.toolhost-aaaaaaaaaaaa.tmp'))).toBe(true)
  expect(existsSync(path.join(sb.root, 'b', 'other.tmp'))).toBe(true)
  expect(existsSync(path.join(sb.root, 'node_modules', 'pkg', OURS))).toBe(true)
  expect(snapshot(sb.base, sb.root)).toEqual(outside)
})

test('the sweep stops when asked (the host closes) and after its entry budget', async () => {
  for (let i = 0; i < 20; i++) file(`d${i}/${OURS}`, 'x', true)
  const stopped = new AbortController()
  stopped.abort()
  expect((await sweepStaleTempFiles(sb.root, { signal: stopped.signal })).removed).toEqual([])
  expect((await sweepStaleTempFiles(sb.root, { maxEntries: 5 })).removed.length).toBeLessThan(20)
})

test('search_files never shows a temp file, by content or by name', async () => {
  file(`src/${OURS}`, 'needle in a half-written file\n', false)
  file('src/real.txt', 'no match here\n', false)
  const host = await hostOn(sb.root)
  const byContent = await call(host, 'search_files', { pattern: 'needle' })
  const byName = await call(host, 'search_files', { pattern: 'toolhost', target: 'files' })
  await host.close()
  expect(byContent.content).toMatch(/^no lines match/)
  expect(byName.content).toMatch(/^no file names match/)
})

// Issue 31: kill -9 during writes left temp files a later host kept for an hour (3 of 3 still there
// after a restart). Their names now say who wrote them.
/** A temp file name of a writer that ran on this machine and has ended (a child that exited). */
function deadWritersName(): string {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid) + " " + Math.floor(performance.timeOrigin).toString(36))'], { encoding: 'utf8' })
  const [pid, started] = child.stdout.split(' ')
  return `.toolhost-${THIS_MACHINE}-${pid}-${started}-abcdef.tmp`
}

test('a temp file name names its writer: this machine, this pid, when it started', () => {
  const writer = tempFileWriter(tempFileName())
  expect(writer).toEqual({ machine: THIS_MACHINE, pid: process.pid, startedAt: Math.floor(performance.timeOrigin) })
  expect(tempFileWriter(OURS)).toBeUndefined() // an earlier version's name: no writer
})

test('a dead writer\'s temp files go at the next start whatever their age; a live writer\'s and another machine\'s stay', async () => {
  const dead = deadWritersName()
  const otherMachine = `.toolhost-${THIS_MACHINE === '00000000' ? '11111111' : '00000000'}-1-${Date.now().toString(36)}-abcdef.tmp`
  file(`a/${dead}`, 'half a write, seconds ago', false)
  file(`a/${tempFileName()}`, 'this process writing now', false)
  file(`a/${otherMachine}`, 'another machine writing now, on a shared folder', false)
  file(`b/${otherMachine}`, 'another machine, long ago', true)
  const { removed } = await sweepStaleTempFiles(sb.root)
  expect(removed.sort()).toEqual([`a/${dead}`, `b/${otherMachine}`])
})

test('a pid reused by a later process does not keep a dead writer\'s file: createHost checks the start time', async () => {
  // The name's start is long before this process began: the pid (ours) is alive, but not that writer.
  const reused = `.toolhost-${THIS_MACHINE}-${process.pid}-${(Math.floor(performance.timeOrigin) - 3_600_000).toString(36)}-abcdef.tmp`
  const live = tempFileName()
  file(`c/${reused}`, 'half a write of an earlier process', false)
  file(`c/${live}`, 'this process writing now', false)
  const host = await createHost({ root: sb.root, config: { plugins: { dirs: [] }, env_file: '' }, loadPlugins: false, log: silentLogger })
  try {
    expect((await host.services.tempSweep).removed).toEqual([`c/${reused}`])
    expect(existsSync(path.join(sb.root, 'c', live))).toBe(true)
  } finally {
    await host.close()
  }
})
