import { existsSync } from 'node:fs'
import Module, { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { formatOf } from './package-scope.js'
import type { CompiledFile } from './ts-cache.js'
import { typescriptCandidates, TYPESCRIPT_FILE } from './ts-resolve.js'
import { compiledTypescript, prepareTypescript, tsCache, tsconfigTextOf } from './ts-source.js'

export { prepareTypescript }

// The parts of node:module the loader uses that its types do not show (stable since Node 12; tsx
// and every require hook use them). registerHooks is Node ≥ 22.15 (and 23.5).
interface LoadableModule {
  _compile(code: string, filename: string, format?: 'module'): void
}
interface ModuleInternals {
  _extensions: Record<string, (module: LoadableModule, filename: string) => void>
  _resolveFilename: (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string
  registerHooks?: (hooks: { resolve?: SyncResolve; load?: SyncLoad }) => unknown
}
type SyncResolve = (specifier: string, context: { parentURL?: string }, next: (specifier: string, context?: object) => { url: string }) => { url: string; format?: string; shortCircuit?: boolean }
type SyncLoad = (url: string, context: object, next: (url: string, context?: object) => object) => object

const internals = Module as unknown as ModuleInternals
/** Whether ES modules load through in-thread hooks (Node ≥ 22.15); else Node 20's loader thread. */
const IN_THREAD_HOOKS = typeof internals.registerHooks === 'function'

let installed = false
let threadData: { targets: Record<string, string> } | undefined
// Compiled a moment before its require (Node 20, an ES module loaded in this thread): used once.
const handoff = new Map<string, CompiledFile>()

/**
 * Whether the cache serves this file: not when the tsconfig.json that applies to it maps import
 * paths (`paths`), which only tsx resolves.
 */
export function servesTypescript(file: string): boolean {
  return !/"paths"\s*:/.test(tsconfigTextOf(path.dirname(file)))
}

/**
 * Loads a TypeScript plugin from its compiled code (ts-source.ts: cache, else esbuild), with
 * `toolhost` and its subpaths resolving to `entries`. CommonJS goes through require (a
 * Module._extensions handler, in this thread, on every Node). ES modules: on Node ≥ 22.15 through
 * module.registerHooks, in this thread; on Node 20 through require too when Node can resolve
 * every import itself (Node ≥ 20.19 loads an ES module from its code in this thread), else through
 * module.register's hooks, on Node's loader thread, started then. `fresh` re-imports (hot reload).
 */
export async function importTypescript(file: string, fresh: number | undefined, entries: Readonly<Record<string, string>>, resolvesToolhost: boolean): Promise<unknown> {
  installTypescriptHooks(entries)
  const url = pathToFileURL(file).href + (fresh === undefined ? '' : `?reload=${fresh}`)
  if (formatOf(file) === 'commonjs') return createRequire(file)(file)
  if (IN_THREAD_HOOKS) return import(url)
  if (fresh === undefined && process.features.require_module === true && resolvesToolhost) {
    const compiled = compiledTypescript(file, 'module')
    if (!needsHooks(file, compiled)) {
      handoff.set(file, compiled)
      try {
        return createRequire(file)(file)
      } catch (error) {
        // A top-level await: Node refuses it before running any of it; import() takes it below.
        if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error
      } finally {
        handoff.delete(file)
      }
    }
  }
  startLoaderThread()
  return import(url)
}

/**
 * Whether an ES module needs resolve and load hooks to import what it imports: another TypeScript
 * file, a relative import Node cannot resolve as written, or an import() whose name is computed.
 */
function needsHooks(file: string, compiled: CompiledFile): boolean {
  const dir = path.dirname(file)
  for (const { path: specifier, kind } of compiled.imports) {
    if (kind === 'require-call' || !/^(\.\.?\/|\/|file:)/.test(specifier)) continue
    const target = specifier.startsWith('file:') ? fileURLToPath(specifier) : path.resolve(dir, specifier)
    if (!/\.(js|mjs|cjs|json|node)$/.test(target) || !existsSync(target)) return true
  }
  const dynamicImports = compiled.code.match(/\bimport\s*\(/g)?.length ?? 0
  return dynamicImports > compiled.imports.filter((i) => i.kind === 'dynamic-import').length
}

function installTypescriptHooks(entries: Readonly<Record<string, string>>): void {
  if (installed) return
  installed = true
  // Stack traces name the .ts file and line (the compiled code carries an inline source map).
  process.setSourceMapsEnabled(true)
  for (const extension of ['.ts', '.cts', '.mts', '.tsx']) {
    internals._extensions[extension] = (module, filename) => {
      const format = extension === '.cts' ? 'commonjs' : formatOf(filename)
      const compiled = handoff.get(filename) ?? compiledTypescript(filename, format)
      if (format === 'module') module._compile(compiled.code, filename, 'module')
      else module._compile(compiled.code, filename)
    }
  }
  // require('./x.js') from a .ts file means x.ts when there is no x.js (TypeScript's convention).
  const original = internals._resolveFilename
  internals._resolveFilename = function (this: unknown, request, parent, ...rest) {
    try {
      return original.call(this, request, parent, ...rest)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !TYPESCRIPT_FILE.test(parent?.filename ?? '')) throw error
      for (const candidate of typescriptCandidates(request)) {
        try {
          return original.call(this, candidate, parent, ...rest)
        } catch {
          // The next candidate.
        }
      }
      throw error
    }
  }
  const targets = Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, pathToFileURL(file).href]))
  if (IN_THREAD_HOOKS) internals.registerHooks!({ resolve: resolveInThread(targets), load: loadInThread })
  else threadData = { targets }
}

function resolveInThread(targets: Readonly<Record<string, string>>): SyncResolve {
  return (specifier, context, next) => {
    // A URL, for import and require alike.
    if (Object.hasOwn(targets, specifier)) return { url: targets[specifier]!, format: 'module', shortCircuit: true }
    try {
      return next(specifier, context)
    } catch (error) {
      if (!TYPESCRIPT_FILE.test(context.parentURL?.split('?')[0] ?? '')) throw error
      for (const candidate of typescriptCandidates(specifier)) {
        try {
          return next(candidate, context)
        } catch {
          // The next candidate.
        }
      }
      throw error
    }
  }
}

function loadInThread(url: string, context: object, next: (url: string, context?: object) => object): object {
  if (!url.startsWith('file:')) return next(url, context)
  const file = fileURLToPath(url)
  if (!TYPESCRIPT_FILE.test(file)) return next(url, context)
  const format = formatOf(file)
  // CommonJS: Node's CommonJS loader takes it, and the Module._extensions handler compiles it.
  if (format === 'commonjs') return { format, shortCircuit: true }
  return { format, source: compiledTypescript(file, format).code, shortCircuit: true }
}

// Node 20: the same hooks on Node's loader thread (module.register), started for the first ES
// module that needs them; every later import of the process waits on that thread.
function startLoaderThread(): void {
  if (threadData === undefined) return
  // The thread's cache is this thread's folder as it is now (kept out of the workspace root).
  Module.register(new URL('./ts-hooks-thread.js', import.meta.url), { data: { ...threadData, cacheDir: tsCache.dir ?? null } })
  threadData = undefined
}
