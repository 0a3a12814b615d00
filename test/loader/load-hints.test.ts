import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeEach, expect, test } from 'vitest'
import { loadPlugins } from '../../src/loader/load-plugins.js'
import { describeMissingModule } from '../../src/loader/missing-package.js'
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

// Issue 24.8: a package a plugin imports that is not installed says `npm install NAME` and where,
// whichever way the file is loaded, without the loader's require stack or URL queries.
test.each([
  { why: 'an ES module (.mjs)', name: 'pad.mjs', text: "import pad from 'toolhost-test-missing-pad'\nexport default pad\n", what: 'the package "toolhost-test-missing-pad"', pkg: 'toolhost-test-missing-pad' },
  { why: 'a CommonJS .ts file (require)', name: 'cjs.ts', text: "const x = require('toolhost-test-missing-cjs')\nmodule.exports = x\n", what: 'the package "toolhost-test-missing-cjs"', pkg: 'toolhost-test-missing-cjs' },
  { why: 'a subpath of a scoped package', name: 'scoped.mts', text: "import x from '@toolhost-test/missing/sub'\nexport default x\n", what: expect.stringMatching(/^(the package "@toolhost-test\/missing"|"@toolhost-test\/missing\/sub" from the package "@toolhost-test\/missing")$/), pkg: '@toolhost-test/missing' },
])('a missing package imported by $why: npm install and where, nothing of the loader', async ({ name, text, what, pkg }) => {
  const sub = mkdtempSync(path.join(dir, 'missing-'))
  const file = path.join(sub, name)
  writeFileSync(file, text)
  const report = await loadPlugins([sub], registry)
  expect(report.failed).toHaveLength(1)
  const message = report.failed[0]!.message
  const found = /^(\S+) imports (.+), which is not installed: run `npm install (\S+)` in (\S+)$/.exec(message)
  expect(found, message).not.toBeNull()
  expect(found![1]).toBe(file)
  expect(found![2]).toEqual(what)
  expect(found![3]).toBe(pkg)
  expect(found![4]).toBe(sub)
  expect(message).not.toMatch(/Require stack|namespace=|tsx|node_modules/)
})

test('a missing package imported by a file the plugin imports names both files', async () => {
  const sub = mkdtempSync(path.join(dir, 'nested-'))
  mkdirSync(path.join(sub, 'lib'))
  writeFileSync(path.join(sub, 'lib', 'helper.mjs'), "import 'toolhost-test-missing-deep'\nexport const x = 1\n")
  writeFileSync(path.join(sub, 'main.mjs'), "import { x } from './lib/helper.mjs'\nexport default x\n")
  const report = await loadPlugins([sub], registry)
  expect(report.failed.find((f) => f.file === path.join(sub, 'main.mjs'))?.message).toBe(
    `${path.join(sub, 'lib', 'helper.mjs')} (loaded by ${path.join(sub, 'main.mjs')}) imports the package "toolhost-test-missing-deep", which is not installed: run \`npm install toolhost-test-missing-deep\` in ${sub}`,
  )
})

test('a relative import of a file that does not exist names the file, and no npm install', async () => {
  const sub = mkdtempSync(path.join(dir, 'relative-'))
  writeFileSync(path.join(sub, 'uses.mjs'), "import x from './helpr.mjs'\nexport default x\n")
  const report = await loadPlugins([sub], registry)
  expect(report.failed[0]!.message).toBe(`${path.join(sub, 'uses.mjs')} imports ${path.join(sub, 'helpr.mjs')}, a file that does not exist; check the path and its extension (.js, .mjs, .ts)`)
})

test('the errors Node itself gives a built host (no tsx) read the same', () => {
  const file = path.join(dir, 'plugins', 'a.mjs')
  const esm = Object.assign(new Error(`Cannot find package 'left-pad' imported from ${file}`), { code: 'ERR_MODULE_NOT_FOUND' })
  expect(describeMissingModule(file, esm)).toBe(`${file} imports the package "left-pad", which is not installed: run \`npm install left-pad\` in ${path.dirname(file)}`)
  const cjs = Object.assign(new Error(`Cannot find module 'left-pad'\nRequire stack:\n- ${file}?namespace=toolhost-plugins\n- /x/node_modules/tsx/dist/require-abc.mjs`), { code: 'MODULE_NOT_FOUND' })
  expect(describeMissingModule(file, cjs)).toBe(`${file} imports the package "left-pad", which is not installed: run \`npm install left-pad\` in ${path.dirname(file)}`)
  expect(describeMissingModule(file, Object.assign(new Error('No such built-in module: node:nope'), { code: 'ERR_UNKNOWN_BUILTIN_MODULE' }))).toBeUndefined()
  expect(describeMissingModule(file, new Error('boom'))).toBeUndefined()
})
