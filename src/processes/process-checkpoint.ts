import { lstatSync } from 'node:fs'
import { stateFolderProblem } from '../workspace/state-files.js'
import path from 'node:path'
import type { Logger } from '../contract/types.js'
import { readCheckpoint, writeCheckpoint, type CheckpointOwner, type CheckpointProcess } from './checkpoint.js'
import { CheckpointLock } from './checkpoint-lock.js'
import { completionOf, type CompletionQueue } from './completions.js'
import { removeStaleLogs } from './log-file.js'
import { ManagedProcess, type ProcessSpec } from './managed-process.js'
import { canVerifyProcesses, groupMembers, isOurGroup, processMarker } from './process-group.js'
import { isSameProcess, processStartTime } from './start-time.js'

/** What the checkpoint of one registry needs to know (from `ProcessRegistryOptions`). */
export interface ProcessCheckpointOptions {
  /** Absolute path of the checkpoint file. */
  checkpoint: string
  /** The workspace root: no folder between it and the checkpoint may be a symbolic link. */
  root?: string
  /** Absolute folder for log files. */
  dir: string
  bufferChars: number
  killGraceMs: number
  retentionMs: number
  log?: Logger | undefined
}

/** The registry's processes and completions, as the checkpoint reads and fills them. */
export interface CheckpointedState {
  readonly records: Map<string, ManagedProcess>
  readonly queue: CompletionQueue
  /** Called when a process the checkpoint adopted ends. */
  readonly onEnd: (process: ManagedProcess) => void
}

/**
 * One process registry's share of the checkpoint file, every read-modify-write under the checkpoint
 * lock: at open, the entries it adopts or finds ended (an entry or completion of another host that
 * is still open is left alone); after every change, a rewrite that keeps the entries of other hosts
 * (the ids this registry never took charge of).
 *
 * @example
 * const checkpoint = new ProcessCheckpoint(options)
 * await checkpoint.restore({ records, queue, onEnd })
 * checkpoint.save({ records, queue, onEnd }, false)
 */
export class ProcessCheckpoint {
  readonly #options: ProcessCheckpointOptions
  readonly #owner: CheckpointOwner
  readonly #lock: CheckpointLock
  /** Checkpoint ids this registry took charge of (its own, adopted, or found ended). */
  readonly #handled = new Set<string>()
  readonly #handledCompletions = new Set<string>()

  constructor(options: ProcessCheckpointOptions) {
    this.#options = options
    this.#owner = { pid: process.pid, startTime: processStartTime(process.pid) ?? 0 }
    this.#lock = new CheckpointLock(options.checkpoint, options.root)
  }

  /** Records that this registry is in charge of process `id` (it spawned it). */
  takeCharge(id: string): void {
    this.#handled.add(id)
  }

  /** Whether `id` is a process this registry is or was in charge of (a new id must not be one). */
  isInCharge(id: string): boolean {
    return this.#handled.has(id)
  }

  /** Records that this registry is in charge of delivering completion `id`. */
  takeChargeOfCompletion(id: string): void {
    this.#handledCompletions.add(id)
  }

