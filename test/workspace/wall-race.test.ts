// The symlink-swap race: a folder inside the root replaced by a symlink to outside between the
// wall's check and the file operation. First deterministically (check, swap, act), then as a
// stress test against a separate process swapping as fast as it can.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { isToolhostError, registry } from '../../src/index.js'
import { Workspace } from '../../src/workspace/workspace.js'
import { hostOn, makeSandbox, SECRET, snapshot, type Sandbox } from './sandbox.js'

let sb: Sandbox
let ws: Workspace
let race: string
let racePark: string

beforeEach(() => {
  sb = makeSandbox('toolhost-race-')
  race = path.join(sb.root, 'race')
  racePark = path.join(sb.root, 'race-parked')
  mkdirSync(race)
  writeFileSync(path.join(race, 'secret.txt'), 'harmless inside copy\n')
  ws = new Workspace(sb.root, { deny: [] })
})

afterEach(() => sb.cleanup())

function swapToOutside(): void {
  renameSync(race, racePark)
  symlinkSync(sb.sibling, race)
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work
    return 'ok'
  } catch (error) {
    if (isToolhostError(error)) return error.code
    throw error
  }
}

describe.each([
  ['through folder descriptors (/proc/self/fd)', false],
  ['with the portable fallback (lstat and realpath checks)', true],
])('check, then swap, then act, %s', (_how, portable) => {
  beforeEach(() => {
    ws = new Workspace(sb.root, { deny: [], portable })
  })

  test('a write into a folder swapped for an outside symlink is refused and lands nowhere', async () => {
    const target = ws.resolve('race/new.txt', 'write')
    const before = snapshot(sb.sibling, sb.root)
    swapToOutside()
    expect(await codeOf(ws.writeFile(target, 'pwned\n'))).toBe('E_PATH_OUTSIDE_ROOT')
    expect(snapshot(sb.sibling, sb.root)).toEqual(before)
  })

  test('creating folders beneath a swapped folder is refused and creates nothing outside', async () => {
    const target = ws.resolve('race/a/b/new.txt', 'write')
    const before = snapshot(sb.sibling, sb.root)
    swapToOutside()
    expect(await codeOf(ws.writeFile(target, 'pwned\n'))).toBe('E_PATH_OUTSIDE_ROOT')
    expect(snapshot(sb.sibling, sb.root)).toEqual(before)
  })

  test('a read through a swapped folder is refused and returns nothing', async () => {
    const target = ws.resolve('race/secret.txt', 'read')
    swapToOutside()
    let leaked = ''
    const code = await codeOf(ws.readFile(target).then((b) => (leaked = b.toString('utf8'))))
    expect(code).toBe('E_PATH_OUTSIDE_ROOT')
    expect(leaked).not.toContain(SECRET)
  })

  test('a final file swapped for a symlink is not followed: reads refuse, writes replace the link', async () => {
    const file = path.join(race, 'secret.txt')
    const readTarget = ws.resolve('race/secret.txt', 'read')
    const writeTarget = ws.resolve('race/secret.txt', 'write')
    unlinkSync(file)
    symlinkSync(sb.secretFile, file)
    expect(await codeOf(ws.readFile(readTarget))).toBe('E_PATH_OUTSIDE_ROOT')
    expect(await codeOf(ws.writeFile(writeTarget, 'replaced\n'))).toBe('ok')
    expect(readFileSync(sb.secretFile, 'utf8')).toBe(`${SECRET}\n`)
    expect(readFileSync(file, 'utf8')).toBe('replaced\n')
  })
})

// Timing-based stress test (one of the few): a second process swaps `race` between the real folder
// and a symlink to the sibling as fast as it can while writes and reads run; whatever interleaving
// happens, nothing may land outside and the secret may never come back.
describe('stress: a process swapping the folder while calls run', () => {
  const SWAPPER = `
    const fs = require('node:fs')
    const [dir, parked, outside] = process.argv.slice(1)
    process.on('message', () => process.exit(0))
    setInterval(() => {}, 1000)
    const spin = () => {
      for (let i = 0; i < 200; i++) {
        try { fs.renameSync(dir, parked); fs.symlinkSync(outside, dir) } catch {}
        try { fs.unlinkSync(dir); fs.renameSync(parked, dir) } catch {}
      }
      setImmediate(spin)
    }
    spin()`

  test('300 rounds of writes (new files and new folders) and reads through the wall', { timeout: 60_000 }, async () => {
    const before = snapshot(sb.sibling, sb.root)
    const child = spawn(process.execPath, ['-e', SWAPPER, race, racePark, sb.sibling], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    const counts = new Map<string, number>()
    const tally = (code: string): void => void counts.set(code, (counts.get(code) ?? 0) + 1)
    try {
      for (let i = 0; i < 300; i++) {
        const writes = [`race/w${i}.txt`, `race/d${i}/sub/w.txt`].map(async (p) => {
          let target
          try {
            target = ws.resolve(p, 'write')
          } catch (error) {
            return tally(isToolhostError(error) ? error.code : `thrown ${(error as Error).message}`)
          }
          tally(await codeOf(ws.writeFile(target, `write ${i}\n`)))
        })
        const read = (async () => {
          try {
            const bytes = await ws.readFile(ws.resolve('race/secret.txt', 'read'))
            expect(bytes.toString('utf8')).not.toContain(SECRET)
            tally('read ok')
          } catch (error) {
            tally(isToolhostError(error) ? error.code : `thrown ${(error as Error).message}`)
          }
        })()
        await Promise.all([...writes, read])
      }
    } finally {
      child.send('stop')
      await new Promise((resolve) => child.once('exit', resolve))
    }
    // Every outcome is a success or one of the wall's refusals (or the folder being briefly gone).
    for (const code of counts.keys()) expect(['ok', 'read ok', 'E_PATH_OUTSIDE_ROOT', 'E_NOT_FOUND', 'E_ARGS_INVALID'], code).toContain(code)
    expect(snapshot(sb.sibling, sb.root)).toEqual(before)
    expect(readdirSync(sb.sibling)).toEqual(['secret.txt'])
  })

  test('the same through the host: write_file, read_file and patch calls in batches', { timeout: 60_000 }, async () => {
    registry.clear()
    const host = await hostOn(sb.root)
    const before = snapshot(sb.sibling, sb.root)
    const child = spawn(process.execPath, ['-e', SWAPPER, race, racePark, sb.sibling], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    try {
      for (let i = 0; i < 40; i++) {
        const results = await host.run([
          { id: `w${i}`, name: 'write_file', arguments: { path: `race/h${i}/x.txt`, content: 'x\n' } },
          { id: `r${i}`, name: 'read_file', arguments: { path: 'race/secret.txt' } },
          { id: `p${i}`, name: 'patch', arguments: { diff: `--- /dev/null\n+++ b/race/p${i}.txt\n@@ -0,0 +1 @@\n+p\n` } },
        ])
        for (const r of results) {
          expect(r.content).not.toContain(SECRET)
          if (!r.ok) expect(['E_PATH_OUTSIDE_ROOT', 'E_NOT_FOUND', 'E_ARGS_INVALID'], r.content).toContain(r.error?.code)
        }
      }
    } finally {
      child.send('stop')
      await new Promise((resolve) => child.once('exit', resolve))
      await host.close()
      registry.clear()
    }
    expect(snapshot(sb.sibling, sb.root)).toEqual(before)
    expect(existsSync(path.join(sb.sibling, 'x.txt'))).toBe(false)
    rmSync(racePark, { recursive: true, force: true })
  })
})
