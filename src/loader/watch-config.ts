import { watch, type FSWatcher } from 'node:fs'
import path from 'node:path'
import { diffConfig, liveValue, type ConfigChange } from '../config/live-config.js'
import { loadConfig } from '../config/load-config.js'
import type { ToolhostConfig } from '../config/types.js'
import type { Logger } from '../contract/types.js'

/** What a config watcher needs of the host. */
export interface ReloadableHost {
  log: Logger
  /** Takes the live keys of `next` for calls not yet started. */
  applyLiveConfig(next: ToolhostConfig): void
  onClose(closer: () => void): void
}

/** What one reload did. */
export type ConfigReload =
  | { kind: 'applied'; change: ConfigChange; next: ToolhostConfig }
  | { kind: 'unchanged' }
  | { kind: 'rejected'; message: string }

/** A running config watcher. */
export interface ConfigWatcher {
  close(): void
  /** Resolves once every reload scheduled so far has run. */
  idle(): Promise<void>
  /** The config as last loaded from the file (what later changes are compared with). */
  readonly loaded: ToolhostConfig
}

/**
 * Live limits: watches config.yaml and, after a change settles, loads it again. A valid file's live
 * keys (`LIVE_KEYS`: worker limit, rate limits, timeouts) apply to calls not yet started; a changed key
 * that needs a restart is logged as such. An invalid file is rejected with its error (file and key)
 * and the limits in force stay; `onApplied` hears each config applied; `vet` may take back what a
 * reload must not change (under workspace trust: the hooks). The folder is watched, not the file, so an editor that saves by
 * renaming a new file over the old one is seen too.
 *
 * @example
 * if (config.plugins.watch && configFile) watchConfig(host, configFile, config)
 */
export function watchConfig(host: ReloadableHost, file: string, loaded: ToolhostConfig, options: { debounceMs?: number; onApplied?: (next: ToolhostConfig) => void; vet?: (next: ToolhostConfig) => ToolhostConfig } = {}): ConfigWatcher {
  const debounceMs = options.debounceMs ?? 100
  let timer: NodeJS.Timeout | undefined
  let queue: Promise<void> = Promise.resolve()
  const state = { loaded }
  let watcher: FSWatcher | undefined
  try {
    watcher = watch(path.dirname(file), (_event, name) => {
      if (name !== null && name.toString() !== path.basename(file)) return
      clearTimeout(timer)
      timer = setTimeout(() => {
        queue = queue.then(() => {
          const outcome = reloadConfig(host, file, state.loaded, options.vet)
          if (outcome.kind !== 'applied') return
          state.loaded = outcome.next
          options.onApplied?.(outcome.next)
        })
      }, debounceMs)
    })
    watcher.on('error', () => {})
  } catch (error) {
    host.log.warn(`cannot watch ${file} for changes (${(error as Error).message}); limits change only on restart`)
  }
  const handle: ConfigWatcher = {
    close() {
      clearTimeout(timer)
      watcher?.close()
    },
    async idle() {
      await queue
    },
    get loaded() {
      return state.loaded
    },
  }
  host.onClose(() => handle.close())
  return handle
}

/**
 * Loads `file` once and applies what changed since `before` (see `watchConfig`), logging it.
 *
 * @example
 * reloadConfig(host, '/app/config.yaml', loadedAtStart) // { kind: 'applied', change: { live: ['dispatch.max_workers'], restart: [] }, next }
 */
export function reloadConfig(host: ReloadableHost, file: string, before: ToolhostConfig, vet: (next: ToolhostConfig) => ToolhostConfig = (next) => next): ConfigReload {
  let next: ToolhostConfig
  try {
    next = vet(loadConfig({ file, explicit: true }).config)
  } catch (error) {
    const message = `${(error as Error).message}; the config in force is unchanged`
    host.log.error(message)
    return { kind: 'rejected', message }
  }
  const change = diffConfig(before, next)
  if (change.live.length === 0 && change.restart.length === 0) return { kind: 'unchanged' }
  if (change.live.length > 0) {
    host.applyLiveConfig(next)
    const what = change.live.map((key) => `${key} ${liveValue(before, key)} → ${liveValue(next, key)}`).join(', ')
    host.log.info(`${file} reloaded: ${what}; in force for calls not yet started`)
  }
  if (change.restart.length > 0) host.log.warn(`${file}: ${change.restart.join(', ')} changed; ${change.restart.length === 1 ? 'it takes' : 'they take'} effect on restart`)
  return { kind: 'applied', change, next }
}
