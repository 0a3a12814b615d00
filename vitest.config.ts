import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// `toolhost` and each subpath in tests and examples are the sources (as tsconfig.json's paths say),
// never dist/: every entry of package.json's exports, ./dist/src/X.js read as ./src/X.ts.
const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { exports: Record<string, string | { import: string }> }
const alias = Object.entries(manifest.exports).flatMap(([key, target]) =>
  typeof target === 'string' ? [] : [{ find: new RegExp(`^toolhost${key.slice(1).replace('/', '\\/')}$`), replacement: fileURLToPath(new URL(target.import.replace(/^\.\/dist\/(.*)\.js$/, './$1.ts'), import.meta.url)) }],
)

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
    env: { TOOLHOST_STORE: 'memory' },
  },
})
