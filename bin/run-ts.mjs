#!/usr/bin/env node
// Runs a TypeScript script (benchmarks, maintenance) through tsx: node bin/run-ts.mjs FILE [ARGS…]
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { register } from 'tsx/esm/api'

register()
const [file, ...rest] = process.argv.slice(2)
if (!file) {
  process.stderr.write('usage: node bin/run-ts.mjs FILE [ARGS…]\n')
  process.exit(2)
}
process.argv = [process.argv[0], path.resolve(file), ...rest]
await import(pathToFileURL(path.resolve(file)).href)
