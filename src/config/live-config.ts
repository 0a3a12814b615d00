import { isDeepStrictEqual } from 'node:util'
import { CONFIG_SCHEMA } from './schema.js'
import type { LiveKey, ToolhostConfig } from './types.js'

interface LiveNode {
  'x-live'?: boolean
  properties?: Record<string, LiveNode>
}

/**
 * The key paths marked `x-live: true` in a config schema, in schema order (a marked section is one
 * key: `hooks`).
 *
 * @example
 * liveKeysOf(CONFIG_SCHEMA) // ['dispatch.max_workers', 'dispatch.timeout_ms', …, 'hooks']
 */
export function liveKeysOf(node: LiveNode, prefix = ''): string[] {
  return Object.entries(node.properties ?? {}).flatMap(([key, child]) =>
    child['x-live'] ? [prefix + key] : liveKeysOf(child, `${prefix}${key}.`),
  )
}

/**
 * The keys a running host takes from a changed config.yaml without a restart (`x-live` in the
 * schema). They are read when a call starts (its worker, its rate slot, its timeout), so a change
 * applies to calls not yet started and never to one already running. Every other key needs a restart.
 */
export const LIVE_KEYS = liveKeysOf(CONFIG_SCHEMA as LiveNode) as readonly LiveKey[]

export type { LiveKey }

/** What differs between two loaded configs: the live keys, and the keys that need a restart. */
export interface ConfigChange {
  live: LiveKey[]
  restart: string[]
}

/**
 * Compares two configs key by key (two levels deep, as config.yaml is organised).
 *
 * @example
 * diffConfig(before, after) // { live: ['dispatch.max_workers'], restart: ['permissions.mode'] }
 */
export function diffConfig(before: ToolhostConfig, after: ToolhostConfig): ConfigChange {
  const live: LiveKey[] = []
  const restart: string[] = []
  const live2 = new Set<string>(LIVE_KEYS)
  for (const section of Object.keys(after) as Array<keyof ToolhostConfig>) {
    const a = before[section] as unknown
    const b = after[section] as unknown
    if (isDeepStrictEqual(a, b)) continue
    if (live2.has(section)) {
      live.push(section as LiveKey)
      continue
    }
    if (!isRecord(a) || !isRecord(b) || section === 'mcp_servers') {
      restart.push(section)
      continue
    }
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (isDeepStrictEqual(a[key], b[key])) continue
      const name = `${section}.${key}`
      if (live2.has(name)) live.push(name as LiveKey)
      else restart.push(name)
    }
  }
  return { live, restart }
}

/**
 * `current` with the live keys taken from `next` (a new object; `current` is not changed, so a call
 * that already read its config keeps what it read).
 *
 * @example
 * const inForce = withLiveKeys(inForce, reloaded)
 */
export function withLiveKeys(current: ToolhostConfig, next: ToolhostConfig): ToolhostConfig {
  const merged = { ...current } as unknown as Record<string, Record<string, unknown>>
  for (const key of LIVE_KEYS) {
    const [section, name] = key.split('.') as [keyof ToolhostConfig, string | undefined]
    if (name === undefined) merged[section] = next[section] as never
    else merged[section] = { ...merged[section], [name]: (next[section] as unknown as Record<string, unknown>)[name] }
  }
  return merged as unknown as ToolhostConfig
}

/**
 * One live key's value, for log lines ("dispatch.max_workers 8 → 2").
 *
 * @example
 * liveValue(config, 'dispatch.max_workers') // '8'
 */
export function liveValue(config: ToolhostConfig, key: LiveKey): string {
  const [section, name] = key.split('.') as [keyof ToolhostConfig, string | undefined]
  const value = name === undefined ? config[section] : (config[section] as unknown as Record<string, unknown>)[name]
  return JSON.stringify(value)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
