#!/usr/bin/env node
// The toolhost CLI. The host is TypeScript, run through tsx's loader (no build step needed).
import { register } from 'tsx/esm/api'

register()
// `toolhost list | head`: a reader that stops early is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}
const { runCli } = await import('../src/cli/main.ts')
await runCli(process.argv.slice(2))
