import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import path from 'node:path'
import { readStateFile } from '../workspace/state-files.js'
import type { ProcessCompletion } from './completions.js'
import type { ProcessSpec } from './managed-process.js'

/** The host process that manages an entry; null once that host closed and released it. */
export interface CheckpointOwner {
  pid: number
  startTime: number
}

/**
 * One running process as the checkpoint lists it: what is needed to follow it again (`pid` with the
 * OS's `startTime` is its identity; `cwd` and `log` are absolute) and the host managing it.
 */
export interface CheckpointProcess extends ProcessSpec {
  owner: CheckpointOwner | null
}

/** A completion not yet delivered to the embedding loop. */
export interface CheckpointCompletion extends ProcessCompletion {
  owner: CheckpointOwner | null
}

export interface Checkpoint {
  version: 1
  processes: CheckpointProcess[]
  completions: CheckpointCompletion[]
}

/** A checkpoint larger than this is refused (no host writes one that size: it lists running processes and undelivered completions). */
export const MAX_CHECKPOINT_BYTES = 8 * 1024 * 1024

/** An empty checkpoint. */
export function emptyCheckpoint(): Checkpoint {
  return { version: 1, processes: [], completions: [] }
}

/**
 * Reads a checkpoint. A missing file is an empty checkpoint; a symlink (never followed), a
 * non-regular file, one over `MAX_CHECKPOINT_BYTES`, an unreadable or malformed one is reported
 * through `onProblem` and treated as empty (its processes cannot be adopted safely), and entries of
 * the wrong shape are skipped one by one.
 *
 * @example
 * const checkpoint = readCheckpoint('/ws/.toolhost/processes.json', (m) => log.warn(m))
 */
export function readCheckpoint(file: string, onProblem: (message: string) => void = () => {}): Checkpoint {
  const text = readCheckpointText(file, onProblem)
  if (text === undefined) return emptyCheckpoint()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    onProblem(`the process checkpoint ${file} is not valid JSON (${(error as Error).message}); starting without it`)
    return emptyCheckpoint()
  }
  const doc = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>
  const processes = Array.isArray(doc.processes) ? doc.processes.filter(isCheckpointProcess) : []
  const completions = Array.isArray(doc.completions) ? doc.completions.filter(isCheckpointCompletion) : []
  const skipped = (Array.isArray(doc.processes) ? doc.processes.length : 0) - processes.length + (Array.isArray(doc.completions) ? doc.completions.length : 0) - completions.length
  if (skipped > 0) onProblem(`the process checkpoint ${file} has ${skipped} malformed entr${skipped === 1 ? 'y' : 'ies'}; they were skipped`)
  return { version: 1, processes, completions }
}

/**
 * Writes a checkpoint atomically: a temporary file beside it, fsync, rename over the old one, then
 * fsync the folder. A reader sees the old file or the new one, never half of one.
 *
 * @example
 * writeCheckpoint('/ws/.toolhost/processes.json', { version: 1, processes: [], completions: [] })
 */
export function writeCheckpoint(file: string, checkpoint: Checkpoint): void {
  const dir = path.dirname(file)
  mkdirSync(dir, { recursive: true })
  const temp = `${file}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`
  // wx: O_EXCL never follows a planted symlink; the rename replaces a symlinked checkpoint itself, not its target.
  const fd = openSync(temp, 'wx', 0o600)
  try {
    writeSync(fd, JSON.stringify(checkpoint, null, 2) + '\n')
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    renameSync(temp, file)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
  try {
    const dirFd = openSync(dir, 'r')
    try {
      fsyncSync(dirFd)
    } finally {
      closeSync(dirFd)
    }
  } catch {
    // Some platforms cannot fsync a folder; the rename itself is still atomic.
  }
}

// Never through a planted link, never blocking on a FIFO, never a huge file (see state-files.ts).
function readCheckpointText(file: string, onProblem: (message: string) => void): string | undefined {
  const read = readStateFile(file, MAX_CHECKPOINT_BYTES)
  if (read === undefined) return undefined
  if ('problem' in read) {
    onProblem(`the process checkpoint: ${read.problem}; no process was adopted from it`)
    return undefined
  }
  return read.text
}

function isOwner(value: unknown): value is CheckpointOwner | null {
  if (value === null) return true
  const v = value as Record<string, unknown>
  return typeof v === 'object' && Number.isInteger(v.pid) && typeof v.startTime === 'number'
}

function isCheckpointProcess(value: unknown): value is CheckpointProcess {
  const v = value as Record<string, unknown>
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && Number.isInteger(v.pid) && (v.pid as number) > 1 &&
    typeof v.startTime === 'number' && typeof v.command === 'string' && typeof v.cwd === 'string' && typeof v.log === 'string' &&
    typeof v.background === 'boolean' && typeof v.notify === 'boolean' && isOwner(v.owner) &&
    (v.sandboxed === undefined || typeof v.sandboxed === 'boolean')
}

function isCheckpointCompletion(value: unknown): value is CheckpointCompletion {
  const v = value as Record<string, unknown>
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.command === 'string' &&
    (v.exitCode === null || Number.isInteger(v.exitCode)) && (v.signal === null || typeof v.signal === 'string') &&
    typeof v.tail === 'string' && typeof v.endedAt === 'string' && isOwner(v.owner)
}
