import { readdirSync, readFileSync } from 'node:fs'
import { linuxStat, processStartTime } from './start-time.js'

/**
 * Which processes belong to a command, and whether a process group is really one this host's
 * workspace started. Every command is spawned as a session and group leader (`setsid`), so its
 * descendants share its session and group id unless they leave on purpose; and every command gets
 * an identity marker in its environment, `TOOLHOST_PROCESS=<id>@<checkpoint>`, which the host reads
 * back from `/proc/<pid>/environ` before it adopts or signals a group it did not spawn itself.
 */

/** The environment variable that marks a process (and its descendants) as started by a host. */
export const MARKER_VARIABLE = 'TOOLHOST_PROCESS'

/**
 * The marker value of process `id` in the workspace whose checkpoint is `checkpoint`: a process of
 * another workspace, or a forged checkpoint entry naming it, never matches.
 *
 * @example
 * processMarker('proc_1a2b', '/ws/.toolhost/processes.json') // 'proc_1a2b@/ws/.toolhost/processes.json'
 */
export function processMarker(id: string, checkpoint: string): string {
  return `${id}@${checkpoint}`
}

/** True where the host can read other processes' environments and groups (Linux `/proc`). */
export const canVerifyProcesses = process.platform === 'linux'

/**
 * The live members of process group `pgid` in session `pgid` (a group a `setsid` leader created),
 * from `/proc`. Zombies are not members: they have ended. Empty off Linux.
 *
 * @example
 * groupMembers(child.pid) // [child.pid, 4242]
 */
export function groupMembers(pgid: number): number[] {
  if (!canVerifyProcesses || !Number.isInteger(pgid) || pgid <= 1) return []
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const members: number[] = []
  for (const name of names) {
    const code = name.charCodeAt(0)
    if (code < 48 || code > 57) continue
    const pid = Number(name)
    const stat = linuxStat(pid)
    if (stat && stat.pgrp === pgid && stat.session === pgid && stat.state !== 'Z') members.push(pid)
  }
  return members
}

/**
 * A command's live processes: the members of its group `pgid` (as `groupMembers`), and `outside`,
 * every live descendant of theirs that left the group (`setsid`) — found by parent links in one
 * `/proc` scan. Inside a PID namespace (containment, the sandbox) every process of the command is
 * one or the other; without one, a process orphaned by a double fork is neither. Empty off Linux.
 *
 * @example
 * commandProcesses(child.pid) // { members: [child.pid, 4242], outside: [4250] } after `setsid sleep 9 &`
 */
export function commandProcesses(pgid: number): { members: number[]; outside: number[] } {
  if (!canVerifyProcesses || !Number.isInteger(pgid) || pgid <= 1) return { members: [], outside: [] }
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return { members: [], outside: [] }
  }
  const members: number[] = []
  const childrenOf = new Map<number, number[]>()
  for (const name of names) {
    const code = name.charCodeAt(0)
    if (code < 48 || code > 57) continue
    const pid = Number(name)
    const stat = linuxStat(pid)
    if (stat === undefined || stat.state === 'Z') continue
    if (stat.pgrp === pgid && stat.session === pgid) members.push(pid)
    else {
      const siblings = childrenOf.get(stat.ppid)
      if (siblings) siblings.push(pid)
      else childrenOf.set(stat.ppid, [pid])
    }
  }
  const outside: number[] = []
  const pending = [...members]
  for (let parent = pending.pop(); parent !== undefined; parent = pending.pop()) {
    for (const child of childrenOf.get(parent) ?? []) {
      outside.push(child)
      pending.push(child)
    }
  }
  return { members, outside }
}

/**
 * True when process `pid` is a bwrap process (the sandbox's or containment's own, not the command's).
 *
 * @example
 * isBwrapProcess(child.pid) // true for a contained command's leader
 */
export function isBwrapProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'bwrap'
  } catch {
    return false
  }
}

/**
 * True while process group `pgid` has a member (any platform: `kill(-pgid, 0)`; EPERM counts, as
 * the group exists). Zombie-only groups count as empty on Linux.
 *
 * @example
 * hasGroupMembers(child.pid) // false once every process of the group has ended
 */
export function hasGroupMembers(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return canVerifyProcesses ? groupMembers(pgid).length > 0 : true
}

/**
 * The value of `TOOLHOST_PROCESS` in process `pid`'s environment (as it was when it started), or
 * undefined when it has none or it cannot be read (another user's process, no `/proc`).
 *
 * @example
 * readMarker(pid) // 'proc_1a2b@/ws/.toolhost/processes.json'
 */
export function readMarker(pid: number): string | undefined {
  if (!canVerifyProcesses) return undefined
  let environ: Buffer
  try {
    environ = readFileSync(`/proc/${pid}/environ`)
  } catch {
    return undefined
  }
  const prefix = `${MARKER_VARIABLE}=`
  for (const entry of environ.toString('utf8').split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length)
  }
  return undefined
}

/**
 * Whether the group led by `pid` is the one a host of this workspace started as `marker`: `pid` is
 * above 1, the group (and session) `pid` has live members, the leader — if still alive — is the
 * process that started at `startTime`, and a member carries `marker`. Fails closed: where
 * environments cannot be read, no group is ever proven ours.
 *
 * @example
 * isOurGroup(entry.pid, entry.startTime, processMarker(entry.id, checkpoint)) // false for a forged entry
 */
export function isOurGroup(pid: number, startTime: number, marker: string): boolean {
  if (!canVerifyProcesses || !Number.isInteger(pid) || pid <= 1) return false
  const members = groupMembers(pid)
  if (members.length === 0) return false
  if (members.includes(pid) && processStartTime(pid) !== startTime) return false
  return members.some((member) => readMarker(member) === marker)
}

/**
 * Sends `signal` to a command: first to every process that left its group but not its tree
 * (`commandProcesses(…).outside`: inside a PID namespace, every such process; SIGKILL to the group
 * then ends the namespace), so they get the same chance to stop, then to the group. With `marker`
 * (an adopted group), only those that carry it. True when the group was signalled (it still existed).
 *
 * @example
 * signalCommand(child.pid, 'SIGTERM') // true while the group lives
 */
export function signalCommand(pgid: number, signal: NodeJS.Signals, marker?: string): boolean {
  // Never pid 0, 1 or a negative pid: kill(-1) would reach every process the user may signal.
  if (!Number.isInteger(pgid) || pgid <= 1) return false
  for (const pid of commandProcesses(pgid).outside) {
    if (marker !== undefined && readMarker(pid) !== marker) continue
    try {
      process.kill(pid, signal)
    } catch {
      // ESRCH: it has just ended.
    }
  }
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    return false // ESRCH: the group is already gone.
  }
}
