// The committed API reports (api/*.api.md, one per entry of package.json's exports) are what the
// sources declare: a fresh build of the working tree, read by scripts/api-report.mjs, must give
// them back, so a change to the public surface cannot reach CI without its report (issue 20, item 4).
// And no report notes a forgotten export (issue 28, item 2): a subpath exports its own types, and a note
// about one toolhost exports leaves its report (scripts/api-report-notes.mjs); any other note fails.
import { spawnSync } from 'node:child_process'
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'

const REPO = path.resolve(import.meta.dirname, '../..')
// The build goes to WORK/dist, beside a link to the repository's node_modules so its imports of
// other packages resolve; never under a node_modules folder, where API Extractor takes every file
// for another package's.
let work: string
let dist: string

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'toolhost-api-report-'))
  symlinkSync(path.join(REPO, 'node_modules'), path.join(work, 'node_modules'), 'dir')
  dist = path.join(work, 'dist')
  const build = spawnSync(process.execPath, [path.join(REPO, 'scripts/build.mjs'), '--out-dir', dist], { cwd: REPO, encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`the build failed:\n${build.stdout}\n${build.stderr}`)
}, 180_000)
afterAll(() => rmSync(work, { recursive: true, force: true }))

test('every committed report matches the built declarations; a differing one fails the check with its difference', () => {
  // One run over every entry (API Extractor takes seconds each): the committed reports, one of them
  // with a line added. Every other entry must match; that one must differ by exactly that line.
  const reports = path.join(work, 'api')
  cpSync(path.join(REPO, 'api'), reports, { recursive: true })
  appendFileSync(path.join(reports, 'toolhost-workspace.api.md'), 'a line the declarations do not give\n')
  const check = spawnSync(process.execPath, [path.join(REPO, 'scripts/api-report.mjs'), '--dist', dist, '--reports', reports], { cwd: REPO, encoding: 'utf8' })
  const output = check.stdout + check.stderr
  expect(output, 'if the surface changed on purpose, run npm run api and commit api/').toMatch(/^api: 1 report out of date \(toolhost\/workspace\); if the change is meant, run npm run api and commit api\/$/m)
  expect(check.status).toBe(1)
  const removed = output.split('\n').filter((line) => /^-(?!--)/.test(line))
  const added = output.split('\n').filter((line) => /^\+(?!\+\+)/.test(line))
  expect({ removed, added }).toEqual({ removed: ['-a line the declarations do not give'], added: [] })
}, 300_000)

test('no committed report notes a forgotten export: each type an entry uses is exported by it or by toolhost (issue 28, item 2)', () => {
  const reports = readdirSync(path.join(REPO, 'api')).filter((file) => file.endsWith('.api.md'))
  expect(reports.length).toBeGreaterThan(1)
  const notes = reports.flatMap((file) =>
    readFileSync(path.join(REPO, 'api', file), 'utf8')
      .split('\n')
      .filter((line) => line.includes('ae-forgotten-export'))
      .map((line) => `${file}: ${line.trim()}`),
  )
  expect(notes, 'export each named type from that entry, or from toolhost if users need it there too, then npm run api').toEqual([])
})

test('a subpath note about a type toolhost exports leaves the report, listed at its top; one about a type no entry exports stays', () => {
  // A copy of the build where toolhost/otel's declarations use Host (toolhost exports it) and
  // Planted (no entry does): the committed otel report must differ by that declaration, Planted's
  // note, and Host in the list of types from toolhost.
  const planted = path.join(work, 'planted')
  cpSync(dist, path.join(planted, 'dist'), { recursive: true })
  symlinkSync(path.join(REPO, 'node_modules'), path.join(planted, 'node_modules'), 'dir')
  const otel = path.join(planted, 'dist/src/otel')
  writeFileSync(path.join(otel, 'planted.d.ts'), '/** Exported by no entry. */\nexport interface Planted {\n    id: string;\n}\n')
  appendFileSync(path.join(otel, 'index.d.ts'), "/** Planted. */\nexport declare function plant(planted: import('./planted.js').Planted, host: import('../index.js').Host): void;\n")
  const check = spawnSync(process.execPath, [path.join(REPO, 'scripts/api-report.mjs'), '--dist', path.join(planted, 'dist')], { cwd: REPO, encoding: 'utf8' })
  const output = (check.stdout + check.stderr).replaceAll('\r', '')
  expect(output).toMatch(/^api: 1 report out of date \(toolhost\/otel\);/m)
  const changed = output.split('\n').filter((line) => /^[-+](?![-+]{2})/.test(line))
  expect(changed).toEqual([
    '-// Types from "toolhost" used here: HostEvent',
    '+// Types from "toolhost" used here: Host, HostEvent',
    // API Extractor imports what the types it reaches through Host use.
    "+import type { ValidateFunction } from 'ajv';",
    '+// Warning: (ae-forgotten-export) The symbol "Planted" needs to be exported by the entry point index.d.ts',
    '+//',
    '+// @public',
    '+export function plant(planted: Planted, host: Host): void;',
    '+',
  ])
}, 300_000)
