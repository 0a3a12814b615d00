// Issue 29: ripgrep ends the moment the search has enough or the call is aborted, and the promise
// settles only once the process is gone: no ripgrep is left running.
import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isToolhostError } from '../../src/contract/errors.js'
import { chooseSearchEngine } from '../../src/search/find-ripgrep.js'
import { runRipgrep } from '../../src/search/run-ripgrep.js'
import { searchTree } from '../../src/search/search-tree.js'
import { Workspace } from '../../src/workspace/workspace.js'

let root: string
let binary: string

// The processes whose working folder is `dir` (ripgrep runs in the root it searches).
function processesIn(dir: string): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readlinkSync(`/proc/${name}/cwd`) === dir) pids.push(Number(name))
    } catch {
      // gone, or not ours
    }
  }
  return pids
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-rg-stop-')))
  // About 4 MB of matching lines: far more output than one chunk, so ripgrep is still writing.
  writeFileSync(path.join(root, 'many.txt'), Array.from({ length: 300_000 }, (_, i) => `TODO line ${i}`).join('\n'))
  const engine = await chooseSearchEngine()
  if (engine.kind !== 'ripgrep') throw new Error(`these tests need ripgrep (the @vscode/ripgrep dependency): ${engine.reason}`)
  binary = engine.binary
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

const ARGS = ['--no-config', '--line-number', '--regexp=TODO', '--', 'many.txt']

describe.skipIf(process.platform !== 'linux')('ripgrep is ended, nothing left running', () => { // reason: reads /proc to see the processes
  test('an abort while ripgrep writes: E_INTERRUPTED, and its process is gone when the promise settles', async () => {
    const controller = new AbortController()
    let chunks = 0
    let running: number[] = []
    const run = runRipgrep({
      binary, args: ARGS, cwd: root, signal: controller.signal,
      onOutput: () => {
        if (++chunks === 1) {
          running = processesIn(root)
          controller.abort()
        }
        return true
      },
    })
    const error = await run.then(() => undefined, (e: unknown) => e)
    expect(isToolhostError(error) && error.code).toBe('E_INTERRUPTED')
    expect(running).toHaveLength(1)
    expect(processesIn(root)).toEqual([])
  })

  test('enough found (onOutput says stop): resolves once the process is gone', async () => {
    let running: number[] = []
    const ran = await runRipgrep({ binary, args: ARGS, cwd: root, signal: new AbortController().signal, onOutput: () => ((running = processesIn(root)), false) })
    expect(ran.failed).toBe(false)
    expect(running).toHaveLength(1)
    expect(processesIn(root)).toEqual([])
  })

  test('searchTree stops ripgrep at max_results + 1 and says more exist', async () => {
    const ws = new Workspace(root)
    const found = await searchTree(ws, { start: ws.resolve('.', 'read'), pattern: 'TODO', ignoreCase: false, target: 'content', glob: undefined, maxResults: 5, signal: new AbortController().signal }, { deny: [] })
    expect(found).toMatchObject({ engine: 'ripgrep', more: true, lines: ['many.txt:1: TODO line 0', 'many.txt:2: TODO line 1', 'many.txt:3: TODO line 2', 'many.txt:4: TODO line 3', 'many.txt:5: TODO line 4'] })
    expect(processesIn(root)).toEqual([])
  })

  test('a signal aborted before the start: E_INTERRUPTED, no process started', async () => {
    const controller = new AbortController()
    controller.abort()
    const ws = new Workspace(root)
    const error = await searchTree(ws, { start: ws.resolve('.', 'read'), pattern: 'TODO', ignoreCase: false, target: 'files', glob: undefined, maxResults: 5, signal: controller.signal }, { deny: [] }).then(() => undefined, (e: unknown) => e)
    expect(isToolhostError(error) && error.code).toBe('E_INTERRUPTED')
  })
})
