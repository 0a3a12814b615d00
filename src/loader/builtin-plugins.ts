import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { BUILTIN_TOOLSETS } from '../config/builtin-toolsets.js'

// Built, this file is dist/src/loader/builtin-plugins.js and the built-in plugins are the compiled
// dist/plugins/*.js; in development it is src/loader/builtin-plugins.ts beside plugins/*.ts.
const OWN_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js'

/** The folder of the package's own plugins (dist/plugins when installed, plugins/ in development). */
export const BUILTIN_PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url))

// Built, the sources of the built-in plugins are ../../../plugins (the repository's plugins/, absent
// from an installed package).
const BUILTIN_SOURCES_DIR = OWN_EXTENSION === '.js' ? fileURLToPath(new URL('../../../plugins/', import.meta.url)) : undefined

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

/**
 * Whether a plugin folder holds the sources of built-in plugins that are loaded compiled: the
 * repository's plugins/ when the built CLI runs inside the repository. Loading it too would register
 * every built-in tool twice. (From the sources, the built-in files are the folder's own files, and
 * the loader never imports a file twice.)
 */
export function duplicatesBuiltins(dir: string, builtinFiles: readonly string[]): boolean {
  return BUILTIN_SOURCES_DIR !== undefined && builtinFiles.length > 0 && path.relative(BUILTIN_SOURCES_DIR, path.resolve(dir)) === ''
}
