import Module, { createRequire, register as registerHooks } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { register as registerCjs } from 'tsx/cjs/api'
import { register as registerEsm } from 'tsx/esm/api'

/** The file behind `import … from 'toolhost'`: this package's public entry. */
export const TOOLHOST_ENTRY = fileURLToPath(new URL('../index.ts', import.meta.url))

const requireCache = createRequire(import.meta.url).cache

type Importer = (url: string, parent: string) => Promise<unknown>
let importer: Importer | undefined

/**
 * Imports a plugin file (TypeScript or JavaScript, ESM or CommonJS) through tsx, on Node's own
 * loader, with `toolhost` resolving to this package wherever the file lives. `fresh` re-imports it
 * as a new module (hot reload).
 */
export async function importPlugin(file: string, fresh?: number): Promise<unknown> {
  importer ??= installImporter()
  // A CommonJS plugin is cached by file name, whatever the URL's query: drop it so it runs again.
  if (fresh !== undefined) delete requireCache[file]
  const url = pathToFileURL(file).href + (fresh === undefined ? '' : `?reload=${fresh}`)
  return importer(url, pathToFileURL(path.join(process.cwd(), 'index.js')).href)
}

function installImporter(): Importer {
  const namespace = 'toolhost-plugins'
  registerCjs({ namespace })
  const esm = registerEsm({ namespace })
  // ESM files: a resolve hook on the loader thread maps `toolhost` to our entry.
  registerHooks(new URL('./resolve-toolhost.mjs', import.meta.url), {
    data: { target: pathToFileURL(TOOLHOST_ENTRY).href },
  })
  // CommonJS files (a .ts file without "type": "module" nearby) resolve through Module._resolveFilename.
  const moduleWithResolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string }
  const original = moduleWithResolver._resolveFilename
  moduleWithResolver._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    return original.call(this, request === 'toolhost' ? TOOLHOST_ENTRY : request, ...rest)
  }
  return (url, parent) => esm.import(url, parent)
}
