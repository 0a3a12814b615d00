// The package as a user gets it: a fresh copy of the repository (what a clone holds), installed and
// built there; its `npm pack` tarball; and one consumer install of that tarball whose node_modules
// every user project of the tests shares (one install for the whole file).
import { execFile, execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const REPO = path.resolve(import.meta.dirname, '../..')

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

export interface PackedFile {
  path: string
  size: number
}

export interface PackageKit {
  work: string
  /** The fresh copy of the repository, after `npm install` (which builds it) and `npm pack`. */
  clone: string
  /** dist/ was there right after `npm install`, before `npm pack` (whose prepack builds too). */
  builtByInstall: boolean
  tarball: string
  files: PackedFile[]
  /** Bytes of the .tgz. */
  size: number
  /** A user project with the tarball installed (and @types/node, and the framework adapters' peers). */
  consumer: string
  /** A new user project folder sharing the consumer's node_modules, with this package.json. */
  project(name: string, manifest?: Record<string, unknown>): string
  remove(): void
}

/**
 * The environment for npm and node children: the outer `npm test`'s npm_* settings (its prefix, the
 * lifecycle event) and vitest's own variables must not leak into a nested npm or vitest; the test
 * run's trust file does (TOOLHOST_TRUST_FILE).
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    // TOOLHOST_TRUST_FILE stays: without it the installed CLI read and wrote the real user's trust
    // file (~/.config/toolhost/trust.json; init trusts what it writes), and the folders of this
    // run were not trusted (vitest.config.ts's file trusts the temp folder).
    if (/^(VITEST|TOOLHOST_|NODE_OPTIONS$|npm_)/i.test(name) && !/^npm_config_(cache|registry|userconfig)$/i.test(name) && name !== 'TOOLHOST_TRUST_FILE') continue
    env[name] = value
  }
  return { ...env, NO_COLOR: '1', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false', ...extra }
}

/** Runs a command (no shell unless `sh -c`), resolving with its exit code and output. */
export function run(command: string, args: readonly string[], cwd: string, options: { env?: Record<string, string>; timeoutMs?: number; input?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(command, [...args], { cwd, env: childEnv(options.env), timeout: options.timeoutMs ?? 300_000, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0
      resolve({ code, stdout, stderr })
    })
    child.stdin?.end(options.input ?? '')
  })
}

/** Throws with the output when a set-up step fails. */
export async function mustRun(command: string, args: readonly string[], cwd: string): Promise<Run> {
  const result = await run(command, args, cwd, { timeoutMs: 600_000 })
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`)
  return result
}

/** The optional peer dependencies the framework adapters need, installed in the consumer. */
export const FRAMEWORK_PEERS = ['ai', '@openai/agents', 'zod'] as const

function repoVersion(name: string): string {
  return (JSON.parse(readFileSync(path.join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
}

/** Builds the kit: copy, install (prepare builds), pack, install the tarball into a consumer. */
export async function preparePackage(): Promise<PackageKit> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'toolhost-package-'))
  const clone = path.join(work, 'clone')
  // What a clone holds: the tracked files, plus files not yet committed that git would take.
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' }).split('\0').filter(Boolean)
  for (const file of listed) {
    if (!existsSync(path.join(REPO, file))) continue
    mkdirSync(path.dirname(path.join(clone, file)), { recursive: true })
    cpSync(path.join(REPO, file), path.join(clone, file))
  }
  await mustRun('npm', ['install', '--prefer-offline'], clone)
  const builtByInstall = existsSync(path.join(clone, 'dist/src/index.js'))
  // With its scripts, as `npm publish` packs: prepack builds and strips the repository's scripts
  // from the packed package.json, postpack restores it. Their output comes first on stdout.
  const packed = await mustRun('npm', ['pack', '--json', '--pack-destination', work], clone)
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[/m))) as Array<{ filename: string; size: number; files: PackedFile[] }>
  const tarball = path.join(work, info!.filename)
  const consumer = path.join(work, 'consumer')
  mkdirSync(consumer)
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2))
  // The optional peers of toolhost/ai-sdk and toolhost/openai-agents join the same install (a few
  // seconds more, from the cache this repository's install filled), at the versions the repository tests.
  const peers = ['@types/node', ...FRAMEWORK_PEERS].map((name) => `${name}@${repoVersion(name)}`)
  await mustRun('npm', ['install', '--prefer-offline', tarball, ...peers], consumer)
  return {
    work,
    clone,
    builtByInstall,
    tarball,
    files: info!.files,
    size: info!.size,
    consumer,
    project(name, manifest = { name, private: true, type: 'module' }) {
      const dir = path.join(work, name)
      mkdirSync(dir)
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2))
      symlinkSync(path.join(consumer, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
      return dir
    },
    remove: () => rmSync(work, { recursive: true, force: true }),
  }
}

/** The flags of a strict TypeScript consumer (issue 11, item 2). */
export const STRICT_FLAGS = {
  target: 'ES2022',
  lib: ['ES2023'],
  strict: true,
  exactOptionalPropertyTypes: true,
  noPropertyAccessFromIndexSignature: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
  types: ['node'],
}

/** tsc (this repository's) on a tsconfig written into `dir`. */
export async function typeCheck(dir: string, name: string, compilerOptions: Record<string, unknown>, files: { files?: string[]; include?: string[] }): Promise<Run> {
  writeFileSync(path.join(dir, name), JSON.stringify({ compilerOptions: { ...STRICT_FLAGS, ...compilerOptions }, ...files }, null, 2))
  return run(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', name], dir)
}

// Records every module the ESM loader resolves, so a test can say what a program loaded.
const TRACE_LOADS = `import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(\`import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(process.env.TRACE_LOADS, result.url + '\\\\n')
  return result
}\`))
`

/** Runs `node SCRIPT` in `dir` (with `env` added), with the URL of every module it loaded. */
export async function runTraced(dir: string, script: string, env: Record<string, string> = {}): Promise<Run & { loaded: string[] }> {
  writeFileSync(path.join(dir, 'trace-loads.mjs'), TRACE_LOADS)
  const log = path.join(dir, `loads-${script}.txt`)
  rmSync(log, { force: true })
  const result = await run(process.execPath, ['--import', './trace-loads.mjs', script], dir, { env: { ...env, TRACE_LOADS: log } })
  return { ...result, loaded: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [] }
}
