import { readFileSync } from 'node:fs'
import path from 'node:path'
import { formatOf } from './package-scope.js'
import { defaultTsCacheDir, TsCache, type CompiledFile } from './ts-cache.js'
import { compileOptions, compileTypescript, readEsbuildVersion, type CompileJob } from './ts-compile.js'

/** The cache of this process (and of Node 20's loader thread, which reads the same folder). */
export const tsCache = new TsCache(defaultTsCacheDir())

/** Bumped when what the loader does with a compile changes (the options are in the key anyway). */
const LOADER_VERSION = 'toolhost-ts-1'

// Compiled this run (by prepareTypescript), by key: served once, then dropped.
const prepared = new Map<string, CompiledFile | Error>()
const tsconfigs = new Map<string, string>()
let esbuildVersion: string | undefined

/** A file to compile or load: its source, format, and key. */
interface Unit extends CompileJob {
  key: string
}

function unitOf(file: string, format = formatOf(file)): Unit {
  const source = readFileSync(file)
  esbuildVersion ??= readEsbuildVersion()
  const key = tsCache.keyOf(source, [LOADER_VERSION, esbuildVersion, JSON.stringify(compileOptions(format)), file, tsconfigTextOf(path.dirname(file))])
  return { file, format, key }
}

/**
 * The text of the tsconfig.json esbuild applies to files of `dir` (the nearest one up the tree; ''
 * when there is none): part of the key, so an edit to it compiles again. (A file it `extends` is not
 * read: an edit there alone is not seen until the plugin or this file changes.)
 */
export function tsconfigTextOf(dir: string): string {
  let text = tsconfigs.get(dir)
  if (text === undefined) {
    try {
      text = readFileSync(path.join(dir, 'tsconfig.json'), 'utf8')
    } catch {
      text = path.dirname(dir) === dir ? '' : tsconfigTextOf(path.dirname(dir))
    }
    tsconfigs.set(dir, text)
  }
  return text
}

/**
 * Makes sure every file has its compiled code before the imports start: from the cache when it
 * verifies, else compiled now, all misses in one esbuild run per format, and cached. A file that
 * fails keeps its error for its import. Returns how many files were compiled.
 */
export function prepareTypescript(files: readonly string[]): number {
  const misses: Unit[] = []
  for (const file of files) {
    let unit: Unit
    try {
      unit = unitOf(file)
    } catch {
      continue // Unreadable now: its import reports why.
    }
    if (prepared.has(unit.key)) continue
    const cached = tsCache.read(unit.key)
    if (cached === undefined) misses.push(unit)
    else prepared.set(unit.key, cached)
  }
  if (misses.length === 0) return 0
  const compiled = compileTypescript(misses)
  for (const unit of misses) {
    const result = compiled.get(unit.file)!
    if (!(result instanceof Error)) tsCache.write(unit.key, result)
    prepared.set(unit.key, result)
  }
  return misses.length
}

/** The compiled code of a TypeScript file, as Node will load it (`format`); throws its compile error. */
export function compiledTypescript(file: string, format = formatOf(file)): CompiledFile {
  const unit = unitOf(file, format)
  let result = prepared.get(unit.key)
  prepared.delete(unit.key)
  if (result === undefined) result = tsCache.read(unit.key)
  if (result === undefined) {
    result = compileTypescript([unit]).get(file)!
    if (!(result instanceof Error)) tsCache.write(unit.key, result)
  }
  if (result instanceof Error) throw result
  return result
}
