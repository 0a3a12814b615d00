import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // `toolhost` in tests and examples is the source (as tsconfig.json's paths say), never dist/.
  resolve: {
    alias: [
      { find: /^toolhost$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
      { find: /^toolhost\/mcp$/, replacement: fileURLToPath(new URL('./src/mcp/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
})
