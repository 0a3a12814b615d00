import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describeThrown, isToolhostError } from '../contract/errors.js'
import type { ToolRegistry } from '../registry/registry.js'
import { importPlugin, preparePlugins } from './import-plugin.js'
import { describeMissingModule } from './missing-package.js'

/** File endings a plugin may have. */
export const PLUGIN_GLOB = '**/*.{ts,mts,js,mjs}'

/** A plugin file that failed to load (`E_PLUGIN_LOAD`), with why. */
export interface PluginLoadError {
  file: string
  code: 'E_PLUGIN_LOAD'
  message: string
  /** The file failed because a tool name it registers was taken: the name and the file that keeps it. */
  duplicate?: { name: string; keptBy: string | undefined }
}

/** What loading the plugin folders did: the files loaded, those that failed, and each file's tools. */
export interface PluginLoadReport {
  /** Plugin files imported, in the order they were imported. */
  loaded: string[]
  /** Files that failed, each with its error; every other file still loaded. */
  failed: PluginLoadError[]
  /** Which tools each file registered. */
  toolsByFile: Map<string, string[]>
  /** Plugin folders that do not exist (not an error: `toolhost doctor` shows them). */
  missingDirs?: string[]
}

/**
 * Finds plugin files under each folder (absolute paths, sorted per folder by path, folders in the
 * order given), skipping `node_modules`, declaration files and tests.
 */
export async function discoverPlugins(dirs: readonly string[]): Promise<string[]> {
  const files: string[] = []
  const seen = new Set<string>()
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue
    // Loaded only when there is a folder to search: a host with none starts without it.
    const { default: fg } = await import('fast-glob')
    const found = await fg(PLUGIN_GLOB, {
      cwd: dir,
      absolute: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      ignore: ['**/node_modules/**', '**/*.d.ts', '**/*.d.mts', '**/*.test.*', '**/*.spec.*'],
    })
    for (const file of found.map((f) => path.normalize(f)).sort()) {
      if (!seen.has(file)) {
        seen.add(file)
        files.push(file)
      }
    }
  }
  return files
}

/**
 * Imports every plugin file of the folders into `registry`, one after another in discovery order,
 * after the single `files` given (the built-in plugins).
 * A file that throws on import (syntax error, duplicate tool, bad schema) is reported and the rest
 * still load; the tools it registered before failing are removed, so it counts all or nothing.
 *
 * @example
 * const report = await loadPlugins(['plugins'], registry)
 * for (const f of report.failed) console.error(`${f.file}: ${f.message}`)
 */
export async function loadPlugins(dirs: readonly string[], registry: ToolRegistry, options: PluginLoadOptions & { files?: readonly string[] } = {}): Promise<PluginLoadReport> {
  const report: PluginLoadReport = { loaded: [], failed: [], toolsByFile: new Map(), missingDirs: dirs.filter((d) => !existsSync(d) || !statSync(d).isDirectory()) }
  const files = new Set((options.files ?? []).map((f) => path.resolve(f)))
  for (const file of await discoverPlugins(dirs)) files.add(file)
  await preparePlugins(files)
  for (const file of files) {
    const outcome = await loadPluginFile(file, registry, false, options)
    if (outcome.ok) {
      report.loaded.push(file)
      report.toolsByFile.set(file, outcome.tools)
    } else {
      report.failed.push({ file, code: 'E_PLUGIN_LOAD', message: outcome.message, ...(outcome.duplicate ? { duplicate: outcome.duplicate } : {}) })
    }
  }
  // Schemas compiled during this load are known good from now on (the next start-up skips them).
  registry.saveKnownSchemas()
  return report
}

export interface PluginLoadOptions {
  /** How long one file's import may take before it is reported as failed (`plugins.import_timeout_ms`). */
  importTimeoutMs?: number
}

/** The default of `plugins.import_timeout_ms`. */
export const DEFAULT_IMPORT_TIMEOUT_MS = 15_000

const importCounts = new Map<string, number>()
// One file is imported at a time in this process (hosts share the registry): a file's tools are
// staged while it imports and put in place together.
let loading: Promise<unknown> = Promise.resolve()

/**
 * Imports one plugin file. A file whose tools are already registered is not imported again unless
 * `reload` (hot reload: the file changed); a re-import is always a fresh module instance. The file's
 * tools are registered all at once when its import succeeds (replacing its previous version's on a
 * reload, with no moment when they are missing); an import that fails, or has not finished within
 * the time limit, changes nothing and is reported, naming the file.
 */
export function loadPluginFile(
  file: string,
  registry: ToolRegistry,
  reload = false,
  options: PluginLoadOptions = {},
): Promise<LoadOutcome> {
  const run = loading.then(() => loadNow(file, registry, reload, options.importTimeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS))
  loading = run.catch(() => undefined)
  return run
}

type LoadOutcome = { ok: true; tools: string[] } | { ok: false; message: string; duplicate?: PluginLoadError['duplicate']; unsettled?: true }

const CHANGED_WHILE_LOADING = new Error('the file changed while it was loading')

