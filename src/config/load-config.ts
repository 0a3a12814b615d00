import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { ToolhostError } from '../contract/errors.js'
import type { ValidateFunction } from 'ajv'
import { createAjv, describeSchemaErrors } from '../registry/schema.js'
import { defaultConfig } from './defaults.js'
import { CONFIG_SCHEMA } from './schema.js'
import type { LoadedConfig, ToolhostConfig } from './types.js'

// yaml and the config validator load only when there is a config to read: a host on the defaults
// (no config.yaml, no config object) starts without either.
const lazyRequire = createRequire(import.meta.url)
let validateConfig: ValidateFunction | undefined

/**
 * Reads, validates and merges config.yaml with the defaults. A missing default file means defaults;
 * a file named explicitly must exist. Any fault throws `E_CONFIG_INVALID` naming the file and key.
 *
 * @example
 * const { config } = loadConfig({ file: 'config.yaml' })
 */
export function loadConfig(options: { file?: string; explicit?: boolean; cwd?: string } = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd()
  const file = path.resolve(cwd, options.file ?? 'config.yaml')
  if (!existsSync(file)) {
    // A link to nothing is not "no config": the defaults in its place would be a silent surprise.
    const dangling = danglingLinkTarget(file)
    if (dangling !== undefined) throw new ToolhostError('E_CONFIG_INVALID', `${file}: the config file is a symbolic link to ${dangling}, which does not exist; point the link at a config file, or remove it to run on the defaults`)
    if (options.explicit) throw new ToolhostError('E_CONFIG_INVALID', `${file}: config file not found`)
    return { config: defaultConfig(), file: undefined, baseDir: cwd }
  }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new ToolhostError('E_CONFIG_INVALID', `${file}: cannot read: ${(error as Error).message}`, { cause: error })
  }
  return { config: parseConfigText(text, file), file, baseDir: path.dirname(file) }
}

function danglingLinkTarget(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : undefined
  } catch {
    return undefined
  }
}

/** Parses and validates config text; `source` names it in errors. Exported for tests and embedding. */
export function parseConfigText(text: string, source: string): ToolhostConfig {
  // prettyErrors fills `linePos`; without it a YAML error would not say where it is.
  const { parseDocument } = lazyRequire('yaml') as typeof import('yaml')
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true })
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!
    const line = first.linePos?.[0]
    const what = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')
    throw new ToolhostError(
      'E_CONFIG_INVALID',
      `${source}${line ? `:${line.line}:${line.col}` : ''}: not valid YAML: ${what}`,
    )
  }
  const raw: unknown = doc.toJS() ?? {}
  return mergeConfig(raw, source)
}

/** Validates a config object (from YAML or an embedding caller) and merges it over the defaults. */
export function mergeConfig(raw: unknown, source: string): ToolhostConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ToolhostError('E_CONFIG_INVALID', `${source}: the top level must be a mapping of sections (workspace:, dispatch:, …)`)
  }
  // A section written with all its keys commented out (`dispatch:`) is null in YAML: treat it as empty.
  raw = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null))
  if (Object.keys(raw as object).length === 0) return defaultConfig()
  validateConfig ??= compileConfigSchema()
  if (!validateConfig(raw)) {
    const problems = (validateConfig.errors ?? []).map((error) => describeConfigError(error, raw))
    throw new ToolhostError('E_CONFIG_INVALID', `${source}: ${[...new Set(problems)].join('; ')}`)
  }
  return deepMerge(defaultConfig(), raw) as ToolhostConfig
}

/** The config validator: the schema's own annotation `x-live` (live-config.ts) declared, as ajv's strict mode asks. */
function compileConfigSchema(): ValidateFunction {
  const ajv = createAjv()
  ajv.addKeyword({ keyword: 'x-live', schemaType: 'boolean' })
  return ajv.compile(CONFIG_SCHEMA)
}

function describeConfigError(error: { instancePath: string; schemaPath: string; keyword: string; params: Record<string, unknown>; message?: string }, raw: unknown): string {
  const keyPath = error.instancePath.split('/').slice(1).join('.')
  if (error.keyword === 'additionalProperties') {
    const key = [keyPath, String(error.params.additionalProperty)].filter(Boolean).join('.')
    const accepted = acceptedKeys(error.schemaPath)
    return `unknown key \`${key}\`${accepted.length > 0 ? ` (accepted here: ${accepted.join(', ')})` : ''}`
  }
  const [line] = describeSchemaErrors([error as never], raw)
  return `key \`${keyPath || '(top level)'}\`: ${line?.replace(/^`[^`]*` /, '') ?? error.message}`
}

/** The keys the schema accepts at the object whose `additionalProperties` failed. */
function acceptedKeys(schemaPath: string): string[] {
  let node: unknown = CONFIG_SCHEMA
  for (const part of schemaPath.replace(/^#\//, '').split('/').slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return []
    node = (node as Record<string, unknown>)[part]
  }
  const properties = (node as { properties?: Record<string, unknown> } | null)?.properties
  return properties ? Object.keys(properties) : []
}

function deepMerge(base: unknown, over: unknown): unknown {
  if (isPlainObject(base) && isPlainObject(over)) {
    const out: Record<string, unknown> = { ...base }
    for (const [key, value] of Object.entries(over)) out[key] = key in base ? deepMerge(base[key], value) : value
    return out
  }
  return over === undefined || over === null ? base : over
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
