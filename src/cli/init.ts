import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { CliArgs } from './args.js'
import type { Output } from './commands.js'
import { planPluginFiles, testCommand } from './new-plugin.js'
import { packageRoot } from './package-info.js'
import { trustWorkspace } from './trust.js'
import { refuseLinkOut } from './scaffold-target.js'
import { trustFilePath } from '../loader/trust-store.js'
import { workspaceCodeOf } from '../loader/workspace-code.js'
import { resolveSetup } from '../host/setup.js'

/** The example plugin `init` writes (a tool of this name is no built-in one). */
export const EXAMPLE_PLUGIN = 'hello'

/** What `init` did with each file: written, extended, or left alone and why. */
export interface InitStep {
  file: string
  done: 'wrote' | 'added' | 'skipped'
  note: string
}

/**
 * Starts a toolhost project in `cwd`: a commented config.yaml (every key at its default, with what
 * it does), `plugins/` with one example plugin and its test (for the project's runner, as
 * new-plugin writes them), and `.toolhost/` (the host's own state) in `.gitignore`. Never
 * overwrites: a file that exists is left as it is and reported skipped; `.gitignore` only gains a
 * line. Never writes through a link leading out of `cwd` or to nothing (`E_PATH_OUTSIDE_ROOT`).
 *
 * @example
 * initProject('/home/me/app') // [{ file: '/home/me/app/config.yaml', done: 'wrote', … }, …]
 */
export function initProject(cwd: string): InitStep[] {
  const steps: InitStep[] = []
  const config = path.join(cwd, 'config.yaml')
  // Every target checked before anything is written: a link out (or to nothing) stops init whole.
  for (const file of [config, ...planPluginFiles(EXAMPLE_PLUGIN, cwd).texts.map((t) => t.file), path.join(cwd, '.gitignore')]) refuseLinkOut('init', cwd, file)
  if (existsSync(config)) {
    steps.push({ file: config, done: 'skipped', note: 'it exists; left as it is' })
  } else {
    writeFileSync(config, configTemplate(), { flag: 'wx' })
    steps.push({ file: config, done: 'wrote', note: 'every key at its default, with what it does' })
  }
  const example = planPluginFiles(EXAMPLE_PLUGIN, cwd)
  const taken = example.texts.filter(({ file }) => existsSync(file))
  if (taken.length > 0) {
    // The plugin and its test go together: one without the other would be a test of nothing.
    for (const { file } of example.texts) steps.push({ file, done: 'skipped', note: taken.some((t) => t.file === file) ? 'it exists; left as it is' : `not written: ${path.relative(cwd, taken[0]!.file)} exists` })
  } else {
    for (const { file, text } of example.texts) {
      mkdirSync(path.dirname(file), { recursive: true })
      writeFileSync(file, text, { flag: 'wx' })
      steps.push({ file, done: 'wrote', note: file === example.plugin ? `an example tool, ${EXAMPLE_PLUGIN}` : `its test: ${testCommand(example, cwd)}` })
    }
  }
  steps.push(ignoreStateFolder(path.join(cwd, '.gitignore')))
  return steps
}

// The package's own config.yaml (shipped with it, kept equal to the config schema by the docs tests).
function configTemplate(): string {
  const text = readFileSync(path.join(packageRoot(), 'config.yaml'), 'utf8')
  return `# Written by \`toolhost init\`. Change what you need; a key left at its default can also be deleted.\n${text}`
}

function ignoreStateFolder(gitignore: string): InitStep {
  if (!existsSync(gitignore)) {
    writeFileSync(gitignore, STATE_LINES.join('\n') + '\n', { flag: 'wx' })
    return { file: gitignore, done: 'wrote', note: '.toolhost/ (the host\'s own state) is not committed' }
  }
  const text = readFileSync(gitignore, 'utf8')
  if (text.split(/\r?\n/).some((line) => /^\/?\.toolhost(\/(\*\*?)?)?\s*$/.test(line))) return { file: gitignore, done: 'skipped', note: 'it already ignores .toolhost/' }
  appendFileSync(gitignore, `${text === '' || text.endsWith('\n') ? '' : '\n'}${STATE_LINES.join('\n')}\n`)
  return { file: gitignore, done: 'added', note: '.toolhost/ (the host\'s own state) is not committed' }
}

const STATE_LINES = ["# toolhost's own state: audit log, saved results, process logs, checkpoints", '.toolhost/']

/**
 * `toolhost init`: sets up the current folder and says what it wrote and what it left alone.
 *
 * @example
 * await initCommand(parseCliArgs(['init']), io) // 0; prints "wrote config.yaml …"
 */
export async function initCommand(_args: CliArgs, io: Output): Promise<number> {
  const cwd = process.cwd()
  const steps = initProject(cwd)
  for (const step of steps) io.out(`${step.done.padEnd(7)} ${path.relative(cwd, step.file)}: ${step.note}`)
  const skipped = steps.filter((s) => s.done === 'skipped').length
  if (skipped > 0) io.out(`(init never overwrites: ${skipped} file${skipped === 1 ? '' : 's'} left as ${skipped === 1 ? 'it was' : 'they were'})`)
  // The person asked for this project here: what init set up runs without a separate toolhost trust.
  // Only what init wrote: code the folder held before (its own config.yaml, plugin files) is not
  // vouched for by init, and waits for toolhost trust.
  const setup = resolveSetup({ cwd, root: cwd })
  const code = await workspaceCodeOf(setup)
  const wrote = new Set(steps.filter((s) => s.done === 'wrote').map((s) => s.file))
  const before = code.pluginFiles.filter((f) => !wrote.has(f))
  if (wrote.has(path.join(cwd, 'config.yaml')) && before.length === 0) {
    const file = trustFilePath()
    await trustWorkspace(setup, file, 'toolhost init')
    io.out(`trusted ${cwd} to run the plugins init wrote (a change to them needs toolhost trust again; toolhost trust --revoke undoes it; ${file})`)
  } else {
    io.out(`not trusted: ${before.length > 0 ? `${before.map((f) => path.relative(cwd, f)).join(', ')} ${before.length === 1 ? 'was' : 'were'} here before init` : 'config.yaml was here before init'}; read what this folder runs, then toolhost trust`)
  }
  io.out(`next: npx toolhost list, then npx toolhost call ${EXAMPLE_PLUGIN} '{"text":"hi"}'`)
  return 0
}