/** The file as a stat sees it: a write changes one of these. */
function stampOf(file: string): string {
  try {
    const s = statSync(file)
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return 'gone'
  }
}

/**
 * Runs `load` and refuses what it registered when the file changed meanwhile: the import may have
 * read it half-written (a writer that truncates and then writes leaves it empty in between, and an
 * empty module registers nothing), and its tools must never replace the old ones then.
 */
async function unchangedWhile(file: string, load: () => Promise<unknown>): Promise<void> {
  const before = stampOf(file)
  await load()
  if (stampOf(file) !== before) throw CHANGED_WHILE_LOADING
}

async function loadNow(file: string, registry: ToolRegistry, reload: boolean, timeoutMs: number): Promise<LoadOutcome> {
  const already = registry.namesFrom(file)
  if (!reload && registry.hasSource(file)) return { ok: true, tools: already.sort() }
  // A file imported before (its tools since removed) must run again to register: import it fresh.
  const count = importCounts.get(file) ?? 0
  importCounts.set(file, count + 1)
  const version = count > 0 ? count : undefined
  const load = (): Promise<unknown> => withinTime(withoutExit(file, () => importPlugin(file, version)), timeoutMs)
  try {
    return { ok: true, tools: await registry.replaceSource(file, reload ? () => unchangedWhile(file, load) : load) }
  } catch (error) {
    if (error === CHANGED_WHILE_LOADING) return { ok: false, message: `${file} changed while it was loading (a writer is still at it): its previous tools keep serving, and the next change reloads it`, unsettled: true }
    if (error === TIMED_OUT) {
      return { ok: false, message: `${file} did not finish loading within ${timeoutMs} ms (plugins.import_timeout_ms): its import waits for something (a top-level await, a connection) that has not come; none of its tools are registered` }
    }
    return { ok: false, message: describeLoadError(file, error), ...duplicateOf(error) }
  }
}

// A taken tool name (E_DUPLICATE_TOOL, from whichever copy of the registry's module threw it):
// which name, and which file keeps it.
function duplicateOf(error: unknown): { duplicate?: PluginLoadError['duplicate'] } {
  if (!isToolhostError(error) || error.code !== 'E_DUPLICATE_TOOL') return {}
  const details = error.details as { name?: unknown; first?: unknown } | undefined
  if (typeof details?.name !== 'string') return {}
  return { duplicate: { name: details.name, keptBy: typeof details.first === 'string' ? details.first : undefined } }
}

const TIMED_OUT = new Error('the import timed out')

// A plugin that calls process.exit while it imports (a repository's script run as a plugin) took
// the whole host down with no toolhost word: during an import, process.exit throws instead, so the
// file fails to load, named, and the host goes on. (Imports run one at a time: see `loading`.)
async function withoutExit<T>(file: string, work: () => Promise<T>): Promise<T> {
  const exit = process.exit
  let code: unknown
  process.exit = ((value?: unknown) => {
    code = value
    throw new Error(`${file} called process.exit(${code === undefined ? '' : String(code)}) while it was imported; a plugin may not end the host: none of its tools are registered`)
  }) as typeof process.exit
  try {
    return await work()
  } finally {
    process.exit = exit
  }
}

// The import, or TIMED_OUT after `ms`; an import still running then is left behind (it cannot be
// cancelled), and a late failure of it is absorbed.
function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), ms)
  })
  work.catch(() => undefined)
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/**
 * The message of an import failure. A package that is not installed says `npm install NAME`
 * (missing-package.ts). A JavaScript syntax error comes as tsx's "Parse error FILE:1:1"
 * or as Node's SyntaxError without a place; Node's own syntax check then says what and where. A
 * top-level await in a CommonJS .ts file gets the fix (.mts), not esbuild's words.
 */
function describeLoadError(file: string, error: unknown): string {
  const missing = describeMissingModule(file, error)
  if (missing !== undefined) return missing
  const message = describeThrown(error)
  // esbuild's words for a .ts file compiled as CommonJS; the fix is the file's name.
  const topLevelAwait = /(\S+:\d+:\d+): ERROR: Top-level await is currently not supported with the "cjs" output format/.exec(message)
  if (topLevelAwait) {
    return `${topLevelAwait[1]}: top-level await needs an ES module, and a .ts file is loaded as CommonJS unless the nearest package.json says "type": "module"; rename the file to ${path.basename(file).replace(/\.ts$/, '.mts')} (or add "type": "module" to that package.json)`
  }
  const isSyntax = /^Parse error /.test(message) || (error instanceof Error && error.name === 'SyntaxError')
  if (!isSyntax || !/\.(m?js|cjs)$/.test(file)) return message
  try {
    const check = spawnSync(process.execPath, ['--input-type=module', '--check'], { input: readFileSync(file), encoding: 'utf8', timeout: 10_000 })
    const lines = check.stderr.split('\n')
    const where = lines.find((l) => l.startsWith('[stdin]:'))?.replace('[stdin]', file)
    const what = lines.find((l) => /^\w*Error: /.test(l))
    return where && what ? `${what} at ${where}` : message
  } catch {
    return message
  }
}
