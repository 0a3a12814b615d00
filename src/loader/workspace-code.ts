import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { ToolhostConfig } from '../config/types.js'
import { isWithin } from '../workspace/paths.js'
import { BUILTIN_PLUGINS_DIR, builtinPluginFiles, duplicatesBuiltins } from './builtin-plugins.js'
import { discoverPlugins } from './load-plugins.js'

/**
 * The code a workspace brings, as its config (or the defaults) would run it: plugin files of its
 * plugin folders, config.yaml's `hooks` commands, its `mcp_servers`, and what it loosens of the
 * permission system (a looser mode, allow rules: the model's commands run unasked). The digest covers every one
 * (each plugin file by its content), so a changed hook or plugin is a different digest, as with
 * `direnv allow`.
 */
export interface WorkspaceCode {
  /** The workspace root (a real path): what trust is kept under. */
  readonly root: string
  /** The config file this code comes from; undefined when the defaults apply. */
  readonly configFile: string | undefined
  /** The plugin folders taken from config (absolute; the package's own folder left out). */
  readonly pluginDirs: readonly string[]
  /** The plugin files those folders hold (absolute), in load order. */
  readonly pluginFiles: readonly string[]
  /** How many `hooks.before_call` and `hooks.after_call` commands config names. */
  readonly hookCommands: number
  /** The names of config's `mcp_servers`. */
  readonly mcpServers: readonly string[]
  /**
   * What config loosens of the permission system, which would let the model run commands of the
   * folder's choosing unasked: `permissions.mode` when it is `accept-edits`, `auto` or `bypass`, and
   * the number of `permissions.allow` rules.
   */
  readonly permissions: { readonly mode?: string; readonly allowRules: number }
  /** sha256 (hex) of all of the above, each plugin file by its content. */
  readonly digest: string
}

/** What `workspaceCodeOf` reads: a resolved setup's config, where it came from, and the root. */
export interface WorkspaceCodeSource {
  config: ToolhostConfig
  file: string | undefined
  baseDir: string
  root: string
}

/**
 * What the workspace would run, and its digest.
 *
 * @example
 * const code = await workspaceCodeOf(setup) // { pluginFiles: ['/repo/plugins/x.mjs'], hookCommands: 1, digest: '3f…' }
 */
export async function workspaceCodeOf(source: WorkspaceCodeSource): Promise<WorkspaceCode> {
  const builtins = builtinPluginFiles(source.config.plugins.builtins)
  const builtinSet = new Set(builtins.map((f) => path.resolve(f)))
  const pluginDirs = source.config.plugins.dirs
    .map((d) => path.resolve(source.baseDir, d))
    .filter((dir) => !duplicatesBuiltins(dir, builtins) && path.relative(BUILTIN_PLUGINS_DIR, dir) !== '')
  const pluginFiles = (await discoverPlugins(pluginDirs)).filter((f) => !builtinSet.has(f))
  const { before_call: before, after_call: after } = source.config.hooks
  const hash = createHash('sha256')
  const part = (value: unknown): void => {
    hash.update(JSON.stringify(value))
    hash.update('\n')
  }
  part({ root: source.root, configFile: source.file ?? null, pluginDirs })
  // Every file of the folders, not only the plugin files: a plugin imports its helpers (./lib.cjs,
  // data files) and a changed helper is changed code.
  for (const file of await filesUnder(pluginDirs)) part([file, contentDigest(file)])
  part(source.config.hooks)
  part(source.config.mcp_servers)
  const permissions = loosenedPermissions(source.config)
  part(permissions.allowRules > 0 || permissions.mode !== undefined ? { mode: permissions.mode ?? null, allow: source.config.permissions.allow } : null)
  return {
    root: source.root,
    configFile: source.file,
    pluginDirs,
    pluginFiles,
    hookCommands: before.length + after.length,
    mcpServers: Object.keys(source.config.mcp_servers),
    permissions,
    digest: hash.digest('hex'),
  }
}

/** Whether a workspace brings no code at all: nothing to trust. */
export function isEmptyCode(code: WorkspaceCode): boolean {
  return code.pluginFiles.length === 0 && code.hookCommands === 0 && code.mcpServers.length === 0 && code.permissions.allowRules === 0 && code.permissions.mode === undefined
}

// Modes that let calls run without asking that `ask` (the default) would ask about.
const LOOSER_MODES: readonly string[] = ['accept-edits', 'auto', 'bypass']

function loosenedPermissions(config: ToolhostConfig): WorkspaceCode['permissions'] {
  const mode = config.permissions.mode
  return { ...(LOOSER_MODES.includes(mode) ? { mode } : {}), allowRules: config.permissions.allow.length }
}

/**
 * Whether the code a config names is the workspace's (so runs only once trusted): the defaults, the
 * config.yaml found in the current folder and any config file inside the root are; a config file
 * the person named (`--config`) outside the root is their own.
 */
export function isWorkspaceConfig(file: string | undefined, root: string, named: boolean): boolean {
  return file === undefined || !named || isWithin(path.resolve(file), root)
}

/** One line naming what was withheld: "2 plugin files (plugins/a.mjs, …), 1 hook command, mcp_servers db". */
export function describeCode(code: WorkspaceCode): string {
  const parts: string[] = []
  if (code.pluginFiles.length > 0) {
    const shown = code.pluginFiles.slice(0, 3).map((f) => path.relative(code.root, f) || f)
    parts.push(`${counted(code.pluginFiles.length, 'plugin file')} (${shown.join(', ')}${code.pluginFiles.length > 3 ? ', …' : ''})`)
  }
  if (code.hookCommands > 0) parts.push(`${counted(code.hookCommands, 'hook command')} of ${code.configFile ?? 'config'}`)
  if (code.mcpServers.length > 0) parts.push(`mcp_servers ${code.mcpServers.join(', ')}`)
  if (code.permissions.mode !== undefined) parts.push(`permissions.mode ${code.permissions.mode}`)
  if (code.permissions.allowRules > 0) parts.push(`${counted(code.permissions.allowRules, 'permissions.allow rule')}`)
  return parts.join(', ')
}

async function filesUnder(dirs: readonly string[]): Promise<string[]> {
  if (dirs.length === 0) return []
  const { default: fg } = await import('fast-glob')
  const files: string[] = []
  for (const dir of dirs) {
    const found = await fg('**/*', { cwd: dir, absolute: true, onlyFiles: true, dot: true, followSymbolicLinks: false, ignore: ['**/node_modules/**', '**/.git/**'], suppressErrors: true })
    files.push(...found.map((f) => path.normalize(f)).sort())
  }
  return files
}

// A file that cannot be read (gone, no permission) hashes as such: loading it would fail too.
function contentDigest(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex')
  } catch (error) {
    return `unreadable: ${(error as NodeJS.ErrnoException).code ?? 'error'}`
  }
}

function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}
