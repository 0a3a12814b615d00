import { existsSync, realpathSync } from 'node:fs'
import Module, { createRequire, register as registerHooks } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { formatOf, scopeOf } from './package-scope.js'

// Built, this file is dist/src/loader/import-plugin.js and the entries are .js; in development
// (tsx, vitest) it is src/loader/import-plugin.ts and the entries are the .ts sources.
const OWN_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js'

/** The file behind `import … from 'toolhost'`: the public entry of the toolhost that is running. */
export const TOOLHOST_ENTRY = fileURLToPath(new URL(`../index${OWN_EXTENSION}`, import.meta.url))

const entry = (file: string): string => fileURLToPath(new URL(`../${file}${OWN_EXTENSION}`, import.meta.url))

/**
 * The files behind the package's bare specifiers, as a plugin must see them: one per entry of
 * package.json's exports (test/package/entry-maps.test.ts checks).
 */
export const ENTRIES: Readonly<Record<string, string>> = {
  toolhost: TOOLHOST_ENTRY,
  'toolhost/workspace': entry('workspace/index'),
  'toolhost/processes': entry('processes/index'),
  'toolhost/mcp': entry('mcp/index'),
  'toolhost/console': entry('console/index'),
  'toolhost/otel': entry('otel/index'),
  'toolhost/ai-sdk': entry('frameworks/ai-sdk'),
  'toolhost/openai-agents': entry('frameworks/openai-agents'),
}

const TYPESCRIPT = /\.(ts|mts|cts)$/
const NAMESPACE = 'toolhost-plugins'
const requireCache = createRequire(import.meta.url).cache

type Importer = (file: string, url: string) => unknown
let compiledLoader: Promise<typeof import('./ts-loader.js')> | undefined
let typescriptEsm: Promise<Importer> | undefined
let typescriptCjs: Promise<Importer> | undefined
let esmResolver = false
let cjsResolver = false
// Per folder: does `toolhost` resolve from there to the running entry already (a plugin inside a
// project that depends on this very copy, or the built-in plugins beside it)? And its module format.
const resolvesHere = new Map<string, boolean>()
// Built, the package's folder: dist/src/loader/ is three levels below it.
const RUNNING_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * Imports a plugin file, with `toolhost` resolving to this package wherever the file lives. Built,
 * nothing is loaded that the file does not need: JavaScript is imported (ESM) or required (CommonJS)
 * by Node itself; TypeScript from its compiled code (ts-loader.ts: esbuild once, then the cache),
 * and through tsx only where that cannot serve (a tsconfig.json with `paths`). Node 20 runs module
 * hooks on a separate loader thread that every later import waits on, so they are registered only
 * for an ES module that needs them: TypeScript ESM that imports TypeScript (or through tsx), or a
 * file whose folder does not resolve `toolhost` to this copy. CommonJS resolves `toolhost`
 * in-thread. From the sources (development, tests) every file goes through tsx. `fresh` re-imports
 * the file as a new module (hot reload).
 *
 * @example
 * await importPlugin('/home/me/my-tools/weather.ts') // its tools are now in the registry
 */