  /**
   * Reads the checkpoint and adopts each listed process group proven ours (`isOurGroup`); the other
   * entries are kept as ended (exit code unknown) and queue their completion if asked; adopted
   * foreground processes are killed (their caller is gone). Then the logs no one remembers go.
   */
  async restore(state: CheckpointedState): Promise<void> {
    const { checkpoint: file, log } = this.#options
    const ended: Promise<void>[] = []
    const listed = new Set<string>()
    try {
      // Decided and saved under the lock, so a second host starting now sees these entries owned. No
      // checkpoint, nothing to adopt (and no lock file made in a workspace that never ran a process):
      // a checkpoint written meanwhile lists only processes of a host that is open.
      if (pathExists(file)) this.#lock.hold(() => {
        const checkpoint = readCheckpoint(file, (message) => log?.warn(message))
        for (const entry of checkpoint.processes) {
          listed.add(path.resolve(entry.log))
          const lost = this.#restoreEntry(entry, state)
          if (lost) ended.push(lost)
        }
        for (const { owner, ...completion } of checkpoint.completions) {
          if (isOwnedByOpenHost(owner)) continue
          this.#handledCompletions.add(completion.id)
          state.queue.push(completion)
        }
        this.save(state, false)
      })
    } catch (error) {
      log?.error(`could not restore the process checkpoint ${file}: ${(error as Error).message}; no process was adopted`)
    }
    await Promise.all(ended)
    // Never sweep through a link planted at .toolhost or its processes folder.
    if (this.#options.root !== undefined && stateFolderProblem(this.#options.root, path.join(this.#options.dir, 'log')) !== undefined) return
    removeStaleLogs(this.#options.dir, this.#options.retentionMs, (logFile) => listed.has(logFile) || state.records.has(path.basename(logFile, '.log')))
  }

  /**
   * Rewrites the checkpoint under the lock: the entries of other hosts, then this registry's running
   * processes and undelivered completions, owned by this host or, once `released`, by none.
   */
  save(state: CheckpointedState, released: boolean): void {
    const { checkpoint: file } = this.#options
    const owner = released ? null : this.#owner
    // Nothing to record and no checkpoint to update: no lock, no file, no folder.
    if (state.records.size === 0 && state.queue.pending.length === 0 && !pathExists(file)) return
    try {
      this.#lock.hold(() => {
        const existing = readCheckpoint(file)
        const processes = [
          ...existing.processes.filter((e) => !this.#handled.has(e.id)),
          ...[...state.records.values()].filter((p) => p.status === 'running').map((p) => ({ ...p.spec, owner })),
        ]
        const completions = [
          ...existing.completions.filter((c) => !this.#handledCompletions.has(c.id)),
          ...state.queue.pending.map((c) => ({ ...c, owner })),
        ]
        const hadFile = existing.processes.length + existing.completions.length > 0
        if (!hadFile && processes.length === 0 && completions.length === 0) return
        writeCheckpoint(file, { version: 1, processes, completions })
      })
    } catch (error) {
      this.#options.log?.error(`could not write the process checkpoint ${file}: ${(error as Error).message}; a crash now would lose track of running processes`)
    }
  }

  // One checkpoint entry: adopted when proven ours, else kept as ended; returns the wait for a lost
  // entry's completion. Entries of another open host are left alone.
  #restoreEntry(entry: CheckpointProcess, state: CheckpointedState): Promise<void> | undefined {
    if (isOwnedByOpenHost(entry.owner)) return undefined
    const { dir, checkpoint, bufferChars, killGraceMs, log } = this.#options
    this.#handled.add(entry.id)
    // The host reads (and, after retention, deletes) an entry's log: only a log of ours, in our folder.
    if (!/^proc_[0-9a-f]+$/.test(entry.id) || path.resolve(entry.log) !== path.join(dir, `${entry.id}.log`)) {
      log?.warn(`process checkpoint entry ${JSON.stringify(entry.id)} names a log outside ${dir}; it was dropped, not adopted`)
      return undefined
    }
    const spec = specOf(entry)
    const marker = processMarker(entry.id, checkpoint)
    if (isOurGroup(entry.pid, entry.startTime, marker)) {
      const managed = ManagedProcess.adopt(spec, marker, bufferChars, state.onEnd)
      state.records.set(entry.id, managed)
      if (!entry.background) void managed.kill(killGraceMs)
      return undefined
    }
    const alive = groupMembers(entry.pid).length > 0 || (!canVerifyProcesses && isSameProcess(entry.pid, entry.startTime))
    if (alive) log?.warn(`process checkpoint entry ${entry.id} names pid ${entry.pid}, which ${canVerifyProcesses ? 'this workspace did not start (no identity marker of its own)' : 'cannot be verified on this platform (no /proc)'}; it was not adopted and will never be signalled`)
    const note = alive
      ? `not adopted: pid ${entry.pid} could not be proven a process this workspace started${canVerifyProcesses ? '' : ' (adoption needs /proc, i.e. Linux)'}; it is never signalled. Exit code unknown`
      : 'ended while no host was watching (or its pid now names another process); exit code unknown'
    const lost = ManagedProcess.lost(spec, bufferChars, note)
    state.records.set(entry.id, lost)
    return entry.notify ? lost.exited.then(() => state.queue.push(completionOf(lost))) : undefined
  }
}

function isOwnedByOpenHost(owner: CheckpointOwner | null): boolean {
  return owner !== null && isSameProcess(owner.pid, owner.startTime)
}

function specOf(entry: CheckpointProcess): ProcessSpec {
  const { owner: _owner, ...spec } = entry
  return spec
}

// lstat, not exists: a planted link is still "there" (reading it then refuses it, with a warning).
function pathExists(file: string): boolean {
  try {
    lstatSync(file)
    return true
  } catch {
    return false
  }
}
