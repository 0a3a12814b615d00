#!/usr/bin/env node
// House rules checked mechanically (no eslint dependency): no `.only` in tests, no skipped test
// without a reason on the line, relative imports in src/ end in .js, no `export *` in src/index.ts,
// and AGENTS.md names every source file.
import { readFileSync } from 'node:fs'
import fg from 'fast-glob'

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
// AGENTS.md keeps the tree: every source and plugin file has its line.
const agents = readFileSync('AGENTS.md', 'utf8')
for (const file of await fg(['src/**/*.{ts,mjs}', 'plugins/**/*.ts', 'scripts/**/*.{ts,mjs}'])) {
  if (!agents.includes(file)) problems.push(`AGENTS.md: no line for ${file}`)
}
for (const p of problems) console.error(p)
console.log(problems.length === 0 ? 'lint: ok' : `lint: ${problems.length} problem(s)`)
process.exitCode = problems.length === 0 ? 0 : 1
