import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeEach, expect, test } from 'vitest'
import { loadPlugins } from '../../src/loader/load-plugins.js'
import { registry } from '../../src/registry/registry.js'

// A failed import says what to do, not what the compiler choked on.
const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-load-hints-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeEach(() => registry.clear())

test('a .ts plugin loaded as CommonJS with a top-level await is told to be named .mts (not esbuild\'s "cjs output format")', async () => {
  const file = path.join(dir, 'waits.ts')
  writeFileSync(file, "import { registry } from 'toolhost'\nconst ready = await Promise.resolve(registry)\nexport { ready }\n")
  const report = await loadPlugins([dir], registry)
  expect(report.failed).toEqual([
    {
      file,
      code: 'E_PLUGIN_LOAD',
      message: `${file}:2:14: top-level await needs an ES module, and a .ts file is loaded as CommonJS unless the nearest package.json says "type": "module"; rename the file to waits.mts (or add "type": "module" to that package.json)`,
    },
  ])
  expect(report.failed[0]!.message).not.toMatch(/output format/)
})
