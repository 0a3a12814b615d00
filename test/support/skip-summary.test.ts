// The closing summary of skipped suites: run vitest on a fixture whose suites skip with reasons and
// read the summary it prints; and the summary's wording for packages that are missing.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { formatSkipSummary } from './skip-summary.js'

const repo = path.resolve(import.meta.dirname, '../..')

describe('the summary of skipped suites', () => {
  test('a run names each skipped suite and test with its reason, and counts the tests skipped', () => {
    const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/fixtures/skip-summary/sample.test.ts', '--reporter=./test/support/skip-summary.ts', '--config=./test/fixtures/skip-summary/vitest.config.ts'], { cwd: repo, encoding: 'utf8', env: { ...process.env, TOOLHOST_TEST_PROVISION: '0' } })
    expect(run.status, run.stderr).toBe(0)
    const summary = run.stdout.slice(run.stdout.indexOf('Skipped:'))
    expect(summary).toMatch(/^Skipped: 2 suites or tests \(3 tests\)/)
    expect(summary).toContain('test/fixtures/skip-summary/sample.test.ts > a lone test (reason: needs frobnicator; apt-get install frobnicator enables it)')
    expect(summary).toContain('sample.test.ts > a whole suite (reason: needs widget-server; apt-get install widget-server enables it) [2 tests]')
    expect(summary).not.toContain('a suite that runs')
  }, 60_000)

  test('a missing package is named with what skips and the command that installs it', () => {
    const lines = formatSkipSummary([], [{ pkg: 'nginx', usedBy: 'the load-balancer tests' }])
    expect(lines).toEqual([
      'Skipped: 0 suites or tests (0 tests), each with the reason it did not run:',
      '  missing nginx: the load-balancer tests skip; sudo apt-get install -y nginx (or npm test as root) enables them',
    ])
  })

  test('a run that skipped nothing prints nothing', () => {
    expect(formatSkipSummary([], [])).toEqual([])
  })
})