export async function importPlugin(file: string, fresh?: number): Promise<unknown> {
  // A CommonJS plugin is cached by file name (tsx adds its namespace), whatever the URL's query:
  // drop it so it runs again.
  if (fresh !== undefined) {
    delete requireCache[file]
    delete requireCache[`${file}?namespace=${NAMESPACE}`]
  }
  const url = pathToFileURL(file).href + (fresh === undefined ? '' : `?reload=${fresh}`)
  if (OWN_EXTENSION === '.ts') return (await (typescriptEsm ??= loadTypescriptEsm()))(file, url)
  if (TYPESCRIPT.test(file)) {
    const compiled = await (compiledLoader ??= import('./ts-loader.js'))
    if (compiled.servesTypescript(file)) {
      if (formatOf(file) === 'commonjs') installCjsResolver()
      return compiled.importTypescript(file, fresh, ENTRIES, resolvesToRunningEntry(path.dirname(file)))
    }
  }
  if (formatOf(file) === 'commonjs') {
    installCjsResolver()
    if (TYPESCRIPT.test(file)) return (await (typescriptCjs ??= loadTypescriptCjs()))(file, url)
    return createRequire(file)(file)
  }
  if (TYPESCRIPT.test(file)) return (await (typescriptEsm ??= loadTypescriptEsm()))(file, url)
  if (!resolvesToRunningEntry(path.dirname(file))) {
    installEsmResolver()
    return import(url)
  }
  // Node ≥ 20.19 loads an ES module synchronously through require (no event-loop turn per file); it
  // refuses one with a top-level await before running any of it, and import() takes that one. It
  // skips resolve hooks, hence only here, where `toolhost` resolves without them.
  if (fresh === undefined && process.features.require_module === true) {
    try {
      return createRequire(file)(file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error
    }
  }
  return import(url)
}

/**
 * Compiles the TypeScript files among `files` that the cache does not hold yet, all at once, before
 * they are imported one by one (built only: from the sources tsx loads every file).
 */
export async function preparePlugins(files: Iterable<string>): Promise<void> {
  if (OWN_EXTENSION === '.ts') return
  const typescript = [...files].filter((file) => TYPESCRIPT.test(file))
  if (typescript.length === 0) return
  const compiled = await (compiledLoader ??= import('./ts-loader.js'))
  compiled.prepareTypescript(typescript.filter((file) => compiled.servesTypescript(file)))
}

/**
 * Whether `toolhost` imported from a file in `dir` is this very copy, as Node resolves it: the
 * package's own name from inside it (self-reference), else the first node_modules/toolhost up the
 * tree. (Worked out from the files: require.resolve would see this module's own CommonJS patch.)
 */
function resolvesToRunningEntry(dir: string): boolean {
  let answer = resolvesHere.get(dir)
  if (answer === undefined) {
    answer = false
    const scope = scopeOf(dir)
    if (scope.manifest?.name === 'toolhost') {
      answer = samePath(scope.dir, RUNNING_ROOT)
    } else {
      for (let at = dir; ; at = path.dirname(at)) {
        const candidate = path.join(at, 'node_modules', 'toolhost')
        if (existsSync(candidate)) {
          answer = samePath(candidate, RUNNING_ROOT)
          break
        }
        if (path.dirname(at) === at) break
      }
    }
    resolvesHere.set(dir, answer)
  }
  return answer
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}

// Once per process, and only when an ES module needs it (see importPlugin).
function installEsmResolver(): void {
  if (esmResolver) return
  esmResolver = true
  const targets = Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, pathToFileURL(file).href]))
  registerHooks(new URL('./resolve-toolhost.mjs', import.meta.url), { data: { targets } })
}

// CommonJS resolves through Module._resolveFilename, in this thread (Node 20 has no hook for it).
function installCjsResolver(): void {
  if (cjsResolver) return
  cjsResolver = true
  const moduleWithResolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string }
  const original = moduleWithResolver._resolveFilename
  moduleWithResolver._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    return original.call(this, Object.hasOwn(ENTRIES, request) ? ENTRIES[request]! : request, ...rest)
  }
}

async function loadTypescriptEsm(): Promise<Importer> {
  // An ES module .ts file may import CommonJS .ts files: tsx's CommonJS side is needed too.
  const [esm] = await Promise.all([import('tsx/esm/api'), typescriptCjs ??= loadTypescriptCjs()])
  const api = esm.register({ namespace: NAMESPACE })
  installEsmResolver()
  installCjsResolver()
  const parent = pathToFileURL(path.join(process.cwd(), 'index.js')).href
  return (_file, url) => api.import(url, parent)
}

// tsx's CommonJS side runs in this thread (a require hook): no loader thread for these files.
async function loadTypescriptCjs(): Promise<Importer> {
  const { register } = await import('tsx/cjs/api')
  const api = register({ namespace: NAMESPACE })
  return (file) => api.require(file, import.meta.url)
}
