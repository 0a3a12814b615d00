// The one way tests spawn the CLI: from the TypeScript sources through tsx (scripts/toolhost-dev.mjs),
// so no test needs a build. The built package (bin/toolhost.mjs on dist/) is proven by
// test/package/package.test.ts from the packed tarball.
import type { ChildProcessByStdio, ChildProcessWithoutNullStreams } from 'node:child_process'
import path from 'node:path'
import type { Readable } from 'node:stream'

export const REPO = path.resolve(import.meta.dirname, '..')

/** `node TOOLHOST_CLI …args` runs `toolhost …args`. */
export const TOOLHOST_CLI = path.join(REPO, 'scripts/toolhost-dev.mjs')

/** What a spawned CLI printed and how it exited. */
export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Collects a spawned process's stdout and stderr (spawned with `stdio` pipes) until it closes;
 * rejects only when it could not be spawned.
 */
export function outputOf(child: ChildProcessWithoutNullStreams | ChildProcessByStdio<null, Readable, Readable>): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
