import path from 'node:path'
import { fileURLToPath } from 'node:url'

// Built, this file is dist/src/loader/builtin-plugins.js and the built-in plugins are the compiled
// dist/plugins/*.js; in development it is src/loader/builtin-plugins.ts beside plugins/*.ts.
const OWN_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js'

/** The folder of the package's own plugins (dist/plugins when installed, plugins/ in development). */
export const BUILTIN_PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url))

/**
 * The folder of the package's plugin sources. A user plugin folder that is this one (running the
 * built CLI inside the toolhost repository) is the built-ins again, so it is never loaded as a user folder.
 */
export const BUILTIN_SOURCES_DIR = fileURLToPath(new URL(OWN_EXTENSION === '.ts' ? '../../plugins/' : '../../../plugins/', import.meta.url))

/** Each built-in toolset and the plugin files (names without extension) that register it. */
export const BUILTIN_TOOLSETS: Readonly<Record<string, readonly string[]>> = {
  basics: ['basics'],
  files: ['files', 'search'],
  interaction: ['clarify'],
  notify: ['webhook'],
  terminal: ['terminal'],
  web: ['web-search'],
}

/**
 * The built-in plugin files to load for `plugins.builtins`: every one (`true`), none (`false`), or
 * those registering the toolsets named (names are checked by the config schema).
 *
 * @example
 * builtinPluginFiles(['basics', 'files']) // ['…/plugins/basics.js', '…/plugins/files.js', '…/plugins/search.js']
 */
export function builtinPluginFiles(setting: boolean | readonly string[]): string[] {
  if (setting === false) return []
  const toolsets = setting === true ? Object.keys(BUILTIN_TOOLSETS) : setting
  const names = [...new Set(toolsets.flatMap((toolset) => BUILTIN_TOOLSETS[toolset] ?? []))].sort()
  return names.map((name) => path.join(BUILTIN_PLUGINS_DIR, name + OWN_EXTENSION))
}

/** Whether a plugin folder is the package's own plugins folder (source or built). */
export function isBuiltinDir(dir: string): boolean {
  const resolved = path.resolve(dir)
  return [BUILTIN_PLUGINS_DIR, BUILTIN_SOURCES_DIR].some((builtin) => path.relative(builtin, resolved) === '')
}
