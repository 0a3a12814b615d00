import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, constants, mkdirSync, openSync, rmSync, statfsSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDeferred } from '../contract/deferred.js'
import type { ProcessInfo, ProcessStatus } from '../contract/process-service.js'
import { LogTail } from './log-file.js'
import { containedArgv } from './containment.js'
import { commandProcesses, hasGroupMembers, isBwrapProcess, isOurGroup, MARKER_VARIABLE, readMarker } from './process-group.js'
import { sandboxArgv, type SandboxPlan } from './sandbox.js'
import { processStartTime } from './start-time.js'

/** What is needed to follow a process (spawned now or listed in a checkpoint). */
export interface ProcessSpec {
  id: string
  pid: number
  startTime: number
  command: string
  cwd: string
  log: string
  background: boolean
  notify: boolean
  /** Started inside the bubblewrap sandbox (absent in checkpoints written before it existed). */
  sandboxed?: boolean
}

export interface SpawnSpec extends Omit<ProcessSpec, 'pid' | 'startTime' | 'sandboxed'> {
  env: NodeJS.ProcessEnv
  /** The identity marker (`processMarker`) set in the command's environment. */
  marker: string
  /** Run inside this sandbox (bubblewrap); absent: run `/bin/sh -c` directly. */
  sandbox?: SandboxPlan
  /** Without a sandbox: run in a PID namespace of its own through this bwrap (`containment.ts`). */
  contain?: { bwrap: string }
}

const TAIL_EVERY_MS = 200
const LIVENESS_EVERY_MS = 250
/** Below this many free bytes on the log's file system, an empty or short log is blamed on a full disk. */
const LOW_DISK_BYTES = 1024 * 1024
const KILL_WAIT_AFTER_SIGKILL_MS = 5000

/**
 * One process the host follows: its own child (exit code and signal come from the 'exit' event) or
 * one adopted from a checkpoint (its exit code cannot be known). The process writes its stdout and
 * stderr, interleaved, straight into its log file, so it keeps running and logging if the host dies;
 * the host tails that file into a rolling buffer.
 *
 * A command is its whole process group: it has ended only when the group has no live member left,
 * so `sleep 1000 & echo started` keeps running (with a note saying its shell exited) until the
 * `sleep` ends, and a kill signals the group. An adopted group is signalled only while it is
 * proven ours (`isOurGroup`: the identity marker in its environment, the leader's start time).
 *
 * @example
 * const p = await ManagedProcess.spawn({ id: 'proc_1', command: 'ls', cwd, log, env: process.env, marker, background: false, notify: false }, 200_000, onEnd)
 * await p.exited
 */
export class ManagedProcess {
  readonly spec: ProcessSpec
  readonly adopted: boolean
  readonly tail: LogTail
  readonly #marker: string
  #status: ProcessStatus = 'running'
  #exitCode: number | null = null
  #signal: string | null = null
  #note: string | undefined
  #logProblem: string | undefined
  #endedAt: number | undefined
  // Date.now() when this host spawned it. The OS start time (spec.startTime) is the identity, but it
  // is built on /proc/stat's whole-second boot time and can be a second off the wall clock: a 30 ms
  // command read "after 600 ms". Adopted processes have only the OS start time.
  #spawnedAt: number | undefined
  #signalsSent: string[] = []
  #stillRunning = 0
  #child: ChildProcess | undefined
  #timer: NodeJS.Timeout | undefined
  #groupTimer: NodeJS.Timeout | undefined
  #killing: Promise<void> | undefined
  readonly #ended = createDeferred<void>()
  readonly #leaderEnded = createDeferred<void>()
  readonly #onEnd: (process: ManagedProcess) => void

  private constructor(spec: ProcessSpec, adopted: boolean, marker: string, capacity: number, onEnd: (process: ManagedProcess) => void) {
    this.spec = spec
    this.adopted = adopted
    this.#marker = marker
    this.tail = new LogTail(spec.log, capacity)
    this.#onEnd = onEnd
  }

