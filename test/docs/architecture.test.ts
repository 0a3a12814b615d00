// docs/architecture.md stays true to the tree: every path it names exists, and every folder of src/
// (and of src/dispatch/) has its place in the layers table, so a new layer cannot go unexplained.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import fg from 'fast-glob'
import { describe, expect, test } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const PAGE = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8')
const SPANS = [...PAGE.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)

// Named by the page as coming, not there yet.
const PLANNED: string[] = []

const foldersOf = (dir: string): string[] => readdirSync(path.join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)

describe('docs/architecture.md', () => {
  test('every repository path it names exists (NAME is a placeholder)', () => {
    const paths = SPANS.filter((s) => /^(src|test|plugins|scripts|docs)\/[\w./-]+$/.test(s) && !s.includes('NAME') && !PLANNED.includes(s))
    expect(paths.length).toBeGreaterThan(40)
    expect(paths.filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([])
  })

  test('every file it names by its bare name is a file of src/ or test/', async () => {
    const names = new Set((await fg(['src/**/*', 'test/**/*.ts'], { cwd: ROOT })).map((f) => path.basename(f)))
    const bare = SPANS.filter((s) => /^[\w.-]+\.(ts|mjs)$/.test(s))
    expect(bare.length).toBeGreaterThan(10)
    expect(bare.filter((name) => !names.has(name))).toEqual([])
  })

  test('every folder of src/ and src/dispatch/ has its row in the layers table', () => {
    const table = PAGE.split('\n').filter((line) => /^\| \d+ \|/.test(line)).join('\n')
    // dispatch/ has no row of its own: each of its sub-layers has one (`dispatch/admit/`, …).
    const folders = [...foldersOf('src').filter((folder) => folder !== 'dispatch'), ...foldersOf('src/dispatch').map((folder) => `dispatch/${folder}`)]
    expect(folders.length).toBeGreaterThan(15)
    expect(folders.filter((folder) => !table.includes(`\`${folder}/`))).toEqual([])
  })
})
