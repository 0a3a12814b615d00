// Type tests (`*.types.test.ts`: expectTypeOf, @ts-expect-error) are checked by the compiler, not by
// vitest, which strips types before it runs a file. This test runs the repository's tsc on them with
// the project's options (tsconfig.types.json), so `npm test` fails when one breaks, not only
// `npm run typecheck`; and on a fixture of wrong expectations, to show the check can fail.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import fg from 'fast-glob'
import { describe, expect, test } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '..')
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc')
const FIXTURE = 'test/fixtures/type-tests/wrong-expectations.types.ts'
// The compiler checks a good part of src/ and vitest's types: minutes on a loaded machine, not seconds.
const TSC_TIMEOUT_MS = 180_000

/** tsc's exit code and its diagnostics (`--pretty false`: one `file(line,col): error TSnnnn: …` line each). */
function typeCheck(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // One thread: the machine (and CI) runs other test files beside this one.
    execFile(process.execPath, [TSC, '--noEmit', '--pretty', 'false', '--singleThreaded', '-p', project], { cwd: ROOT, timeout: TSC_TIMEOUT_MS }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
      resolve({ code, output: `${stdout}${stderr}`.trim() })
    })
  })
}

/** `file:line TScode` of each error tsc reported. */
function errorSites(output: string): string[] {
  return [...output.matchAll(/^(\S+?)\((\d+),\d+\): error (TS\d+)/gm)].map((m) => `${m[1]}:${m[2]} ${m[3]}`)
}

describe('type tests run under npm test', () => {
  test('every *.types.test.ts compiles: each expectTypeOf holds and each @ts-expect-error still meets an error', { timeout: TSC_TIMEOUT_MS }, async () => {
    expect(await typeCheck('tsconfig.types.json')).toEqual({ code: 0, output: '' })
  })

  test('the same check fails on a wrong expectation and on a @ts-expect-error with nothing to expect (fixture)', { timeout: TSC_TIMEOUT_MS }, async () => {
    const wrongLines = readFileSync(path.join(ROOT, FIXTURE), 'utf8').split('\n').flatMap((line, i) => (/\bwrong:/.test(line) && !line.startsWith('//') ? [i + 1] : []))
    expect(wrongLines).toHaveLength(2)
    const result = await typeCheck('test/fixtures/type-tests/tsconfig.json')
    expect(result.code).not.toBe(0)
    // The unused directive is reported on its own line, a failed expectation on the line of the call.
    expect(errorSites(result.output)).toEqual([`${FIXTURE}:${wrongLines[0]} TS2344`, `${FIXTURE}:${wrongLines[1]} TS2578`])
  })

  test('every test file using expectTypeOf or @ts-expect-error is named *.types.test.ts (so the check above sees it)', async () => {
    // test/package type-checks its consumer code with its own tsc run (its directives sit in template strings).
    const files = await fg('test/**/*.ts', { cwd: ROOT, ignore: ['test/fixtures/**', 'test/package/**'] })
    const typeTests = files.filter((file) => /\bexpectTypeOf\(|^\s*\/\/ @ts-expect-error/m.test(readFileSync(path.join(ROOT, file), 'utf8')))
    expect(typeTests.length).toBeGreaterThanOrEqual(1)
    expect(typeTests.filter((file) => !file.endsWith('.types.test.ts'))).toEqual([])
  })
})
