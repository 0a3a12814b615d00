#!/usr/bin/env node
// The CLI from the TypeScript sources, through tsx (no build): `npm run dev -- list`. Every test that
// spawns the CLI goes through this file (test/toolhost-cli.ts), so tests never need dist/.
import { register } from 'tsx/esm/api'

register()
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}
// runCli, as bin/toolhost.mjs: stray plugin errors are logged, and the process exits once the command is done.
const { runCli } = await import('../src/cli/main.ts')
await runCli(process.argv.slice(2))
