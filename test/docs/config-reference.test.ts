// The config reference stays true mechanically: every key of the closed config schema has its row in
// docs/config.md (with the default defaults.ts gives it) and its line in the annotated config.yaml,
// and no row names a key the schema does not accept.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { DEFAULT_DANGEROUS_PATTERNS, defaultConfig } from '../../src/config/defaults.js'
import { loadConfig } from '../../src/config/load-config.js'
import { CONFIG_SCHEMA } from '../../src/config/schema.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8')

type SchemaNode = { properties?: Record<string, SchemaNode>; additionalProperties?: boolean | SchemaNode }

/**
 * Every key path the schema accepts. A map section (`rate_limits`, `mcp_servers`) is a key itself,
 * and, with `entries`, so is each key of its entries, written with a `<name>` segment.
 */
function schemaKeys(node: SchemaNode, entries: boolean, prefix = ''): string[] {
  const keys: string[] = []
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const key = prefix + name
    if (child.properties) {
      keys.push(...schemaKeys(child, entries, `${key}.`))
      continue
    }
    keys.push(key)
    const entry = child.additionalProperties
    if (entries && typeof entry === 'object' && entry.properties) keys.push(...schemaKeys(entry, entries, `${key}.<name>.`))
  }
  return keys
}

/** Key paths of a plain value (an empty object or a list is a leaf). */
function valueKeys(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([name, child]) =>
    child !== null && typeof child === 'object' && !Array.isArray(child) && Object.keys(child).length > 0
      ? valueKeys(child as Record<string, unknown>, `${prefix}${name}.`)
      : [prefix + name],
  )
}

const valueAt = (key: string): unknown => key.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], defaultConfig())

/** A default as the reference writes it: YAML flow style without quotes (`""` for the empty string). */
function shownDefault(value: unknown): string {
  if (value === '') return '""'
  if (Array.isArray(value)) return `[${value.map(shownDefault).join(', ')}]`
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0 ? '{}' : JSON.stringify(value)
  return String(value)
}

/** docs/config.md's reference rows: `key` → default cell, from every table whose header starts `| key | default |`. */
function referenceRows(markdown: string): Map<string, string> {
  const rows = new Map<string, string>()
  let inTable = false
  for (const line of markdown.split('\n')) {
    if (/^\|\s*key\s*\|\s*default\s*\|/.test(line)) {
      inTable = true
      continue
    }
    if (!line.startsWith('|')) {
      inTable = false
      continue
    }
    if (!inTable || /^\|\s*-+/.test(line)) continue
    const [keyCell = '', defaultCell = ''] = line.split(/(?<!\\)\|/).slice(1).map((c) => c.trim())
    const key = /^`([^`]+)`$/.exec(keyCell)?.[1]
    if (key === undefined) throw new Error(`docs/config.md: a reference row names no single \`key\`: ${line}`)
    if (rows.has(key)) throw new Error(`docs/config.md: ${key} has two rows`)
    rows.set(key, defaultCell.replace(/^`|`$/g, ''))
  }
  return rows
}

/** config.yaml's text for one top-level section: the blank-line-separated block holding `section:`. */
function yamlBlock(text: string, section: string): string | undefined {
  return text.split(/\n\s*\n/).find((block) => new RegExp(`^${section}:`, 'm').test(block))
}

const ALL_KEYS = schemaKeys(CONFIG_SCHEMA as SchemaNode, true)
// Defaults a row may describe in words rather than spell out.
const DESCRIBED_DEFAULTS: Record<string, string> = { 'terminal.dangerous_patterns': 'the built-in list' }

describe('the config reference (docs/config.md) and config.yaml name every key of the schema', () => {
  test('defaults.ts and the schema have the same keys', () => {
    expect(valueKeys(defaultConfig() as unknown as Record<string, unknown>).sort()).toEqual(schemaKeys(CONFIG_SCHEMA as SchemaNode, false).sort())
  })

  test('docs/config.md has one row per key, and no row for a key the schema does not accept', () => {
    const documented = [...referenceRows(read('docs/config.md')).keys()]
    expect(documented.filter((k) => !ALL_KEYS.includes(k)), 'rows for keys the schema does not accept').toEqual([])
    expect(ALL_KEYS.filter((k) => !documented.includes(k)), 'keys without a row').toEqual([])
  })

  test.each(ALL_KEYS.filter((k) => !k.includes('<')))('docs/config.md gives the default of %s', (key) => {
    const cell = referenceRows(read('docs/config.md')).get(key)
    expect(cell).toBe(DESCRIBED_DEFAULTS[key] ?? shownDefault(valueAt(key)))
  })

  test('the described defaults are what they say', () => {
    expect(defaultConfig().terminal.dangerous_patterns).toEqual(DEFAULT_DANGEROUS_PATTERNS)
  })

  test('config.yaml loads to exactly the defaults', () => {
    const { config } = loadConfig({ file: path.join(ROOT, 'config.yaml'), explicit: true, cwd: ROOT })
    expect(config).toEqual(defaultConfig())
  })

  test.each(ALL_KEYS)('config.yaml names %s in its section (as a key, or in a comment)', (key) => {
    const [section = '', ...rest] = key.split('.')
    const block = yamlBlock(read('config.yaml'), section)
    expect(block, `config.yaml has no block for ${section}`).toBeDefined()
    for (const segment of rest.filter((s) => !s.startsWith('<'))) expect(block).toMatch(new RegExp(`\\b${segment}:`))
  })
})
