// The one way tests spawn the CLI: from the TypeScript sources through tsx (scripts/toolhost-dev.mjs),
// so no test needs a build. The built package (bin/toolhost.mjs on dist/) is proven by
// test/package/package.test.ts from the packed tarball.
import path from 'node:path'

export const REPO = path.resolve(import.meta.dirname, '..')

/** `node TOOLHOST_CLI …args` runs `toolhost …args`. */
export const TOOLHOST_CLI = path.join(REPO, 'scripts/toolhost-dev.mjs')
