// npm run properties (scripts/properties.mjs) and test/property-runs.ts: the properties run with many
// more runs, and a failing property tells the person reading the test output its seed and how to
// replay it (issue 24 #17: a seed seen once on CI could not be found again).
import { execFileSync, spawnSync } from 'node:child_process'
import path from 'node:path'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { propertyRuns } from '../property-runs.js'
import { REPO } from '../toolhost-cli.js'

const SCRIPT = path.join(REPO, 'scripts/properties.mjs')
const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '')

test('--list names every property test file and the runs each property gets', () => {
  const out = execFileSync(process.execPath, [SCRIPT, '--list', '--runs', '5000'], { cwd: REPO, encoding: 'utf8' })
  expect(out).toMatch(/^properties: \d+ file\(s\), each property at least 5000 runs \(fresh seeds\)\n/)
  for (const file of ['test/dispatch/schedule/interrupt-waits-properties.test.ts', 'test/dispatch/schedule/scheduler-properties.test.ts', 'test/dispatch/admit/suggest.test.ts']) expect(out).toContain(`  ${file}\n`)
  expect(out).not.toContain('fixtures')
})

test.each([
  [['--runs', '0'], '--runs must be a whole number of runs ≥ 1; got "0"'],
  [['--path', '3:1'], '--path replays a failure: give its --seed too'],
  [['--fast'], 'unknown option --fast'],
])('%j is a usage error (exit 2) saying what is wrong', (args, message) => {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: REPO, encoding: 'utf8' })
  expect(run.status).toBe(2)
  expect(run.stderr).toBe(`properties: ${message}\nusage: npm run properties -- [--runs N] [--times K] [--seed S [--path P]] [--list] [FILTER...]\n`)
})

test('a property takes FC_NUM_RUNS when it asks for more runs than its own, and FC_SEED/FC_PATH to replay', () => {
  expect(propertyRuns(150, {}).numRuns).toBe(150)
  expect(propertyRuns(150, { FC_NUM_RUNS: '4000' }).numRuns).toBe(4000)
  expect(propertyRuns(2000, { FC_NUM_RUNS: '1000' }).numRuns).toBe(2000)
  expect(propertyRuns(150, { FC_NUM_RUNS: '1000', FC_RUNS_FACTOR: '100' }).numRuns).toBe(15_000) // --times 100
  expect(propertyRuns(5, { FC_NUM_RUNS: '1000', FC_RUNS_FACTOR: '100' }).numRuns).toBe(1000)
  expect(propertyRuns(150, { FC_SEED: '42', FC_PATH: '3:1' })).toMatchObject({ seed: 42, path: '3:1', endOnFailure: true })
  expect(propertyRuns(150, { FC_SEED: '' })).not.toHaveProperty('seed')
})

test('the failure report leads with the seed and the command that replays it; that command finds the same counterexample', () => {
  const small = fc.property(fc.integer({ min: 0, max: 1000 }), (n) => n < 50)
  let report = ''
  try {
    fc.assert(small, propertyRuns(200))
  } catch (error) {
    report = (error as Error).message
  }
  const replay = /^property failed with seed (-?\d+); replay: FC_SEED=\1 FC_PATH=(\S+) npx vitest run test\/scripts\/properties\.test\.ts -t 'the failure report leads with the seed and the command that replays it; that command finds the same counterexample'\n/.exec(report)
  expect(replay, report).not.toBeNull()
  expect(report).toContain('Counterexample: [50]')
  // The replay runs the failing case alone and fails with it again.
  let again = ''
  try {
    fc.assert(small, propertyRuns(200, { FC_SEED: replay![1], FC_PATH: replay![2] }))
  } catch (error) {
    again = (error as Error).message
  }
  expect(again).toContain('Counterexample: [50]')
  expect(again).toMatch(/Property failed after 1 tests/)
})

test("vitest's report of a failing property shows its seed and the replay command", () => {
  const run = spawnSync(process.execPath, [path.join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/fixtures/properties/vitest.config.mts'], { cwd: REPO, encoding: 'utf8', env: { ...process.env, FC_NUM_RUNS: '', FC_SEED: '', FC_PATH: '' } })
  const out = plain(run.stdout + run.stderr)
  expect(run.status).toBe(1)
  expect(out).toMatch(/property failed with seed -?\d+; replay: FC_SEED=-?\d+ FC_PATH=\S+ npx vitest run test\/fixtures\/properties\/failing\.property\.ts -t 'numbers stay small \\\(they do not\\\)'/)
  expect(out).toMatch(/\{ seed: -?\d+, path: "[\d:]+", endOnFailure: true \}/)
})
