import { realpathSync } from 'node:fs'
import path from 'node:path'
import type { ToolhostConfig } from '../config/types.js'
import { ToolhostError } from '../contract/errors.js'
import type { ControlPlane } from '../contract/types.js'
import { comparablePath, isWithin, underRoot } from './paths.js'

export type { ControlPlane }

/** What `controlPlaneOf` reads: the host's setup. */
export interface ControlPlaneSource {
  root: string
  config: ToolhostConfig
  /** The config file in force (`--config` or ./config.yaml); undefined for the defaults or an object. */
  configFile: string | undefined
  /** The folder `plugins.dirs` are relative to (the config file's). */
  baseDir: string
  /** Plugin folders named besides config (`--plugins`, `createHost({ plugins })`), absolute. */
  pluginDirs?: readonly string[]
  /** The person's trust file (it may lie inside a root at HOME). */
  trustFile?: string
  /** The host's per-user caches (compiled TypeScript, known schemas): guarded when a root holds them (a root at / or the temp folder). */
  caches?: readonly string[]
}

// Characters that make a rule's pattern a glob rather than one path.
const GLOB = /[*?[\]{}!]/
// Built-in tools whose rules never name a file to write.
const NOT_FILE_WRITERS = new Set(['read_file', 'search_files', 'terminal', 'process'])

/**
 * The control plane of a host.
 *
 * @example
 * controlPlaneOf({ root: '/w', config, configFile: '/w/config.yaml', baseDir: '/w' }).paths // ['/w/config.yaml', '/w/plugins', '/w/.env', '/w/.toolhost', …]
 */
export function controlPlaneOf(source: ControlPlaneSource): ControlPlane {
  const { root, config } = source
  const candidates: string[] = [path.join(root, '.toolhost')]
  if (source.configFile !== undefined) candidates.push(path.resolve(source.configFile))
  for (const dir of config.plugins.dirs) candidates.push(path.resolve(source.baseDir, dir))
  candidates.push(...(source.pluginDirs ?? []))
  if (config.env_file !== '') candidates.push(underRoot(root, config.env_file))
  for (const configured of [config.permissions.audit_log, config.limits.results_dir, config.dispatch.duration_estimates, config.processes.checkpoint, config.processes.dir]) {
    if (typeof configured === 'string' && configured !== '') candidates.push(underRoot(root, configured))
  }
  for (const hook of [...config.hooks.before_call, ...config.hooks.after_call]) {
    for (const script of scriptsOf(hook.command)) candidates.push(path.resolve(root, script))
  }
  if (source.trustFile !== undefined) candidates.push(path.dirname(path.resolve(source.trustFile)))
  candidates.push(...(source.caches ?? []))
  const paths = [...new Set(candidates.flatMap((p) => [p, realOrSelf(p)]))].filter((p) => isWithin(p, root) && p !== root)
  const opened = config.permissions.allow.flatMap((rule) => {
    const match = /^([A-Za-z0-9_.-]+)\((.*)\)$/s.exec(rule.trim())
    const pattern = match?.[2]?.trim()
    // A rule of a tool that writes files names what it may write; one of a reading tool or of the
    // terminal (a command, not a path) opens nothing.
    if (match === null || NOT_FILE_WRITERS.has(match[1]!)) return []
    return pattern !== undefined && pattern !== '' && !GLOB.test(pattern) ? [path.resolve(root, pattern)] : []
  })
  return { paths, opened }
}

/**
 * Throws `E_CONTROL_PLANE` when `canonical` is (or lies in) a path of the control plane and no
 * allow rule opened that exact path.
 *
 * @example
 * refuseControlPlane(plane, '/w/config.yaml', 'config.yaml', false) // throws E_CONTROL_PLANE
 */
export function refuseControlPlane(plane: ControlPlane | undefined, canonical: string, input: string, caseInsensitive: boolean): void {
  if (plane === undefined || plane.paths.length === 0) return
  const target = comparablePath(canonical, caseInsensitive)
  const hit = plane.paths.find((p) => {
    const guarded = comparablePath(p, caseInsensitive)
    return target === guarded || isWithin(target, guarded)
  })
  if (hit === undefined) return
  if (plane.opened.some((p) => comparablePath(p, caseInsensitive) === target)) return
  throw new ToolhostError('E_CONTROL_PLANE', `"${input}" configures or programs this host (${describe(hit)}); file tools never change it, in any permission mode: the person edits it. Leave it as it is and tell the user what change it needs`)
}

function describe(guarded: string): string {
  const name = path.basename(guarded)
  if (name === '.toolhost') return "the host's own state, .toolhost/"
  return `${name}, part of its config, plugins, hooks or state`
}

// The scripts a hook runs: each word of its command that names a file by path (./hooks/x.sh,
// `node hooks/check.mjs`, `bash scripts/lint.sh`), not a program found on PATH (`touch`, `node`)
// or an option. Paths outside the root are dropped by the caller.
function scriptsOf(command: string): string[] {
  return command
    .trim()
    .split(/\s+/)
    .map((word) => word.replace(/^['"]|['"]$/g, ''))
    .filter((word) => word.includes('/') && !word.startsWith('-') && !word.includes('$') && !/^[a-z]+:\/\//i.test(word))
}

function realOrSelf(p: string): string {
  try {
    // A control-plane path reached through a link is the same file: guard both spellings.
    return realpathSync.native(p)
  } catch {
    return p
  }
}
