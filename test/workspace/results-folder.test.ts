// A planted results folder opens no hole in workspace.deny (issue 12, item 8): a cloned repository
// can ship `.toolhost/results` as a link to `../.git`, to the root (beside `.env`) or out of the root.
// The read exemption covers only result files the host saved, in a folder reached without links; and
// results are never saved through a link.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { defineTool, registry, type Host } from '../../src/index.js'
import { call, hostOn, makeSandbox, SECRET, snapshot, type Sandbox } from './sandbox.js'

let sb: Sandbox
let host: Host | undefined

beforeEach(() => {
  sb = makeSandbox('toolhost-results-')
  writeFileSync(path.join(sb.root, '.env'), `KEY=${SECRET}\n`)
  mkdirSync(path.join(sb.root, '.git'))
  writeFileSync(path.join(sb.root, '.git', 'config'), `[remote] url=${SECRET}\n`)
  mkdirSync(path.join(sb.root, '.toolhost'))
  registry.clear()
})

afterEach(async () => {
  await host?.close()
  host = undefined
  registry.clear()
  sb.cleanup()
})

test.each([
  { planted: '../.git', read: '.toolhost/results/config' },
  { planted: '..', read: '.toolhost/results/.env' },
  { planted: '..', read: '.toolhost/results/.git/config' },
])('.toolhost/results -> $planted: reading $read is still denied', async ({ planted, read }) => {
  symlinkSync(planted, path.join(sb.root, '.toolhost', 'results'))
  host = await hostOn(sb.root)
  const result = await call(host, 'read_file', { path: read })
  expect(result.error?.code, result.content).toBe('E_PATH_OUTSIDE_ROOT')
  expect(result.content).not.toContain(SECRET)
})

test('a real results folder does not exempt files the host did not save there (a shipped .env)', async () => {
  mkdirSync(path.join(sb.root, '.toolhost', 'results'))
  writeFileSync(path.join(sb.root, '.toolhost', 'results', '.env'), `KEY=${SECRET}\n`)
  host = await hostOn(sb.root)
  const result = await call(host, 'read_file', { path: '.toolhost/results/.env' })
  expect(result.error?.code).toBe('E_PATH_OUTSIDE_ROOT')
})

test('a long result is not saved through a planted link (to .git or out of the root); the answer says why', async () => {
  registry.register(defineTool({ name: 'long', description: 'Long text.', parameters: { type: 'object' }, parallelSafe: true, handler: () => 'x'.repeat(5000) }))
  symlinkSync(sb.sibling, path.join(sb.root, '.toolhost', 'results'))
  const outside = snapshot(sb.base, sb.root)
  host = await hostOn(sb.root, { loadPlugins: false }, { limits: { max_result_chars: 1000 } })
  const result = await call(host, 'long', {})
  expect(result.truncated).toBe(true)
  expect(result.savedTo).toBeUndefined()
  expect(result.content).toContain('the whole text could not be saved (the results folder .toolhost/results is, or passes through, a symbolic link; results are never saved through one)')
  expect(result.content.length).toBeLessThanOrEqual(1000)
  expect(snapshot(sb.base, sb.root)).toEqual(outside)
})

test('a saved result is readable despite the deny list, and its note gives where it is', async () => {
  registry.register(defineTool({ name: 'long', description: 'Long text.', parameters: { type: 'object' }, parallelSafe: true, handler: () => `${'line\n'.repeat(2000)}end` }))
  host = await hostOn(sb.root, {}, { limits: { max_result_chars: 1000 } })
  const result = await call(host, 'long', {})
  expect(result.savedTo).toMatch(/\.toolhost\/results\/c1-[0-9a-z]+-[0-9a-z]+\.txt$/)
  expect(readFileSync(result.savedTo!, 'utf8')).toMatch(/end$/)
  const relative = path.relative(sb.root, result.savedTo!)
  const read = await call(host, 'read_file', { path: relative })
  expect(read.ok, read.content).toBe(true)
  expect(readdirSync(path.dirname(result.savedTo!)).filter((n) => n.endsWith('.tmp'))).toEqual([])
  expect(existsSync(path.join(sb.root, '.toolhost', 'results'))).toBe(true)
})
