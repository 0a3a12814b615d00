#!/usr/bin/env node
// House rules checked mechanically (no eslint dependency) on this repository's own files (src/,
// scripts/, the built-in plugins/, test/), run from its root: no `.only` in tests, no skipped test
// without a reason on the line, relative imports in src/ end in .js, no `export *` in src/index.ts,
// AGENTS.md names every source file, and the layers of src/ hold (.dependency-cruiser.cjs: no import
// circle, no import of a higher layer), and src/ and plugins/ use nothing src/ marks @deprecated
// (scripts/lint-deprecated.mjs: ToolContext's flat names).
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { cruise } from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'
import fg from 'fast-glob'
import { deprecatedUses } from './lint-deprecated.mjs'

const problems = []
for (const file of await fg(['test/**/*.ts'], { ignore: ['**/fixtures/**'] })) {
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (/\b(it|test|describe)\.only\(/.test(line)) problems.push(`${file}:${i + 1}: .only left in a test`)
    if (/\b(it|test|describe)\.(skip|todo)\(/.test(line) && !/reason:/i.test(line)) problems.push(`${file}:${i + 1}: skipped test without "reason:" on the line`)
  })
}
for (const file of await fg(['src/**/*.ts', 'plugins/**/*.ts'])) {
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    const m = /from '(\.{1,2}\/[^']+)'/.exec(line)
    if (m && !m[1].endsWith('.js') && !m[1].endsWith('.mjs') && !m[1].endsWith('.json')) problems.push(`${file}:${i + 1}: relative import without .js: ${m[1]}`)
  })
}
if (/export \*/.test(readFileSync('src/index.ts', 'utf8'))) problems.push('src/index.ts: export * of internals')
// AGENTS.md keeps the tree: every source file and every built-in plugin has its line. A plugin
// file git does not track yet (what `toolhost new-plugin` just wrote) is not the house's yet.
const agents = readFileSync('AGENTS.md', 'utf8')
const trackedPlugins = gitTracked('plugins')
for (const file of await fg(['src/**/*.{ts,mjs,js}', 'plugins/**/*.{ts,mts,js,mjs}', 'scripts/**/*.{ts,mjs}'])) {
  if (file.startsWith('plugins/') && trackedPlugins && !trackedPlugins.has(file)) continue
  if (!agents.includes(file)) problems.push(`AGENTS.md: no line for ${file}`)
}
function gitTracked(folder) {
  try {
    return new Set(execFileSync('git', ['ls-files', '--', folder], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').filter(Boolean))
  } catch {
    return undefined // not a git checkout: every file counts
  }
}

// The layers are the house's (this repository's .dependency-cruiser.cjs), whatever folder is linted.
if (existsSync('src')) {
  const options = await extractDepcruiseOptions(fileURLToPath(new URL('../.dependency-cruiser.cjs', import.meta.url)))
  const comments = new Map(options.ruleSet.forbidden.map((rule) => [rule.name, rule.comment]))
  const { output } = await cruise(['src'], options)
  for (const v of output.summary.violations) {
    const circle = v.cycle ? ` (circle: ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')})` : ''
    problems.push(`${v.from} → ${v.to}: ${v.rule.name}${circle}: ${comments.get(v.rule.name)}`)
  }
}

// Type-aware, so only where the tree is a TypeScript project (the house's own; not a bare tree).
if (existsSync('src') && existsSync('tsconfig.json')) problems.push(...deprecatedUses('tsconfig.json'))

for (const p of problems) console.error(p)
console.log(problems.length === 0 ? 'lint: ok' : `lint: ${problems.length} problem(s)`)
process.exitCode = problems.length === 0 ? 0 : 1
