#!/usr/bin/env node
// npm run properties [-- --runs N] [--seed S [--path P]] [--list] [FILTER…]: the suite's property
// tests (every test file that takes its fast-check parameters from test/property-runs.ts) with many
// more runs than `npm test` gives them, so rare interleavings are hunted rather than met by luck.
// Each property runs max(its own runs, N, K × its own runs) times (FC_NUM_RUNS, default 1000;
// FC_RUNS_FACTOR from --times K: the long hunt, e.g. --times 100) from a fresh seed; a
// failure prints its seed and path and the command that replays it (FC_SEED, FC_PATH). FILTER
// narrows the files as vitest's own filters do.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fg from 'fast-glob'

const usage = 'usage: npm run properties -- [--runs N] [--times K] [--seed S [--path P]] [--list] [FILTER...]'
const repo = fileURLToPath(new URL('..', import.meta.url))
const options = { runs: process.env.FC_NUM_RUNS ?? '1000', times: undefined, seed: undefined, path: undefined, list: false, filters: [] }
const args = process.argv.slice(2)
for (let i = 0; i < args.length; i++) {
  const arg = args[i]
  if (arg === '--list') options.list = true
  else if (arg === '--runs' || arg === '--times' || arg === '--seed' || arg === '--path') {
    const value = args[++i]
    if (value === undefined || value === '') fail(`${arg} needs a value`)
    options[arg.slice(2)] = value
  } else if (arg === '--help' || arg === '-h') {
    console.log(usage)
    process.exit(0)
  } else if (arg.startsWith('-')) fail(`unknown option ${arg}`)
  else options.filters.push(arg)
}
if (!/^[1-9]\d*$/.test(options.runs)) fail(`--runs must be a whole number of runs ≥ 1; got ${JSON.stringify(options.runs)}`)
if (options.times !== undefined && !/^[1-9]\d*$/.test(options.times)) fail(`--times must be a whole number ≥ 1; got ${JSON.stringify(options.times)}`)
if (options.seed !== undefined && !/^-?\d+$/.test(options.seed)) fail(`--seed must be an integer; got ${JSON.stringify(options.seed)}`)
if (options.path !== undefined && options.seed === undefined) fail('--path replays a failure: give its --seed too')

const files = (await fg(['test/**/*.test.ts'], { cwd: repo, ignore: ['**/fixtures/**', 'test/scripts/**'] }))
  .filter((file) => readFileSync(`${repo}${file}`, 'utf8').includes('propertyRuns('))
  .filter((file) => options.filters.length === 0 || options.filters.some((f) => file.includes(f)))
  .sort()
if (files.length === 0) fail(`no property test file matches ${options.filters.join(' ')}`)
console.log(`properties: ${files.length} file(s), each property at least ${options.runs} runs${options.times ? ` and ${options.times}× its own` : ''}${options.seed === undefined ? ' (fresh seeds)' : `, seed ${options.seed}${options.path ? ` path ${options.path}` : ''}`}`)
for (const file of files) console.log(`  ${file}`)
if (options.list) process.exit(0)

const env = { ...process.env, FC_NUM_RUNS: options.runs, ...(options.times ? { FC_RUNS_FACTOR: options.times } : {}) }
delete env.FC_SEED
delete env.FC_PATH
if (options.seed !== undefined) env.FC_SEED = options.seed
if (options.path !== undefined) env.FC_PATH = options.path
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url))
// One file at a time (the machine is shared); no test time limit: a thousand runs take minutes.
const run = spawnSync(process.execPath, [vitest, 'run', '--no-file-parallelism', '--test-timeout=0', '--hook-timeout=0', ...files], { cwd: repo, env, stdio: 'inherit' })
process.exitCode = run.status ?? 1

function fail(message) {
  console.error(`properties: ${message}\n${usage}`)
  process.exit(2)
}
