import { realpathSync } from 'node:fs'
import Module, { createRequire, register as registerHooks } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// Built, this file is dist/src/loader/import-plugin.js and the entries are .js; in development
// (tsx, vitest) it is src/loader/import-plugin.ts and the entries are the .ts sources.
const OWN_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js'

/** The file behind `import … from 'toolhost'`: the public entry of the toolhost that is running. */
export const TOOLHOST_ENTRY = fileURLToPath(new URL(`../index${OWN_EXTENSION}`, import.meta.url))

/** The files behind the package's bare specifiers, as a plugin must see them. */
const ENTRIES: Readonly<Record<string, string>> = {
  toolhost: TOOLHOST_ENTRY,
  'toolhost/mcp': fileURLToPath(new URL(`../mcp/index${OWN_EXTENSION}`, import.meta.url)),
}

const TYPESCRIPT = /\.(ts|mts|cts)$/
const requireCache = createRequire(import.meta.url).cache

type Importer = (url: string, parent: string) => Promise<unknown>
let typescriptImporter: Promise<Importer> | undefined
let resolverInstalled = false
// Per folder: does `toolhost` already resolve from there to the running entry (a plugin inside a
// project that depends on this very copy, or the built-in plugins beside it)?
const resolvesHere = new Map<string, boolean>()

/**
 * Imports a plugin file, with `toolhost` resolving to this package wherever the file lives.
 * JavaScript (ESM or CommonJS) is imported by Node itself; TypeScript goes through tsx, which is
 * loaded only then. Node's resolve hooks (which run on a separate loader thread, Node 20) are
 * registered only when a plugin's folder does not already resolve `toolhost` to this copy.
 * `fresh` re-imports the file as a new module (hot reload).
 *
 * @example
 * await importPlugin('/home/me/my-tools/weather.ts') // its tools are now in the registry
 */
export async function importPlugin(file: string, fresh?: number): Promise<unknown> {
  // A CommonJS plugin is cached by file name, whatever the URL's query: drop it so it runs again.
  if (fresh !== undefined) delete requireCache[file]
  const url = pathToFileURL(file).href + (fresh === undefined ? '' : `?reload=${fresh}`)
  // From source (development, tests) the entry is TypeScript itself: every plugin goes through tsx.
  if (TYPESCRIPT.test(file) || OWN_EXTENSION === '.ts') {
    typescriptImporter ??= loadTypescriptImporter()
    return (await typescriptImporter)(url, pathToFileURL(path.join(process.cwd(), 'index.js')).href)
  }
  if (!resolvesToRunningEntry(path.dirname(file))) installResolver()
  return import(url)
}

function resolvesToRunningEntry(dir: string): boolean {
  let answer = resolvesHere.get(dir)
  if (answer === undefined) {
    try {
      answer = realpathSync(createRequire(path.join(dir, 'noop.js')).resolve('toolhost')) === realpathSync(TOOLHOST_ENTRY)
    } catch {
      answer = false
    }
    resolvesHere.set(dir, answer)
  }
  return answer
}

// Once per process: ESM through a resolve hook, CommonJS (a .ts file without "type": "module"
// nearby, a .cjs or .js file) through Module._resolveFilename, which has no hook on Node 20.
function installResolver(): void {
  if (resolverInstalled) return
  resolverInstalled = true
  const targets = Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, pathToFileURL(file).href]))
  registerHooks(new URL(`./resolve-toolhost.mjs`, import.meta.url), { data: { targets } })
  const moduleWithResolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string }
  const original = moduleWithResolver._resolveFilename
  moduleWithResolver._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    return original.call(this, Object.hasOwn(ENTRIES, request) ? ENTRIES[request]! : request, ...rest)
  }
}

async function loadTypescriptImporter(): Promise<Importer> {
  const [cjs, esm] = await Promise.all([import('tsx/cjs/api'), import('tsx/esm/api')])
  const namespace = 'toolhost-plugins'
  cjs.register({ namespace })
  const api = esm.register({ namespace })
  installResolver()
  return (url, parent) => api.import(url, parent)
}
