#!/usr/bin/env node
// `prepack` and `postpack`: the packed package.json carries no `prepare` script (a user's npm install
// warns of it, and a tarball has its dist/ built already), while the repository keeps it, so that
// `npm install` in a clone still builds dist/. `strip` saves package.json byte for byte and drops
// scripts.prepare (and these two); `restore` puts the saved file back (and does nothing when there is none, so a
// pack that failed before `strip` leaves package.json as it was).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const manifest = path.join(repo, 'package.json')
// Not in package.json's `files`: never packed. Ignored by git.
const saved = path.join(repo, '.package.json.packing')

const [command] = process.argv.slice(2)
if (command === 'strip') {
  // A saved copy left by a pack that died between the two: it is the original, keep it.
  if (!existsSync(saved)) writeFileSync(saved, readFileSync(manifest))
  const json = JSON.parse(readFileSync(saved, 'utf8'))
  // The pack scripts go too: they mean something only in the repository.
  for (const name of ['prepare', 'prepack', 'postpack']) delete json.scripts[name]
  writeFileSync(manifest, JSON.stringify(json, null, 2) + '\n')
} else if (command === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest)
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore')
  process.exit(2)
}
