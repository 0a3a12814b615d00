#!/usr/bin/env node
// The toolhost CLI: the compiled JavaScript in dist/ (built by `npm run build`, which `prepare` runs
// on npm install). Development runs the TypeScript sources instead: scripts/toolhost-dev.mjs.
import { existsSync } from 'node:fs'

const entry = new URL('../dist/src/cli/main.js', import.meta.url)
if (!existsSync(entry)) {
  process.stderr.write('toolhost: dist/ is missing (the package is not built); run `npm run build` in the toolhost folder\n')
  process.exit(2)
}
// `toolhost list | head`: a reader that stops early is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}
const { runCli } = await import(entry.href)
await runCli(process.argv.slice(2))
