import type { ProcessContainment } from '../config/types.js'
import { bwrapProblem, findBwrap, sandboxArgv, type SandboxPlan } from './sandbox.js'

/**
 * How every process a command starts is kept with it, so a kill or the host's close reaches even
 * those that left its process group (`setsid`, a double fork): a PID namespace of its own through
 * bubblewrap (the command's processes cannot leave it; when its last process ends, or the namespace's
 * first process is killed, the kernel ends every process in it). The file sandbox
 * (`terminal.sandbox`) has one already; without it, bwrap runs the command with the whole file
 * system as it is, only the PID namespace new. Where bwrap cannot run, nothing contains them: a
 * process that leaves the group is not tracked, killed or stopped by close (docs/processes.md).
 */
export type ContainmentPlan = { kind: 'pid-namespace'; bwrap: string } | { kind: 'none' }

/** What the host decided about containment, for `doctor` and the process registry. */
export interface ContainmentDecision {
  /** What `ManagedProcess.spawn` wraps a command in: a PID namespace of its own, or nothing (the sandbox's own namespace included). */
  plan: ContainmentPlan
  /** One line: how a command's processes are kept together, and when they are not, why. */
  status: string
}

/**
 * Decides containment for a host: the sandbox's own PID namespace when `terminal.sandbox` put
 * commands in bwrap; else, with `processes.containment: auto`, a PID namespace through bwrap where it
 * can run; else none, saying why.
 *
 * @example
 * decideContainment('auto', undefined).status // 'pid namespace (bwrap /usr/bin/bwrap): …' where bwrap runs
 */
export function decideContainment(setting: ProcessContainment, sandbox: SandboxPlan | undefined): ContainmentDecision {
  if (sandbox) return { plan: { kind: 'none' }, status: `pid namespace (the bwrap sandbox): ${EVERY}` }
  if (setting === 'off') return { plan: { kind: 'none' }, status: `off (processes.containment: off): ${ESCAPES}` }
  const bwrap = findBwrap()
  const problem = bwrapProblem(bwrap)
  if (problem !== undefined || bwrap === undefined) return { plan: { kind: 'none' }, status: `none: ${problem}; ${ESCAPES}` }
  return { plan: { kind: 'pid-namespace', bwrap }, status: `pid namespace (bwrap ${bwrap}, files and network as they are): ${EVERY}` }
}

/**
 * The bwrap argv that runs `/bin/sh -c command` in a PID namespace of its own and nothing else new:
 * the same files (`/` bound whole, devices included), network, IPC and host name; `/proc` is the
 * namespace's. No `--new-session`: the namespace's first process (bwrap's init) stays in the
 * command's process group and lives while any process of the command does, so the group is alive
 * exactly as long as the command, and SIGKILL to the group ends the namespace with all in it.
 *
 * No `--die-with-parent` (the sandbox's foreground commands have it): it would SIGKILL what a
 * foreground command left running the moment its shell exits, unannounced; without it the host
 * stops those with SIGTERM first and the result says so, as for a command not contained. A
 * foreground command whose host died is killed by the next host that adopts it.
 *
 * @example
 * containedArgv('make', '/ws') // ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--chdir', '/ws', '--', '/bin/sh', '-c', 'make']
 */
export function containedArgv(command: string, cwd: string): string[] {
  return ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--chdir', cwd, '--', '/bin/sh', '-c', command]
}

/**
 * The program and arguments that run `command` in `cwd`: in the sandbox, else in a PID namespace
 * of its own, else `/bin/sh -c` directly.
 *
 * @example
 * launchArgv('make', '/ws', { background: false }) // ['/bin/sh', ['-c', 'make']]
 */
export function launchArgv(command: string, cwd: string, how: { background: boolean; sandbox?: SandboxPlan | undefined; contain?: { bwrap: string } | undefined }): [string, string[]] {
  if (how.sandbox) return [how.sandbox.bwrap, sandboxArgv(how.sandbox, command, cwd, { background: how.background })]
  if (how.contain) return [how.contain.bwrap, containedArgv(command, cwd)]
  return ['/bin/sh', ['-c', command]]
}

const EVERY = 'every process a command starts stays with it, setsid and double forks included; kill and close end them all'
const ESCAPES = 'a process that leaves its command\'s group (setsid, a double fork) is not tracked, not killed by process kill and not stopped by close'