  /**
   * Runs `command` through `/bin/sh -c` (inside the sandbox when `spec.sandbox` is set) as the leader
   * of a new session and process group, with the identity marker in its environment. Rejects if it
   * cannot start (the message says why: the log file could not be opened, the shell is missing, …).
   */
  static async spawn(spec: SpawnSpec, capacity: number, onEnd: (process: ManagedProcess) => void): Promise<ManagedProcess> {
    let fd: number
    try {
      mkdirSync(path.dirname(spec.log), { recursive: true })
      // O_NOFOLLOW: a link planted at the log's name is refused, never written through.
      fd = openSync(spec.log, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o666)
    } catch (error) {
      throw new Error(`could not open the log file ${spec.log} for the command's output: ${(error as Error).message}`)
    }
    let child: ChildProcess
    const spawnedAt = Date.now()
    try {
      const env = { ...spec.env, [MARKER_VARIABLE]: spec.marker }
      const [file, args] = spec.sandbox
        ? [spec.sandbox.bwrap, sandboxArgv(spec.sandbox, spec.command, spec.cwd, { background: spec.background })]
        : spec.contain
          ? [spec.contain.bwrap, containedArgv(spec.command, spec.cwd)]
          : ['/bin/sh', ['-c', spec.command]]
      // stdout and stderr share one append-mode descriptor: interleaved as written, no pipe to drain.
      // detached: the child calls setsid(), so it leads a new session and group with no terminal.
      child = spawn(file, args, { cwd: spec.cwd, env, detached: true, stdio: [spec.background ? 'pipe' : 'ignore', fd, fd] })
    } finally {
      closeSync(fd)
    }
    if (child.pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once('error', resolve))
      throw new Error(`could not start the command: ${error.message}`)
    }
    // Read before returning to the event loop: the child cannot have been reaped yet.
    const startTime = processStartTime(child.pid) ?? Date.now()
    // The environment and the sandbox plan are not kept: the checkpoint must never hold the secrets the environment may carry.
    const { env: _env, marker, sandbox, contain: _contain, ...kept } = spec
    const managed = new ManagedProcess({ ...kept, pid: child.pid, startTime, ...(sandbox ? { sandboxed: true } : {}) }, false, marker, capacity, onEnd)
    managed.#child = child
    managed.#spawnedAt = spawnedAt
    // 'exit', not 'close': a grandchild holding a descriptor must not delay the end.
    child.once('exit', (code, signal) => managed.#onLeaderExit(code, signal))
    child.stdin?.on('error', () => {})
    managed.#timer = setInterval(() => void managed.#catchUp(), TAIL_EVERY_MS).unref()
    return managed
  }

