#!/usr/bin/env node
// What the test suite needs from the system, in one place: .ci/run and `npm test` (vitest's global
// setup, test/support/provision-system.ts) both install what is missing from Debian's packages when
// they run as root with apt-get; elsewhere the suites that need a package skip, and the closing
// summary (test/support/skip-summary.ts) names each with the command below that enables it.
// Plain JavaScript with no dependencies, so .ci/run can call it before `npm ci`.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0

/** Each Debian package a suite needs: how to tell it is here, and what uses it. */
export const SYSTEM_PACKAGES = [
  { pkg: 'bubblewrap', present: () => onPath('bwrap'), usedBy: 'the terminal sandbox and process containment tests' },
  { pkg: 'chromium', present: () => existsSync('/usr/bin/chromium'), usedBy: "the console's browser tests" },
  { pkg: 'redis-server', present: () => onPath('redis-server'), usedBy: 'the Redis store and many-hosts tests' },
  { pkg: 'nginx', present: () => existsSync('/usr/sbin/nginx') || onPath('nginx'), usedBy: 'the hosts-behind-a-load-balancer tests' },
]

/** The command that installs a package, as the summary of skipped suites prints it. */
export const enableCommand = (pkg) => `sudo apt-get install -y ${pkg}`

export const missingPackages = () => SYSTEM_PACKAGES.filter((need) => !need.present())

/**
 * Installs what is missing when this process is root and has apt-get, unless
 * TOOLHOST_TEST_PROVISION=0. Returns what was installed, what is still missing and why.
 */
export function provisionSystem({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const missing = missingPackages()
  if (missing.length === 0) return { installed: [], missing: [] }
  const names = missing.map((need) => need.pkg)
  const why = process.env.TOOLHOST_TEST_PROVISION === '0' ? 'TOOLHOST_TEST_PROVISION=0'
    : process.getuid?.() !== 0 ? 'not root'
    : !onPath('apt-get') ? 'no apt-get'
    : undefined
  if (why) return { installed: [], missing, why }
  log(`toolhost tests: installing ${names.join(', ')} from Debian's packages (root with apt-get; TOOLHOST_TEST_PROVISION=0 turns this off)`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env })
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', '-qq', ...names], { stdio: ['ignore', 'ignore', 'inherit'], env }) : update
  const still = missingPackages()
  return { installed: missing.filter((need) => !still.includes(need)), missing: still, ...(install.status === 0 ? {} : { why: `apt-get exited with ${install.status}` }) }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { missing, why } = provisionSystem()
  for (const need of missing) console.error(`missing ${need.pkg} (${why}): ${need.usedBy} will skip; ${enableCommand(need.pkg)} enables them`)
  process.exit(missing.length > 0 && process.argv.includes('--strict') ? 1 : 0)
}
