import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { loadPlugins } from '../../src/loader/load-plugins.js'
import { ToolRegistry } from '../../src/registry/registry.js'

// Issue 32: a repository's plugins/ file that calls process.exit at import ended every command
// with no toolhost message. It is now one named load failure, and the files after it load.
const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-exit-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a plugin calling process.exit at import is named as failed; the host and the other files go on', async () => {
  writeFileSync(path.join(dir, 'a-exits.mjs'), 'process.exit(3)\n')
  writeFileSync(path.join(dir, 'b-good.mjs'), "import { defineTool } from 'toolhost'\ndefineTool({ name: 'after_exit_tool', description: 'still here', parameters: { type: 'object' }, handler: () => 'ok' })\n")
  const report = await loadPlugins([dir], new ToolRegistry())
  expect(report.failed.map((f) => [path.basename(f.file), f.message])).toEqual([['a-exits.mjs', expect.stringMatching(/a-exits\.mjs called process\.exit\(3\) while it was imported/)]])
  expect(report.loaded.map((f) => path.basename(f))).toEqual(['b-good.mjs'])
  expect(typeof process.exit).toBe('function')
})