  /**
   * Follows a group listed in a checkpoint that `isOurGroup` proved ours; it has ended when the group
   * has no live member left.
   */
  static adopt(spec: ProcessSpec, marker: string, capacity: number, onEnd: (process: ManagedProcess) => void): ManagedProcess {
    const managed = new ManagedProcess(spec, true, marker, capacity, onEnd)
    managed.#leaderEnded.resolve()
    managed.#timer = setInterval(() => {
      void managed.#catchUp()
      // The group id stays reserved while the group has members, so a live group is still the one proven ours.
      if (!hasGroupMembers(spec.pid)) managed.#finish(null, null, undefined)
    }, LIVENESS_EVERY_MS).unref()
    return managed
  }

  /** A checkpoint entry whose process ended while no host watched it (or that could not be proven ours). */
  static lost(spec: ProcessSpec, capacity: number, note: string): ManagedProcess {
    const managed = new ManagedProcess(spec, true, '', capacity, () => {})
    managed.#status = 'exited'
    managed.#note = note
    managed.#endedAt = Date.now()
    managed.#leaderEnded.resolve()
    void managed.#catchUp().finally(() => managed.#ended.resolve())
    return managed
  }

  get id(): string {
    return this.spec.id
  }

  get status(): ProcessStatus {
    return this.#status
  }

  get endedAt(): number | undefined {
    return this.#endedAt
  }

  get exitCode(): number | null {
    return this.#exitCode
  }

  get signal(): string | null {
    return this.#signal
  }

  get note(): string | undefined {
    return this.#note
  }

  /** Resolves once every process of its group has ended and its log has been read to the end. */
  get exited(): Promise<void> {
    return this.#ended.promise
  }

  /** Resolves once the leader (the command's shell) has exited; its group may still have members. */
  get leaderExited(): Promise<void> {
    return this.#leaderEnded.promise
  }

  info(tailChars = 1000): ProcessInfo {
    const buffer = this.tail.buffer
    const lingering = this.#status === 'running' && this.#stillRunning > 0
    const note = lingering ? `its shell exited with ${this.#signal ?? `code ${this.#exitCode}`}, but ${this.#stillRunning} process${this.#stillRunning === 1 ? '' : 'es'} it started ${this.#stillRunning === 1 ? 'is' : 'are'} still running in its group` : this.#note
    return {
      id: this.spec.id,
      pid: this.spec.pid,
      command: this.spec.command,
      cwd: this.spec.cwd,
      status: this.#status,
      background: this.spec.background,
      notifyOnComplete: this.spec.notify,
      adopted: this.adopted,
      startedAt: new Date(this.#spawnedAt ?? this.spec.startTime).toISOString(),
      uptimeMs: Math.max(0, (this.#endedAt ?? Date.now()) - (this.#spawnedAt ?? this.spec.startTime)),
      exitCode: this.#exitCode,
      signal: this.#signal,
      signalsSent: [...this.#signalsSent],
      sandboxed: this.spec.sandboxed === true,
      ...(lingering ? { stillRunning: this.#stillRunning } : {}),
      ...(note === undefined ? {} : { note }),
      ...(this.#logProblem === undefined ? {} : { logProblem: this.#logProblem }),
      outputChars: buffer.totalChars,
      droppedChars: buffer.droppedChars,
      lines: buffer.lineCount,
      tail: buffer.tail(tailChars),
      log: this.spec.log,
    }
  }

  /**
   * SIGTERM to the whole process group; once the group is empty, or after `graceMs`, SIGKILL to
   * whatever is left. Resolves when the group has ended (or, if even SIGKILL did not end it within
   * 5 s, with a note saying so).
   */
  kill(graceMs: number): Promise<void> {
    if (this.#status !== 'running' && !this.#killing) return Promise.resolve()
    this.#killing ??= (async () => {
      this.#signalGroup('SIGTERM')
      const deadline = Date.now() + graceMs
      while (Date.now() < deadline && this.#status === 'running') {
        await Promise.race([this.#ended.promise, sleep(Math.min(50, Math.max(1, deadline - Date.now())))])
        this.#checkGroup()
      }
      if (this.#status === 'running') this.#signalGroup('SIGKILL')
      const until = Date.now() + KILL_WAIT_AFTER_SIGKILL_MS
      while (Date.now() < until && this.#status === 'running') {
        await Promise.race([this.#ended.promise, sleep(50)])
        this.#checkGroup()
      }
      if (this.#status === 'running') this.#note = `still running ${KILL_WAIT_AFTER_SIGKILL_MS} ms after SIGKILL (stuck in the kernel?)`
    })()
    return this.#killing
  }

  /** Writes to the process's stdin (background processes this host spawned). */
  write(data: string): Promise<void> {
    const stdin = this.#child?.stdin
    if (!stdin || this.#status !== 'running' || stdin.destroyed) {
      const why = this.adopted ? 'it was started by an earlier host, and its stdin went with that host' : this.#status !== 'running' ? 'it has ended' : this.spec.background ? 'its stdin is closed' : 'a foreground command gets no stdin'
      return Promise.reject(new Error(`cannot write to ${this.spec.id}: ${why}`))
    }
    return new Promise<void>((resolve, reject) => stdin.write(data, (error) => (error ? reject(error) : resolve())))
  }

  /** Stops following without ending the process (the host is closing; a later host may adopt it). */
  release(): void {
    clearInterval(this.#timer)
    clearInterval(this.#groupTimer)
    this.#child?.unref()
    const stdin = this.#child?.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null | undefined
    stdin?.unref?.()
  }

  /** Stops reading the log; with `deleteLog` the log file is removed too. */
  async dispose(deleteLog: boolean): Promise<void> {
    clearInterval(this.#timer)
    clearInterval(this.#groupTimer)
    await this.tail.close()
    if (deleteLog) rmSync(this.spec.log, { force: true })
  }

  #catchUp(): Promise<void> {
    return this.tail.catchUp().then(
      () => {
        if (this.#logProblem?.startsWith('the log file could not be read')) this.#logProblem = undefined
      },
      (error: Error) => {
        this.#logProblem = `the log file could not be read (${error.message}); output since then is missing from memory`
      },
    )
  }

  // The leader's exit: the command has ended only once its whole group has.
  #onLeaderExit(code: number | null, signal: string | null): void {
    this.#exitCode = code
    this.#signal = signal
    this.#leaderEnded.resolve()
    this.#checkGroup()
    if (this.#status !== 'running') return
    this.#groupTimer = setInterval(() => this.#checkGroup(), LIVENESS_EVERY_MS)
    // A background group must not hold the host open; a foreground one is waited for or killed.
    if (this.spec.background) this.#groupTimer.unref()
  }

  // After the leader exited: finish once the group is empty, else count who is left: the group and
  // those that left it, but not bwrap's own processes (a PID namespace's first process).
  #checkGroup(): void {
    if (this.#status !== 'running' || this.adopted || !this.#leaderEnded.settled) return
    if (!hasGroupMembers(this.spec.pid)) {
      this.#finish(this.#exitCode, this.#signal, undefined)
      return
    }
    const { members, outside } = commandProcesses(this.spec.pid)
    let left = 0
    for (const pid of [...members, ...outside]) if (!isBwrapProcess(pid)) left++
    this.#stillRunning = Math.max(1, left)
  }

  #finish(code: number | null, signal: string | null, note: string | undefined): void {
    if (this.#status !== 'running') return
    this.#status = 'exited'
    this.#exitCode = code
    this.#signal = signal
    this.#endedAt = Date.now()
    this.#stillRunning = 0
    const sent = this.#signalsSent.at(-1)
    if (note !== undefined) this.#note = note
    else if (this.adopted) this.#note = `${sent ? `ended after ${sent} was sent; ` : ''}exit code unknown: an adopted process is not a child of this host`
    clearInterval(this.#timer)
    clearInterval(this.#groupTimer)
    this.#child?.stdin?.destroy()
    void this.#catchUp().finally(() => {
      this.#checkDisk()
      this.#ended.resolve()
      this.#onEnd(this)
    })
  }

  // A process's own writes to its log cannot be watched; a nearly full disk is the likely reason
  // for output that never arrived, so the result says so instead of a bare "(no output)".
  #checkDisk(): void {
    try {
      const fs = statfsSync(path.dirname(this.spec.log))
      const free = fs.bavail * fs.bsize
      if (free < LOW_DISK_BYTES) this.#logProblem ??= `the log file could not grow: its disk has only ${free} bytes free (${path.dirname(this.spec.log)}), so output is likely missing`
    } catch (error) {
      this.#logProblem ??= `the log folder could not be checked (${(error as Error).message})`
    }
  }

  #signalGroup(signal: NodeJS.Signals): void {
    // Never pid 0, 1 or a negative pid: kill(-1) would reach every process the user may signal.
    if (!Number.isInteger(this.spec.pid) || this.spec.pid <= 1) return
    // An adopted group is signalled only while it is still proven ours (its marker, its leader's
    // start time). Our own child's group: while the leader is unreaped or members remain, its id is
    // reserved and cannot name another group.
    if (this.adopted ? !isOurGroup(this.spec.pid, this.spec.startTime, this.#marker) : this.#leaderEnded.settled && !hasGroupMembers(this.spec.pid)) return
    // First those that left the group (setsid) but not its tree, so they get the same chance to stop:
    // inside a PID namespace that is every one of them (and SIGKILL to the group ends the namespace).
    // Of an adopted group, only those that carry its marker.
    for (const pid of commandProcesses(this.spec.pid).outside) {
      if (this.adopted && readMarker(pid) !== this.#marker) continue
      try {
        process.kill(pid, signal)
      } catch {
        // ESRCH: it has just ended.
      }
    }
    try {
      process.kill(-this.spec.pid, signal)
      this.#signalsSent.push(signal)
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}
