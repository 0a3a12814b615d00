import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ToolhostError } from '../errors.js'
import type { CliArgs } from './args.js'
import type { Output } from './commands.js'

/** A plugin name: a tool name and a file name at once (lower case, digits, `_`; starts with a letter). */
export const PLUGIN_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/

const TEMPLATES = fileURLToPath(new URL('../../templates/', import.meta.url))

/**
 * Writes `plugins/NAME.ts` and `test/plugins/NAME.test.ts` under `cwd` from the templates. Refuses
 * a bad name and never overwrites: both files are checked before either is written.
 *
 * @example
 * writePluginFiles('weather', process.cwd()) // { plugin: '…/plugins/weather.ts', test: '…/test/plugins/weather.test.ts' }
 */
export function writePluginFiles(name: string, cwd: string): { plugin: string; test: string } {
  if (!PLUGIN_NAME_PATTERN.test(name)) {
    throw new ToolhostError('E_USAGE', `new-plugin: the name must be lower case letters, digits and _ (starting with a letter, at most 64 characters), e.g. "weather_lookup"; got ${JSON.stringify(name)}`)
  }
  const plugin = path.join(cwd, 'plugins', `${name}.ts`)
  const test = path.join(cwd, 'test', 'plugins', `${name}.test.ts`)
  const pluginDir = path.dirname(plugin)
  const fill = (template: string, file: string): string =>
    readFileSync(path.join(TEMPLATES, template), 'utf8')
      .replaceAll('__NAME__', name)
      .replaceAll('__INDEX__', posix(path.relative(path.dirname(file), fileURLToPath(new URL('../index.js', import.meta.url)))))
      .replaceAll('__PLUGIN_DIR__', posix(path.relative(cwd, pluginDir)) || '.')
  const texts = [
    { file: plugin, text: fill('plugin.ts.tmpl', plugin) },
    { file: test, text: fill('plugin.test.ts.tmpl', test) },
  ]
  for (const { file } of texts) {
    try {
      readFileSync(file)
      throw new ToolhostError('E_USAGE', `new-plugin: ${file} already exists; pick another name or delete the file first`)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  for (const { file, text } of texts) {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, text, { flag: 'wx' })
  }
  return { plugin, test }
}

/**
 * `toolhost new-plugin NAME`: writes the plugin and its test under the current folder.
 *
 * @example
 * newPluginCommand(parseCliArgs(['new-plugin', 'weather']), io) // 0
 */
export function newPluginCommand(args: CliArgs, io: Output): number {
  const [name] = args.positionals
  if (!name) throw new ToolhostError('E_USAGE', 'new-plugin needs a name: toolhost new-plugin NAME')
  const written = writePluginFiles(name, process.cwd())
  io.out(`wrote ${written.plugin}\nwrote ${written.test}\nnext: edit the schema and handler, then run npx vitest run ${path.relative(process.cwd(), written.test)}`)
  return 0
}

function posix(p: string): string {
  const s = p.split(path.sep).join('/')
  return s.startsWith('.') ? s : `./${s}`
}
