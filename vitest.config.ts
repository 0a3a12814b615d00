import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// `toolhost` and each subpath in tests and examples are the sources (as tsconfig.json's paths say),
// never dist/: every entry of package.json's exports, ./dist/src/X.js read as ./src/X.ts.
const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { exports: Record<string, string | { import: string }> }
const alias = Object.entries(manifest.exports).flatMap(([key, target]) =>
  typeof target === 'string' ? [] : [{ find: new RegExp(`^toolhost${key.slice(1).replace('/', '\\/')}$`), replacement: fileURLToPath(new URL(target.import.replace(/^\.\/dist\/(.*)\.js$/, './$1.ts'), import.meta.url)) }],
)

// The CLI runs a folder's own plugins, hooks and MCP servers only once its person trusted it
// (`toolhost trust`, kept per user). Tests never touch the real user's trust file: every test process
// (and the CLI it spawns) uses this one, which trusts the repository and the temp folder wholesale, so
// fixtures with plugin folders load as they did. The trust tests name a trust file of their own.
const repo = fileURLToPath(new URL('.', import.meta.url))
const trustFile = path.join(repo, 'test-artifacts', 'trust', 'trust.json')
mkdirSync(path.dirname(trustFile), { recursive: true, mode: 0o700 })
writeFileSync(trustFile, JSON.stringify({ version: 1, workspaces: {}, folders: [realpathSync(repo), realpathSync(os.tmpdir())] }, null, 2) + '\n', { mode: 0o600 })

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['test/**/*.test.ts'],
    // Fixtures that are test files are run by the tests that own them, in a nested vitest.
    exclude: ['test/fixtures/**', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Installs the Debian packages the suites need where it can (root with apt-get), and closes the
    // run with a summary of every skipped suite and the command that enables it.
    globalSetup: ['test/support/provision-system.ts'],
    reporters: ['default', './test/support/skip-summary.ts'],
    // Test files run side by side on one machine, many with the repository as their host's root: with
    // the default local store they would coordinate with each other (and a test's host calling another
    // host on the same root would wait for itself). Each file gets this process's store unless it is
    // about coordination, and then deletes this (test/store/, cross-host, the errors walk).
    env: { TOOLHOST_STORE: 'memory', TOOLHOST_TRUST_FILE: trustFile },
  },
})
