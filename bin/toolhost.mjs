#!/usr/bin/env node
// The toolhost CLI. The host is TypeScript, run through tsx's loader (no build step needed).
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/cli/main.ts')
process.exitCode = await main(process.argv.slice(2))
