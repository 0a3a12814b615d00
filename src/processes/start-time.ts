import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/**
 * A process's identity is its pid plus the start time the OS reports for it. A pid alone can be
 * reused after the process ends; the pair cannot (within one boot), so adoption and kills of
 * processes this host did not spawn itself always check both.
 */

let clockTicks: number | undefined
let bootTimeMs: number | undefined

/**
 * When the OS says process `pid` started, in ms since the epoch; undefined when there is no such
 * process. Linux: `/proc/<pid>/stat` field 22 (clock ticks since
 * boot) plus the boot time from `/proc/stat`; elsewhere `ps -o lstart=` (second resolution).
 *
 * @example
 * processStartTime(process.pid) // 1732912345670
 */
export function processStartTime(pid: number): number | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined
  if (process.platform === 'linux') return linuxStartTime(pid)
  return startTimeFromPs(pid)
}

/**
 * True when `pid` names a live process (one we may not own counts: EPERM means it exists).
 * A zombie is not alive: it has ended and only waits to be reaped.
 *
 * @example
 * isProcessAlive(process.pid) // true
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  if (process.platform === 'linux') return linuxStat(pid)?.state !== 'Z'
  return true
}

/**
 * True when `pid` is alive and is still the process that started at `startTime` (not a reused pid).
 *
 * @example
 * isSameProcess(pid, entry.startTime) // false once the pid has been reused
 */
export function isSameProcess(pid: number, startTime: number): boolean {
  if (!isProcessAlive(pid)) return false
  const now = processStartTime(pid)
  return now !== undefined && now === startTime
}

function linuxStartTime(pid: number): number | undefined {
  // A zombie keeps its start time until it is reaped; liveness is `isProcessAlive`'s question.
  const stat = linuxStat(pid)
  if (!stat) return undefined
  return linuxBootTimeMs() + Math.round((stat.startTicks * 1000) / linuxClockTicks())
}

/** The fields of `/proc/<pid>/stat` the host reads (Linux). */
export interface ProcStat {
  state: string
  ppid: number
  /** Process group id, as seen from this host's pid namespace. */
  pgrp: number
  /** Session id, as seen from this host's pid namespace. */
  session: number
  startTicks: number
}

/**
 * `/proc/<pid>/stat` parsed (Linux only; undefined elsewhere or when there is no such process).
 *
 * @example
 * linuxStat(process.pid)?.pgrp
 */
export function linuxStat(pid: number): ProcStat | undefined {
  if (process.platform !== 'linux') return undefined
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) is in parentheses and may itself hold spaces or ')': split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
  const startTicks = Number(fields[19])
  if (!Number.isFinite(startTicks)) return undefined
  return { state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]), startTicks }
}

function linuxBootTimeMs(): number {
  if (bootTimeMs !== undefined) return bootTimeMs
  const match = /^btime\s+(\d+)/m.exec(readFileSync('/proc/stat', 'utf8'))
  bootTimeMs = match ? Number(match[1]) * 1000 : 0
  return bootTimeMs
}

function linuxClockTicks(): number {
  if (clockTicks !== undefined) return clockTicks
  // The kernel hands every process its clock tick rate (AT_CLKTCK, 17, in the auxiliary vector):
  // reading it costs nothing, where spawning getconf cost every host's start-up tens of ms.
  const fromAuxv = auxvClockTicks()
  if (fromAuxv !== undefined) return (clockTicks = fromAuxv)
  try {
    clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    clockTicks = 100
  }
  return clockTicks
}

/** AT_CLKTCK from /proc/self/auxv (pairs of 64-bit words on a 64-bit little-endian machine). */
function auxvClockTicks(): number | undefined {
  if (!['x64', 'arm64'].includes(process.arch)) return undefined
  try {
    const auxv = readFileSync('/proc/self/auxv')
    for (let at = 0; at + 16 <= auxv.length; at += 16) {
      const type = auxv.readBigUInt64LE(at)
      if (type === 0n) break
      if (type === 17n) {
        const ticks = Number(auxv.readBigUInt64LE(at + 8))
        return ticks > 0 ? ticks : undefined
      }
    }
  } catch {
    // No /proc, or not readable: getconf says.
  }
  return undefined
}

/**
 * The start time `ps -o lstart=` reports (second resolution; macOS and the BSDs), in ms since the epoch.
 *
 * @example
 * startTimeFromPs(process.pid) // 1732912345000
 */
export function startTimeFromPs(pid: number): number | undefined {
  try {
    const text = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' } }).trim()
    if (text === '') return undefined
    const ms = Date.parse(`${text} UTC`)
    return Number.isNaN(ms) ? undefined : ms
  } catch {
    return undefined
  }
}
