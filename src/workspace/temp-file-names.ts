import { createHash, randomBytes } from 'node:crypto'
import os from 'node:os'

/**
 * The names of a write's temp files, which say who wrote them: the machine (a hash of its host
 * name), the writer's pid and the time it started. A later host can then tell a temp file of a
 * dead writer (a kill -9 half-way through a write) from one a live writer is still filling, and
 * remove the first at once whatever its age — never one of a live writer, nor of another
 * machine's (whose processes it cannot see: those go by age, as names without a writer do).
 */

/** This machine, as temp file names carry it (8 hex of its host name's hash). */
export const THIS_MACHINE = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8)
// When this process started (ms since the epoch), in base 36: with the pid, it names the writer.
const STARTED = Math.floor(performance.timeOrigin)
const WRITER = `${THIS_MACHINE}-${process.pid}-${STARTED.toString(36)}`

const TAGGED = /^\.toolhost-([0-9a-f]{8})-(\d{1,10})-([0-9a-z]{1,12})-[0-9a-f]{6}\.tmp$/
// Written by versions before the writer was named: only their age tells.
const UNTAGGED = /^\.toolhost-[0-9a-f]{12}\.tmp$/

/** Who wrote a temp file: its machine, pid and start time (ms since the epoch). */
export interface TempFileWriter {
  machine: string
  pid: number
  startedAt: number
}

/**
 * A fresh name for a temp file in the folder of the file being written
 * (`.toolhost-<machine>-<pid>-<start>-<6 hex>.tmp`).
 *
 * @example
 * tempFileName() // '.toolhost-3f2a9c1d-41236-m3x0k2a1-0a1b2c.tmp'
 */
export function tempFileName(): string {
  return `.toolhost-${WRITER}-${randomBytes(3).toString('hex')}.tmp`
}

/**
 * True for a name `tempFileName` makes (or an earlier version made): a write's temp file, which a
 * process killed half-way through leaves behind. Search never shows one; the start-up sweep removes
 * those of dead writers, and old ones.
 *
 * @example
 * isTempFileName('.toolhost-0a1b2c3d4e5f.tmp') // true
 */
export function isTempFileName(name: string): boolean {
  return TAGGED.test(name) || UNTAGGED.test(name)
}

/**
 * The writer a temp file's name names; undefined for a name without one (an earlier version's).
 *
 * @example
 * tempFileWriter(tempFileName())?.pid === process.pid // true
 */
export function tempFileWriter(name: string): TempFileWriter | undefined {
  const m = TAGGED.exec(name)
  if (m === null) return undefined
  return { machine: m[1]!, pid: Number(m[2]), startedAt: parseInt(m[3]!, 36) }
}

/** True when the writer is this very process. */
export function isThisWriter(writer: TempFileWriter): boolean {
  return writer.machine === THIS_MACHINE && writer.pid === process.pid && writer.startedAt === STARTED
}
