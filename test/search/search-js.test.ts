// The JavaScript engine (where there is no ripgrep) keeps the host responsive: a long search yields
// to the event loop every few ms, and an abort stops it there with E_INTERRUPTED (issue 12, kept by
// issue 29 now that search_files itself runs ripgrep).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { isToolhostError } from '../../src/contract/errors.js'
import { searchTree } from '../../src/search/search-tree.js'
import type { SearchEngine } from '../../src/search/search-types.js'
import { Workspace } from '../../src/workspace/workspace.js'

const JS: SearchEngine = { kind: 'javascript', reason: 'chosen by the test' }
let root: string
let ws: Workspace

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-search-js-')))
  // 2 MB of lines that almost match: each line costs the pattern real work (and the pattern below
  // holds no literal, so no prefilter passes over them).
  for (let i = 0; i < 4; i++) writeFileSync(path.join(root, `big-${i}.txt`), `${'a'.repeat(4000)}\n`.repeat(125))
  writeFileSync(path.join(root, 'long.txt'), `${'ab'.repeat(50)}\n`.repeat(45_000)) // 4.5 MB: 176 chunks of lines
  ws = new Workspace(root)
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

const request = (signal: AbortSignal) => ({ start: ws.resolve('.', 'read'), pattern: '(?:a|b){300}[cd]', ignoreCase: false, target: 'content' as const, glob: undefined, maxResults: 10, signal })

// A timing test (the engine yields after 10 ms of work): 4.5 MB takes tens of ms even on a fast machine.
test('timing: a long search yields again and again (each yield then reads the signal)', async () => {
  const controller = new AbortController()
  let looks = 0
  // The engine reads `aborted` once a folder and after each turn it gives the event loop.
  const signal = new Proxy(controller.signal, {
    get(target, key) {
      if (key === 'aborted') looks++
      const value = Reflect.get(target, key, target) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  const found = await searchTree(ws, { ...request(signal), start: ws.resolve('long.txt', 'read') }, { deny: [], engine: JS })
  expect(found.lines).toEqual([])
  expect(looks).toBeGreaterThanOrEqual(3)
})

test('an abort stops it at the next turn: E_INTERRUPTED', async () => {
  const controller = new AbortController()
  const search = searchTree(ws, request(controller.signal), { deny: [], engine: JS }).then(() => undefined, (e: unknown) => e)
  await new Promise((resolve) => setImmediate(resolve))
  controller.abort()
  const error = await search
  expect(isToolhostError(error) && error.code).toBe('E_INTERRUPTED')
})
