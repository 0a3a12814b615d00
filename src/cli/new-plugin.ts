import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { refuseLinkOut } from './scaffold-target.js'
import { ToolhostError } from '../contract/errors.js'
import type { CliArgs } from './args.js'
import type { Output } from './commands.js'
import { resolveSetup } from '../host/setup.js'
import { isTrusted, readTrust, trustFilePath } from '../loader/trust-store.js'
import { workspaceCodeOf } from '../loader/workspace-code.js'
import { trustWorkspace } from './trust.js'

/** A plugin name: a tool name and a file name at once (lower case, digits, `_`; starts with a letter). */
export const PLUGIN_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/

const TEMPLATES = fileURLToPath(new URL('./templates/', import.meta.url))

/** What the project in `cwd` is written in and tested with, as new-plugin reads it from package.json and tsconfig.json. */
export interface ProjectKind {
  /** TypeScript when the project has a tsconfig.json or depends on typescript; else JavaScript (.mjs). */
  typescript: boolean
  /** vitest when the project depends on it; else Node's own runner (`node --test`). */
  runner: 'vitest' | 'node'
}

/**
 * Reads what a project is written in and tested with: its package.json dependencies (any kind) and
 * a tsconfig.json beside it.
 *
 * @example
 * detectProject('/home/me/app') // { typescript: true, runner: 'vitest' }
 */
export function detectProject(cwd: string): ProjectKind {
  let dependencies: Record<string, unknown> = {}
  try {
    const manifest = JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>
    dependencies = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }
  } catch {
    // No package.json (or not JSON): a plain JavaScript folder.
  }
  return {
    typescript: existsSync(path.join(cwd, 'tsconfig.json')) || Object.hasOwn(dependencies, 'typescript'),
    runner: Object.hasOwn(dependencies, 'vitest') ? 'vitest' : 'node',
  }
}

/** The files a plugin scaffold consists of, with their text, before anything is written. */
export interface PluginFiles {
  plugin: string
  test: string
  runner: ProjectKind['runner']
  texts: Array<{ file: string; text: string }>
}

/**
 * The plugin file and test new-plugin (and init) would write for `name` under `cwd`, from the
 * templates: `plugins/NAME.ts` (`.mjs` in a JavaScript project) and a vitest test
 * (`test/plugins/NAME.test.ts`, or `.test.mjs`) when the project uses vitest, else a `node --test`
 * one (`test/plugins/NAME.test.mjs`). Both import `'toolhost'`, never a path. A bad name throws.
 *
 * @example
 * planPluginFiles('weather', process.cwd()).plugin // '…/plugins/weather.ts'
 */
export function planPluginFiles(name: string, cwd: string, kind: ProjectKind = detectProject(cwd)): PluginFiles {
  if (!PLUGIN_NAME_PATTERN.test(name)) {
    throw new ToolhostError('E_USAGE', `new-plugin: the name must be lower case letters, digits and _ (starting with a letter, at most 64 characters), e.g. "weather_lookup"; got ${JSON.stringify(name)}`)
  }
  const plugin = path.join(cwd, 'plugins', `${name}.${kind.typescript ? 'ts' : 'mjs'}`)
  // Node 20's test runner cannot read TypeScript: its test is JavaScript whatever the plugin is.
  const test = path.join(cwd, 'test', 'plugins', `${name}.test.${kind.runner === 'vitest' && kind.typescript ? 'ts' : 'mjs'}`)
  const fill = (template: string): string =>
    readFileSync(path.join(TEMPLATES, template), 'utf8')
      .replaceAll('__NAME__', name)
      .replaceAll('__FILE__', path.basename(plugin).replace(/\./g, '\\.'))
      .replaceAll('__TEST_FILE__', posix(path.relative(cwd, test)))
      .replaceAll('__PLUGIN_DIR__', posix(path.relative(cwd, path.dirname(plugin))))
  const texts = [
    { file: plugin, text: fill(kind.typescript ? 'plugin.ts.tmpl' : 'plugin.mjs.tmpl') },
    { file: test, text: fill(kind.runner === 'vitest' ? 'plugin.vitest.tmpl' : 'plugin.node-test.tmpl') },
  ]
  return { plugin, test, runner: kind.runner, texts }
}

/**
 * Writes the plugin and its test `planPluginFiles` gives. Never overwrites: every file is checked
 * before any is written.
 *
 * @example
 * writePluginFiles('weather', process.cwd()) // { plugin: '…/plugins/weather.ts', test: '…/test/plugins/weather.test.ts', runner: 'vitest' }
 */
export function writePluginFiles(name: string, cwd: string, kind: ProjectKind = detectProject(cwd)): { plugin: string; test: string; runner: ProjectKind['runner'] } {
  const { plugin, test, runner, texts } = planPluginFiles(name, cwd, kind)
  for (const { file } of texts) {
    refuseLinkOut('new-plugin', cwd, file)
    if (existsSync(file)) throw new ToolhostError('E_USAGE', `new-plugin: ${file} already exists; pick another name or delete the file first`)
  }
  for (const { file, text } of texts) {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, text, { flag: 'wx' })
  }
  return { plugin, test, runner }
}

/** The command that runs a scaffolded plugin's test, from `cwd`. */
export function testCommand(files: { test: string; runner: ProjectKind['runner'] }, cwd: string): string {
  const test = posix(path.relative(cwd, files.test))
  return files.runner === 'vitest' ? `npx vitest run ${test}` : `node --test ${test}`
}

/**
 * `toolhost new-plugin NAME`: writes the plugin and its test under the current folder. In a folder
 * the person trusted, the new plugin is theirs (they asked for it here): the trust follows it, as
 * `init`'s does. In a folder not trusted, it trusts nothing: the folder's other code was never vouched for.
 *
 * @example
 * await newPluginCommand(parseCliArgs(['new-plugin', 'weather']), io) // 0
 */
export async function newPluginCommand(args: CliArgs, io: Output): Promise<number> {
  const [name] = args.positionals
  if (!name) throw new ToolhostError('E_USAGE', 'new-plugin needs a name: toolhost new-plugin NAME')
  const cwd = process.cwd()
  const setup = resolveSetup({ cwd, root: cwd })
  const file = trustFilePath()
  const trusted = isTrusted(readTrust(file).trust, setup.root, (await workspaceCodeOf(setup)).digest)
  const written = writePluginFiles(name, cwd)
  io.out(`wrote ${written.plugin}\nwrote ${written.test}\nnext: edit the schema and handler, then run ${testCommand(written, cwd)}`)
  if (trusted) {
    await trustWorkspace(setup, file, 'toolhost new-plugin')
    io.out(`trusted ${setup.root} again, with ${path.relative(cwd, written.plugin)} (${file})`)
  }
  return 0
}

function posix(p: string): string {
  return p.split(path.sep).join('/')
}
