import { readFileSync } from 'node:fs'
import path from 'node:path'

/** A package.json's fields the loader reads. */
export interface PackageManifest {
  name?: unknown
  type?: unknown
}

/** The nearest package.json above a folder (Node's package scope): its folder and content. */
export interface PackageScope {
  dir: string
  manifest: PackageManifest | undefined
}

const packageScopes = new Map<string, PackageScope>()

/** How Node (and tsx) treat a file: by its extension, else by the nearest package.json's "type". */
export function formatOf(file: string): 'module' | 'commonjs' {
  if (/\.(mjs|mts)$/.test(file)) return 'module'
  if (/\.(cjs|cts)$/.test(file)) return 'commonjs'
  return scopeOf(path.dirname(file)).manifest?.type === 'module' ? 'module' : 'commonjs'
}

/** The nearest package.json at or above `dir`, read once per folder and process. */
export function scopeOf(dir: string): PackageScope {
  let scope = packageScopes.get(dir)
  if (scope === undefined) {
    let text: string | undefined
    try {
      text = readFileSync(path.join(dir, 'package.json'), 'utf8')
    } catch {
      // No package.json here: the scope is the parent's.
    }
    if (text !== undefined) {
      let manifest: PackageManifest = {}
      try {
        manifest = JSON.parse(text) as PackageManifest
      } catch {
        // An unreadable package.json: Node fails the import itself and says why.
      }
      scope = { dir, manifest }
    } else {
      scope = path.dirname(dir) === dir ? { dir, manifest: undefined } : scopeOf(path.dirname(dir))
    }
    packageScopes.set(dir, scope)
  }
  return scope
}
