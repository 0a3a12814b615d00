// Issue 29: a ripgrep that cannot start (binary gone, not executable) costs the call nothing: the
// JavaScript engine answers it, and later searches in this process go to it (doctor would say why).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { chooseSearchEngine } from '../../src/search/find-ripgrep.js'
import { searchTree } from '../../src/search/search-tree.js'
import { Workspace } from '../../src/workspace/workspace.js'

let root: string

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-rg-fallback-')))
  writeFileSync(path.join(root, 'a.txt'), 'one TODO\n')
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

test('a ripgrep binary that cannot start: the JavaScript engine answers, and is chosen from then on', async () => {
  const ws = new Workspace(root)
  const request = { start: ws.resolve('.', 'read'), pattern: 'TODO', ignoreCase: false, target: 'content' as const, glob: undefined, maxResults: 10, signal: new AbortController().signal }
  const missing = path.join(root, 'no-such-rg')
  const found = await searchTree(ws, request, { deny: [], engine: { kind: 'ripgrep', binary: missing, source: 'PATH', version: '15.0.0' } })
  expect(found).toMatchObject({ engine: 'javascript', lines: ['a.txt:1: one TODO'], more: false })
  const engine = await chooseSearchEngine()
  expect(engine.kind).toBe('javascript')
  expect(engine.kind === 'javascript' && engine.reason).toContain(`${missing} could not start (ENOENT)`)
})
