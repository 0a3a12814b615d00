import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The folder of the toolhost package that is running: the repository in development, the installed
 * package (node_modules/toolhost) when built; the nearest package.json above this file names it.
 *
 * @example
 * path.join(packageRoot(), 'examples', 'demo-batch.json')
 */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`)
    dir = parent
  }
}

/** The version in the running package's package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version
}
