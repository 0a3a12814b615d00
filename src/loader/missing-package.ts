import { existsSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The load error of a plugin that imports a package that is not installed, or a file that does not
 * exist, in the words of what to do: `npm install <name>` and where, naming the file whose import
 * failed. Node's ESM and CommonJS errors (and tsx's, for TypeScript) are read; the loader's own
 * frames (its require stack, its URL queries) are left out. Undefined for any other error.
 *
 * @example
 * describeMissingModule('/w/plugins/pad.mjs', error)
 * // 'plugins/pad.mjs imports the package "left-pad", which is not installed: run `npm install left-pad` in /w'
 */
export function describeMissingModule(file: string, error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined
  const message = String((error as { message?: unknown }).message ?? '')
  const found = /^Cannot find (package|module) '([^']+)'(?: imported from (\S+))?/.exec(message)
  if (!found) return undefined
  const [, kind, specifier, importedFrom] = found as unknown as [string, string, string, string | undefined]
  // CommonJS names the importer first in its require stack (tsx adds its namespace to it).
  const importer = cleanPath(importedFrom ?? /\nRequire stack:\n- (.+)/.exec(message)?.[1] ?? file)
  const by = importer === file ? shown(file) : `${shown(importer)} (loaded by ${shown(file)})`
  if (specifier.startsWith('node:') || builtinModules.includes(specifier)) return undefined
  if (kind === 'module' && (path.isAbsolute(specifier) || specifier.startsWith('.') || specifier.startsWith('file:'))) {
    const target = specifier.startsWith('file:') ? fileURLToPath(specifier) : path.resolve(path.dirname(importer), specifier)
    return `${by} imports ${shown(target)}, a file that does not exist; check the path and its extension (.js, .mjs, .ts)`
  }
  const name = packageName(specifier)
  const what = name === specifier ? `the package ${JSON.stringify(name)}` : `${JSON.stringify(specifier)} from the package ${JSON.stringify(name)}`
  return `${by} imports ${what}, which is not installed: run \`npm install ${name}\` in ${projectFolder(importer, file)}`
}

/** `@scope/pkg/sub` → `@scope/pkg`; `pkg/sub` → `pkg`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

// A path or file URL as the loader passed it: without the query it adds (?namespace=…, ?reload=N).
function cleanPath(text: string): string {
  const bare = text.replace(/\?.*$/, '')
  return bare.startsWith('file:') ? fileURLToPath(bare) : bare
}

// Where `npm install` puts a package the importer can use: the folder of its nearest package.json;
// else the current folder when the importer is below it; else the plugin's folder when the importer
// is below that (Node looks in every node_modules above the importing file).
function projectFolder(importer: string, plugin: string): string {
  for (let dir = path.dirname(importer); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir
    if (path.dirname(dir) === dir) break
  }
  if (isBelow(process.cwd(), importer)) return process.cwd()
  return isBelow(path.dirname(plugin), importer) ? path.dirname(plugin) : path.dirname(importer)
}

function isBelow(dir: string, file: string): boolean {
  const relative = path.relative(dir, file)
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
}

function shown(file: string): string {
  return isBelow(process.cwd(), file) ? path.relative(process.cwd(), file) : file
}
