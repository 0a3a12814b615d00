#!/usr/bin/env node
// npm run build (and `prepare`, so npm install / npm ci / a git dependency build it): compiles
// src/ and plugins/ to dist/ with tsc (JavaScript and .d.ts), then copies every file under src/ that
// tsc does not emit (loader hooks, templates, html/css/js assets) to the same place under dist/src/,
// so code may locate its assets relative to import.meta.url in both trees. A new asset needs no change here.
// `--out-dir DIR` builds into DIR instead of dist/ (the API report test builds a fresh copy there).
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import fg from 'fast-glob'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({ options: { 'out-dir': { type: 'string' } } })
const dist = path.resolve(values['out-dir'] ?? path.join(repo, 'dist'))

rmSync(dist, { recursive: true, force: true })
// tsc's own entry (not the .bin shim) so the build runs the same on every platform.
const tsc = spawnSync(process.execPath, [path.join(repo, 'node_modules/typescript/bin/tsc'), '-p', path.join(repo, 'tsconfig.build.json'), '--outDir', dist], { stdio: 'inherit' })
if (tsc.status !== 0) {
  console.error(`build: tsc failed (exit ${tsc.status ?? tsc.signal})`)
  process.exit(1)
}

const assets = await fg('src/**/*', { cwd: repo, onlyFiles: true, dot: true, ignore: ['**/*.ts', '**/*.mts', '**/*.cts'] })
for (const file of assets) {
  const target = path.join(dist, file)
  mkdirSync(path.dirname(target), { recursive: true })
  cpSync(path.join(repo, file), target)
}
console.log(`build: ${path.relative(repo, dist) || '.'}/ written (tsc, and ${assets.length} asset file${assets.length === 1 ? '' : 's'} copied from src/)`)
