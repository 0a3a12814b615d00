#!/usr/bin/env node
// Runs a TypeScript script (benchmarks, examples, maintenance) through tsx, from the sources:
// node bin/run-ts.mjs FILE [ARGS…]. `import … from 'toolhost'` in the script means src/index.ts
// (as tsconfig.json's paths say), not the built dist/. Not shipped in the package.
import { register as registerHooks } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { register } from 'tsx/esm/api'

register()
registerHooks(new URL('../src/loader/resolve-toolhost.mjs', import.meta.url), {
  data: { targets: { toolhost: new URL('../src/index.ts', import.meta.url).href, 'toolhost/mcp': new URL('../src/mcp/index.ts', import.meta.url).href } },
})
const [file, ...rest] = process.argv.slice(2)
if (!file) {
  process.stderr.write('usage: node bin/run-ts.mjs FILE [ARGS…]\n')
  process.exit(2)
}
process.argv = [process.argv[0], path.resolve(file), ...rest]
await import(pathToFileURL(path.resolve(file)).href)
