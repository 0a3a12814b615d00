import { defineHook } from '../contract/define-hook.js'
import { describeThrown, ToolhostError } from '../contract/errors.js'
import type { PluginHook } from '../contract/hook-types.js'
import { Listeners } from '../contract/listeners.js'

/** A plugin's hook and the file that registered it. */
export interface PluginHookEntry {
  readonly hook: PluginHook
  /** The plugin file, when known. */
  readonly source: string | undefined
}

/**
 * The hooks plugins registered (`registry.register(defineHook(…))`), by file: in the order their
 * files were first loaded (a reloaded file keeps its place, with its new hooks), each file's in the
 * order it registered them. Staged with the file's tools on a reload and removed with the file.
 * `version` moves on every change, so a host rebuilds its hooks in force only then.
 *
 * @example
 * registry.hooks.list() // [{ hook: { kind: 'hook', event: 'before_call', name: 'no-vendor', … }, source: '/w/plugins/guard.ts' }]
 */
export class PluginHooks {
  readonly #bySource = new Map<string | undefined, PluginHookEntry[]>()
  #staging: { source: string; entries: PluginHookEntry[] } | undefined
  #list: PluginHookEntry[] | undefined
  #version = 0
  // A listener's fault must not undo a registration.
  readonly #listeners = new Listeners<void>(() => {})

  get version(): number {
    return this.#version
  }

  /** Adds a hook (checked again, as `defineHook` does); while `source` is being (re)loaded, it waits until the load has succeeded. */
  register(hook: PluginHook, source: string | undefined): void {
    let checked: PluginHook
    try {
      checked = defineHook(hook)
    } catch (error) {
      if (source === undefined) throw error
      throw new ToolhostError('E_SCHEMA_INVALID', `${source}: ${describeThrown(error)}`, { cause: error })
    }
    const entry = { hook: checked, source }
    if (this.#staging !== undefined && this.#staging.source === source) {
      this.#staging.entries.push(entry)
      return
    }
    const list = this.#bySource.get(source)
    if (list) list.push(entry)
    else this.#bySource.set(source, [entry])
    this.#changed()
  }

  /** Holds the registrations of `source` aside until `commitStaged` or `discardStaged` (`ToolRegistry.replaceSource` calls these). */
  stage(source: string): void {
    this.#staging = { source, entries: [] }
  }

  /** Puts the staged hooks in place of the file's current ones, in one step. */
  commitStaged(): void {
    const staging = this.#staging
    if (!staging) return
    this.#staging = undefined
    const had = this.#bySource.has(staging.source)
    if (staging.entries.length > 0) this.#bySource.set(staging.source, staging.entries)
    else this.#bySource.delete(staging.source)
    if (had || staging.entries.length > 0) this.#changed()
  }

  discardStaged(): void {
    this.#staging = undefined
  }

  /** Removes the hooks a plugin file registered. */
  unregisterSource(source: string): void {
    if (this.#bySource.delete(source)) this.#changed()
  }

  hasSource(source: string): boolean {
    return this.#bySource.has(source)
  }

  clear(): void {
    if (this.#bySource.size === 0) return
    this.#bySource.clear()
    this.#changed()
  }

  /** Calls `listener` after every change of the hooks in force; returns its remover. */
  onChange(listener: () => void): () => void {
    return this.#listeners.add(listener)
  }

  /** Every plugin hook in force, in order (see the class). */
  list(): readonly PluginHookEntry[] {
    this.#list ??= [...this.#bySource.values()].flat()
    return this.#list
  }

  #changed(): void {
    this.#version++
    this.#list = undefined
    this.#listeners.emit()
  }
}
