import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import type { TerminalSandbox } from '../config/types.js'
import { ToolhostError } from '../contract/errors.js'

/**
 * The bubblewrap sandbox for `terminal` commands: the workspace root is the only writable place
 * (the host's own state folders inside it stay read-only), the rest of the file system is mounted
 * read-only, `/tmp` is a private tmpfs, `/proc` and `/dev` are minimal, the command sees only its
 * own processes (a pid namespace), and there is no network unless `terminal.network` is true.
 */
export interface SandboxPlan {
  kind: 'bwrap'
  /** Absolute path of the bwrap executable. */
  bwrap: string
  /** Writable inside the sandbox (the canonical workspace root). */
  writable: string
  /** Folders inside `writable` that stay read-only (the host's checkpoint and log folders). */
  readOnly: string[]
  network: boolean
}

/** What the host decided about the sandbox, for `doctor` and the process registry. */
export interface SandboxDecision {
  plan: SandboxPlan | undefined
  /** One line: whether the sandbox is on, and why not when it is off. */
  status: string
}

const probes = new Map<string, string | undefined>()

/**
 * Why bwrap cannot run here (not installed, or the kernel refuses the namespaces it needs), or
 * undefined when it can. Asked once per process and bwrap path.
 *
 * @example
 * bwrapProblem() // undefined where `bwrap` works; else e.g. 'bwrap is not installed (no bwrap on PATH)'
 */
export function bwrapProblem(bwrap = findBwrap()): string | undefined {
  if (bwrap === undefined) return 'bwrap is not installed (no bwrap on PATH; Debian/Ubuntu: apt-get install bubblewrap)'
  if (probes.has(bwrap)) return probes.get(bwrap)
  const probe = spawnSync(bwrap, [...baseArgs(), '--unshare-net', '--', '/bin/sh', '-c', 'exit 0'], { encoding: 'utf8', timeout: 10_000 })
  const problem = probe.status === 0 ? undefined : `bwrap cannot run here: ${(probe.error?.message ?? probe.stderr.trim()) || `exit status ${probe.status}`} (the kernel may refuse user namespaces)`
  probes.set(bwrap, problem)
  return problem
}

/**
 * Decides the sandbox for a host: `off`; `bwrap` (start-up fails with E_CONFIG_INVALID naming the
 * key when bwrap cannot run); `auto` (bwrap where it can run, else off, and `status` says why).
 *
 * @example
 * decideSandbox({ sandbox: 'auto', network: false }, { root: '/ws', readOnly: ['/ws/.toolhost'], where: 'config.yaml' }).status
 */
export function decideSandbox(setting: { sandbox: TerminalSandbox; network: boolean }, at: { root: string; readOnly: string[]; where: string }): SandboxDecision {
  if (setting.sandbox === 'off') return { plan: undefined, status: 'off (terminal.sandbox: off): commands run with the host user\'s full access' }
  const bwrap = findBwrap()
  const problem = bwrapProblem(bwrap)
  if (problem !== undefined || bwrap === undefined) {
    if (setting.sandbox === 'bwrap') throw new ToolhostError('E_CONFIG_INVALID', `${at.where}: key \`terminal.sandbox\` is bwrap, but ${problem}; install bubblewrap, or set terminal.sandbox to auto or off`)
    return { plan: undefined, status: `off: terminal.sandbox is auto and ${problem}` }
  }
  const inside = (folder: string): boolean => folder !== at.root && folder.startsWith(at.root.endsWith(path.sep) ? at.root : at.root + path.sep)
  const plan: SandboxPlan = { kind: 'bwrap', bwrap, writable: at.root, readOnly: outermost(at.readOnly.filter(inside)), network: setting.network }
  return { plan, status: `bwrap (${bwrap}): only ${at.root} is writable, network ${setting.network ? 'on (terminal.network: true)' : 'off'}` }
}

/**
 * The read-only paths without those inside another of them: a folder's mount covers what it holds,
 * and a file mounted on its own fails the sandbox's start when the host replaces it at that moment
 * (`.toolhost/processes.json` is rewritten by rename as a command starts: bwrap's remount then
 * fails with EINVAL). Sorted, so a folder comes before what it holds.
 */
function outermost(paths: readonly string[]): string[] {
  const kept: string[] = []
  for (const p of [...new Set(paths)].sort()) {
    if (!kept.some((k) => p === k || p.startsWith(k.endsWith(path.sep) ? k : k + path.sep))) kept.push(p)
  }
  return kept
}

/**
 * The argv that runs `/bin/sh -c command` in the sandbox with working folder `cwd`. A foreground
 * command dies with the host (`--die-with-parent`); a background one outlives it, to be adopted.
 *
 * @example
 * sandboxArgv(plan, 'make test', '/ws/src', { background: false }) // ['--ro-bind', '/', '/', …, '/bin/sh', '-c', 'make test']
 */
export function sandboxArgv(plan: SandboxPlan, command: string, cwd: string, options: { background: boolean }): string[] {
  const args = baseArgs()
  if (!plan.network) args.push('--unshare-net')
  if (!options.background) args.push('--die-with-parent')
  args.push('--bind', plan.writable, plan.writable)
  // Bound after the root, so these folders stay read-only inside a writable root; a folder that does
  // not exist yet has nothing to protect (bwrap cannot bind a missing source).
  for (const folder of plan.readOnly) if (existsSync(folder)) args.push('--ro-bind', folder, folder)
  args.push('--chdir', cwd, '--', '/bin/sh', '-c', command)
  return args
}

// No --new-session: commands already run in a session of their own (setsid) with no controlling
// terminal, and staying in it keeps every process of the sandbox in the group the host signals.
function baseArgs(): string[] {
  return ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-pid', '--unshare-ipc', '--unshare-uts']
}

/** The bwrap executable on PATH, if any. */
export function findBwrap(): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, 'bwrap')
    if (existsSync(candidate)) return candidate
  }
  return undefined
}
