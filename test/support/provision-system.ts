// Vitest's global setup: before any test file runs, install the Debian packages the suites need
// when they are missing and this is root with apt-get (as .ci/run does), so `npm test` on a fresh
// machine runs every suite. Where that cannot be done, the suites that need a package skip, and
// test/support/skip-summary.ts names each at the end with the command that enables it.
import { provisionSystem } from '../../scripts/test-system.mjs'

export default function setup(): void {
  const { installed } = provisionSystem()
  if (installed.length > 0) process.stderr.write(`toolhost tests: installed ${installed.map((need) => need.pkg).join(', ')}\n`)
}
