import { existsSync, statSync, watch, type FSWatcher } from 'node:fs'
import path from 'node:path'
import type { RegistryEntry, ToolRegistry } from '../registry/registry.js'
import type { Logger } from '../contract/types.js'
import { loadPluginFile, type PluginLoadOptions } from './load-plugins.js'

/** What one reload did. */
export type ReloadEvent =
  | { kind: 'loaded' | 'reloaded'; file: string; tools: string[] }
  | { kind: 'removed'; file: string; tools: string[] }
  | { kind: 'failed'; file: string; message: string; kept: string[] }
  /** The file changed while it loaded (a writer still at it): the old tools keep serving; the next change reloads it. */
  | { kind: 'unsettled'; file: string; message: string; kept: string[] }

export interface WatchOptions extends PluginLoadOptions {
  /** Quiet time after the last change of a file before it is reloaded. Default 100 ms. */
  debounceMs?: number
  /** Called after each reload (the registry's onChange also fires for added and removed tools). */
  onReload?: (event: ReloadEvent) => void
  /** Asked before a changed or new file is imported: a reason refuses it (its old tools keep serving). */
  mayLoad?: (file: string) => Promise<string | undefined>
}

const PLUGIN_FILE = /\.(ts|mts|js|mjs)$/
const NOT_PLUGIN = /(\.d\.m?ts|\.test\.[^.]+|\.spec\.[^.]+)$/

/** A running watcher. */
export interface PluginWatcher {
  close(): void
  /** Resolves once every reload scheduled so far has run. */
  idle(): Promise<void>
}

/**
 * Hot reload: watches plugin folders (recursively) and, after a change settles, re-imports the file
 * as a fresh module; its new tools replace the old ones in one step once the import has succeeded
 * (calls meanwhile find the old ones); if the new version fails to load, the old tools keep serving
 * and the error is reported. A removed file's tools are dropped; a new file is loaded. Reloads run
 * one at a time.
 *
 * @example
 * const watcher = watchPlugins(['plugins'], host.registry, { onReload: (e) => console.error(e) })
 * host.onClose(() => watcher.close())
 */
export function watchPlugins(dirs: readonly string[], registry: ToolRegistry, options: WatchOptions = {}): PluginWatcher {
  const debounceMs = options.debounceMs ?? 100
  const timers = new Map<string, NodeJS.Timeout>()
  const watchers: FSWatcher[] = []
  let queue: Promise<void> = Promise.resolve()

  const schedule = (file: string): void => {
    clearTimeout(timers.get(file))
    timers.set(file, setTimeout(() => {
      timers.delete(file)
      queue = queue.then(() => vetThenReload(file, registry, options)).then((event) => {
        if (event) options.onReload?.(event)
      }, () => {})
    }, debounceMs))
  }

  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue
    const watcher = watch(dir, { recursive: true }, (_event, name) => {
      if (!name) return
      const file = path.join(dir, name.toString())
      if (!PLUGIN_FILE.test(file) || NOT_PLUGIN.test(file) || file.split(path.sep).includes('node_modules')) return
      schedule(file)
    })
    watcher.on('error', () => {})
    watchers.push(watcher)
  }

  return {
    close() {
      for (const timer of timers.values()) clearTimeout(timer)
      timers.clear()
      for (const w of watchers) w.close()
    },
    async idle() {
      await queue
    },
  }
}

async function vetThenReload(file: string, registry: ToolRegistry, options: WatchOptions): Promise<ReloadEvent | undefined> {
  if (options.mayLoad !== undefined && existsSync(file)) {
    const refused = await options.mayLoad(file)
    if (refused !== undefined) return { kind: 'failed', file, message: refused, kept: registry.namesFrom(file) }
  }
  return reloadFile(file, registry, options)
}

/**
 * Brings the registry in line with `file` as it is on disk now; undefined when nothing changed.
 *
 * @example
 * const event = await reloadFile('/abs/plugins/weather.ts', registry) // { kind: 'reloaded', tools: ['weather'] }
 */
export async function reloadFile(file: string, registry: ToolRegistry, options: PluginLoadOptions = {}): Promise<ReloadEvent | undefined> {
  const old: RegistryEntry[] = registry.list().flatMap((t) => {
    const entry = registry.entry(t.name)
    return entry && entry.source === file ? [entry] : []
  })
  // A file may offer only prompts, resources or hooks: it counts as loaded too.
  const had = registry.hasSource(file)
  if (!existsSync(file)) {
    if (!had) return undefined
    return { kind: 'removed', file, tools: registry.unregisterSource(file) }
  }
  // A writer that truncates the file and then writes it (writeFileSync, most editors' plain save)
  // leaves it empty in between: an empty file is that moment, never a version whose tools replace
  // the old ones. The write that follows brings the next change.
  if (had && isEmpty(file)) {
    return { kind: 'failed', file, message: `${file} is empty (a writer between truncating and writing it, or a file emptied on purpose: delete it to remove its tools)`, kept: old.map((e) => e.tool.name) }
  }
  // The new version's tools replace the old ones only once it has imported: calls arriving meanwhile
  // find the old tools, and a failed import leaves them serving.
  const outcome = await loadPluginFile(file, registry, true, options)
  if (outcome.ok) return { kind: had ? 'reloaded' : 'loaded', file, tools: outcome.tools }
  return { kind: outcome.unsettled ? 'unsettled' : 'failed', file, message: outcome.message, kept: old.map((e) => e.tool.name) }
}

/**
 * Starts hot reload for a host's plugin folders: reload failures are logged (the old tools keep
 * serving) and the watcher closes with the host. Tool changes reach MCP clients through
 * `registry.onChange` (list_changed).
 *
 * @example
 * if (config.plugins.watch) watchHostPlugins(host, pluginDirs)
 */
export function watchHostPlugins(host: { log: Logger; registry: ToolRegistry; onClose(closer: () => void): void; config: { plugins: { import_timeout_ms: number } } }, dirs: readonly string[], mayLoad?: WatchOptions['mayLoad']): PluginWatcher {
  const watcher = watchPlugins(dirs, host.registry, {
    importTimeoutMs: host.config.plugins.import_timeout_ms,
    ...(mayLoad ? { mayLoad } : {}),
    onReload: (event) => {
      if (event.kind === 'unsettled') {
        host.log.debug(event.message)
      } else if (event.kind === 'failed') {
        host.log.error(`plugin ${event.file} failed to reload: ${event.message}; still serving its previous tools${event.kept.length > 0 ? ` (${event.kept.join(', ')})` : ''}`)
      } else {
        host.log.info(`plugin ${event.file} ${event.kind}: ${event.tools.join(', ') || 'no tools'}`)
      }
    },
  })
  host.onClose(() => watcher.close())
  return watcher
}

function isEmpty(file: string): boolean {
  try {
    return statSync(file).size === 0
  } catch {
    return false // gone meanwhile: the import says so
  }
}
