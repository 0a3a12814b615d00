#!/usr/bin/env node
// Runs a TypeScript script (benchmarks, examples, maintenance) through tsx, from the sources:
// node bin/run-ts.mjs FILE [ARGS…]. `import … from 'toolhost'` in the script means src/index.ts
// (as tsconfig.json's paths say), not the built dist/; so do its subpaths. Not shipped in the package.
import { readFileSync } from 'node:fs'
import { register as registerHooks } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { register } from 'tsx/esm/api'

// Every entry of package.json's exports, ./dist/src/X.js read as ../src/X.ts.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const targets = Object.fromEntries(
  Object.entries(manifest.exports)
    .filter(([, target]) => typeof target !== 'string')
    .map(([key, target]) => [`toolhost${key.slice(1)}`, new URL(target.import.replace(/^\.\/dist\/(.*)\.js$/, '../$1.ts'), import.meta.url).href]),
)

register()
registerHooks(new URL('../src/loader/resolve-toolhost.mjs', import.meta.url), { data: { targets } })
const [file, ...rest] = process.argv.slice(2)
if (!file) {
  process.stderr.write('usage: node bin/run-ts.mjs FILE [ARGS…]\n')
  process.exit(2)
}
process.argv = [process.argv[0], path.resolve(file), ...rest]
await import(pathToFileURL(path.resolve(file)).href)
