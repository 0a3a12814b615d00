import { realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { loadConfig, mergeConfig } from '../config/load-config.js'
import type { LoadedConfig, PermissionMode, ToolhostConfig } from '../config/types.js'
import { ToolhostError } from '../contract/errors.js'

export interface ConfigSource {
  /** A config object (validated like config.yaml), or a path to a YAML file. */
  config?: Partial<Record<keyof ToolhostConfig, unknown>> | string
  /** The config file was named explicitly (CLI `--config`): it must exist. */
  configExplicit?: boolean
  /** Workspace root; overrides `workspace.root`. Relative to the process cwd. */
  root?: string
  cwd?: string
  /** How errors name where `root` came from (the CLI says `--root`); default `createHost({ root })`. */
  rootOption?: string
}

export interface ResolvedSetup extends LoadedConfig {
  /** The canonical workspace root. */
  root: string
  maxWorkers: number
  /** Where `maxWorkers` came from: the environment variable wins over config (also on reload). */
  maxWorkersFrom: 'config' | 'TOOLHOST_MAX_WORKERS'
}

/** Loads and validates config, resolves the workspace root and the env override of max_workers. */
export function resolveSetup(source: ConfigSource, env: NodeJS.ProcessEnv = process.env): ResolvedSetup {
  const cwd = source.cwd ?? process.cwd()
  let loaded: LoadedConfig
  if (typeof source.config === 'string' || source.config === undefined) {
    loaded = loadConfig({ file: source.config, explicit: source.configExplicit ?? typeof source.config === 'string', cwd })
  } else {
    loaded = { config: mergeConfig(source.config, 'createHost({ config })'), file: undefined, baseDir: cwd }
  }
  const configured = source.root === undefined
  const rootInput = source.root !== undefined ? path.resolve(cwd, source.root) : path.resolve(loaded.baseDir, loaded.config.workspace.root)
  const where = configured ? `${loaded.file ?? (typeof source.config === 'object' ? 'createHost({ config })' : 'defaults')}: workspace.root` : (source.rootOption ?? 'createHost({ root })')
  let root: string
  try {
    root = realpathSync.native(rootInput)
    if (!statSync(root).isDirectory()) throw new Error('not a folder')
  } catch (error) {
    throw new ToolhostError('E_CONFIG_INVALID', `${where}: the workspace root ${rootInput} must be an existing folder (${(error as Error).message})`)
  }
  let maxWorkers = loaded.config.dispatch.max_workers
  let maxWorkersFrom: ResolvedSetup['maxWorkersFrom'] = 'config'
  const override = env.TOOLHOST_MAX_WORKERS
  if (override !== undefined && override !== '') {
    // Digits only: Number() would also take " 4", "0x10" and "1e1".
    const n = /^\d+$/.test(override) ? Number(override) : Number.NaN
    if (!Number.isInteger(n) || n < 1 || n > 1024) {
      throw new ToolhostError('E_CONFIG_INVALID', `environment: TOOLHOST_MAX_WORKERS must be an integer from 1 to 1024, got ${JSON.stringify(override)}`)
    }
    maxWorkers = n
    maxWorkersFrom = 'TOOLHOST_MAX_WORKERS'
  }
  return { ...loaded, root, maxWorkers, maxWorkersFrom }
}

/**
 * The config with the `permissionMode` and `audit` options of `createHost` in place of config.yaml's
 * `permissions.mode` and `permissions.audit_log` (the options win); the same object when neither is given.
 *
 * @example
 * withPermissionOverrides(config, { permissionMode: 'plan', audit: false }).permissions // { …, mode: 'plan', audit_log: '' }
 */
export function withPermissionOverrides(config: ToolhostConfig, options: { permissionMode?: PermissionMode; audit?: string | false }): ToolhostConfig {
  if (options.permissionMode === undefined && options.audit === undefined) return config
  const permissions = { ...config.permissions }
  if (options.permissionMode !== undefined) permissions.mode = options.permissionMode
  if (options.audit !== undefined) permissions.audit_log = options.audit === false ? '' : options.audit
  return { ...config, permissions }
}

/**
 * Throws `E_CONFIG_INVALID` naming the option when `value` is given and not one of `choices`
 * (JavaScript callers and casts get past the types).
 *
 * @example
 * checkChoice('host.run(calls, { mode })', 'fast', DISPATCH_MODES) // throws: … must be one of graph, …; got "fast"
 */
export function checkChoice(option: string, value: unknown, choices: readonly string[]): void {
  if (value === undefined || choices.includes(value as string)) return
  throw new ToolhostError('E_CONFIG_INVALID', `${option} must be one of ${choices.join(', ')}; got ${JSON.stringify(value)}`)
}
