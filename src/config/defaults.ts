import { CONFIG_SCHEMA } from './schema.js'
import type { ToolhostConfig } from './types.js'

export { DEFAULT_DANGEROUS_PATTERNS } from './dangerous-patterns.js'

interface DefaultedNode {
  default?: unknown
  properties?: Record<string, DefaultedNode>
}

/** Every key the host reads, with its default: the `default` of each key in the config schema (a fresh copy each time). */
export function defaultConfig(): ToolhostConfig {
  return defaultsOf(CONFIG_SCHEMA as DefaultedNode) as ToolhostConfig
}

/** A section's defaults are its keys' defaults; a key's is its `default`. */
function defaultsOf(node: DefaultedNode): unknown {
  if (node.properties) return Object.fromEntries(Object.entries(node.properties).map(([key, child]) => [key, defaultsOf(child)]))
  return structuredClone(node.default)
}
