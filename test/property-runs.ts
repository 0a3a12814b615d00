// fast-check's parameters for every property test of the suite: how many runs (the property's own
// number, or more under `npm run properties`), a replay of one failure, and a failure report that
// leads with the command replaying it. A property that draws new seeds each run finds a rare case
// only by luck; the seed and path it prints make that case repeatable (then pin it as a test).
import fc, { type Parameters, type RunDetails } from 'fast-check'
import { expect } from 'vitest'

/**
 * The runs and replay of a property: `numRuns` unless FC_NUM_RUNS asks for more, or FC_RUNS_FACTOR
 * for that many times its own (scripts/properties.mjs sets them); FC_SEED (with FC_PATH) replays one failure. On failure the error says how to replay it,
 * then fast-check's own report (seed, path, counterexample).
 *
 * @example
 * await fc.assert(fc.asyncProperty(fc.scheduler(), (s) => check(s)), propertyRuns(150))
 */
export function propertyRuns<T>(numRuns: number, env: NodeJS.ProcessEnv = process.env): Parameters<T> {
  // FC_RUNS_FACTOR: each property's own runs times this (`npm run properties -- --times 100`).
  const factor = Number(env.FC_RUNS_FACTOR)
  const more = Math.max(Number(env.FC_NUM_RUNS) || 0, Number.isInteger(factor) && factor > 1 ? numRuns * factor : 0)
  const seed = env.FC_SEED === undefined || env.FC_SEED === '' ? undefined : Number(env.FC_SEED)
  const replay = seed !== undefined && Number.isInteger(seed)
  return {
    numRuns: more > numRuns ? more : numRuns,
    ...(replay ? { seed } : {}),
    ...(replay && env.FC_PATH ? { path: env.FC_PATH, endOnFailure: true } : {}),
    reporter: (details) => {
      if (!details.failed) return
      throw new Error(`${replayLine(details)}\n${fc.defaultReportMessage(details) ?? ''}`)
    },
  }
}

/** The command that replays a failed run: its seed and path, and the test file it failed in. */
export function replayLine(details: Pick<RunDetails<unknown>, 'seed' | 'counterexamplePath'>, file = testFile()): string {
  const path = details.counterexamplePath === null ? '' : ` FC_PATH=${details.counterexamplePath}`
  return `property failed with seed ${details.seed}; replay: FC_SEED=${details.seed}${path} npx vitest run ${file}`
}

// The test that failed, as a vitest command line's filters: its file and its name.
function testFile(): string {
  const { testPath, currentTestName } = expect.getState()
  const file = testPath === undefined ? '<test file>' : testPath.replace(`${process.cwd()}/`, '')
  if (currentTestName === undefined) return file
  // -t is a regular expression over the test's name: its own name (not its describe's), escaped.
  const name = currentTestName.split(' > ').at(-1)!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return `${file} -t '${name.replaceAll("'", "'\\''")}'`
}
