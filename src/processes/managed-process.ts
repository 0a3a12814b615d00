import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDeferred } from '../dispatch/deferred.js'
import { LogTail } from './log-file.js'
import { isSameProcess, processStartTime } from './start-time.js'

export type ProcessStatus = 'running' | 'exited'

/** What `poll`, `list` and `wait` report about a process. */
export interface ProcessInfo {
  id: string
  pid: number
  command: string
  /** Absolute working folder. */
  cwd: string
  status: ProcessStatus
  background: boolean
  notifyOnComplete: boolean
  /** Started by an earlier host and adopted from the checkpoint (not a child of this one). */
  adopted: boolean
  /** ISO time the OS says it started. */
  startedAt: string
  /** How long it has run (until it ended, once it has). */
  uptimeMs: number
  /** Exit code, or null (ended by a signal, still running, or unknowable for an adopted process). */
  exitCode: number | null
  /** The signal that ended it, as the OS reported it to this host. */
  signal: string | null
  /** Signals this host sent to its process group, in order. */
  signalsSent: string[]
  note?: string
  /** Characters of output so far, and how many rolled out of memory (all are in the log file). */
  outputChars: number
  droppedChars: number
  lines: number
  tail: string
  /** Absolute path of the log file holding all its output. */
  log: string
}

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
}

export interface SpawnSpec extends Omit<ProcessSpec, 'pid' | 'startTime'> {
  env: NodeJS.ProcessEnv
}

const TAIL_EVERY_MS = 200
const LIVENESS_EVERY_MS = 250
const KILL_WAIT_AFTER_SIGKILL_MS = 5000

/**
 * One process the host follows: its own child (exit code and signal come from the 'exit' event) or
 * one adopted from a checkpoint (liveness polled by pid and start time; its exit code cannot be
 * known). The process writes its stdout and stderr, interleaved, straight into its log file, so it
 * keeps running and logging if the host dies; the host tails that file into a rolling buffer.
 *
 * @example
 * const p = await ManagedProcess.spawn({ id: 'proc_1', command: 'ls', cwd, log, env: process.env, background: false, notify: false }, 200_000, onEnd)
 * await p.exited
 */
export class ManagedProcess {
  readonly spec: ProcessSpec
  readonly adopted: boolean
  readonly tail: LogTail
  #status: ProcessStatus = 'running'
  #exitCode: number | null = null
  #signal: string | null = null
  #note: string | undefined
  #endedAt: number | undefined
  #signalsSent: string[] = []
  #child: ChildProcess | undefined
  #timer: NodeJS.Timeout | undefined
  #killing: Promise<void> | undefined
  readonly #ended = createDeferred<void>()
  readonly #onEnd: (process: ManagedProcess) => void

  private constructor(spec: ProcessSpec, adopted: boolean, capacity: number, onEnd: (process: ManagedProcess) => void) {
    this.spec = spec
    this.adopted = adopted
    this.tail = new LogTail(spec.log, capacity)
    this.#onEnd = onEnd
  }

  /** Runs `command` through `/bin/sh -c` as the leader of a new process group. Rejects if it cannot start. */
  static async spawn(spec: SpawnSpec, capacity: number, onEnd: (process: ManagedProcess) => void): Promise<ManagedProcess> {
    mkdirSync(path.dirname(spec.log), { recursive: true })
    const fd = openSync(spec.log, 'a')
    let child: ChildProcess
    try {
      // stdout and stderr share one append-mode descriptor: interleaved as written, no pipe to drain.
      child = spawn('/bin/sh', ['-c', spec.command], { cwd: spec.cwd, env: spec.env, detached: true, stdio: [spec.background ? 'pipe' : 'ignore', fd, fd] })
    } finally {
      closeSync(fd)
    }
    if (child.pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once('error', resolve))
      throw new Error(`could not start the command: ${error.message}`)
    }
    // Read before returning to the event loop: the child cannot have been reaped yet.
    const startTime = processStartTime(child.pid) ?? Date.now()
    // The environment is not kept: the checkpoint must never hold the secrets it may carry.
    const { env: _env, ...kept } = spec
    const managed = new ManagedProcess({ ...kept, pid: child.pid, startTime }, false, capacity, onEnd)
    managed.#child = child
    // 'exit', not 'close': a grandchild holding a descriptor must not delay the end.
    child.once('exit', (code, signal) => managed.#finish(code, signal, undefined))
    child.stdin?.on('error', () => {})
    managed.#timer = setInterval(() => void managed.tail.catchUp().catch(() => {}), TAIL_EVERY_MS).unref()
    return managed
  }

  /** Follows a process listed in a checkpoint whose pid and start time still match. */
  static adopt(spec: ProcessSpec, capacity: number, onEnd: (process: ManagedProcess) => void): ManagedProcess {
    const managed = new ManagedProcess(spec, true, capacity, onEnd)
    managed.#timer = setInterval(() => {
      void managed.tail.catchUp().catch(() => {})
      if (!isSameProcess(spec.pid, spec.startTime)) managed.#finish(null, null, undefined)
    }, LIVENESS_EVERY_MS).unref()
    return managed
  }

  /** A checkpoint entry whose process ended while no host watched it (or whose pid was reused). */
  static lost(spec: ProcessSpec, capacity: number, note: string): ManagedProcess {
    const managed = new ManagedProcess(spec, true, capacity, () => {})
    managed.#status = 'exited'
    managed.#note = note
    managed.#endedAt = Date.now()
    void managed.tail.catchUp().catch(() => {}).finally(() => managed.#ended.resolve())
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

  /** Resolves once the process has ended and its log has been read to the end. */
  get exited(): Promise<void> {
    return this.#ended.promise
  }

  info(tailChars = 1000): ProcessInfo {
    const buffer = this.tail.buffer
    return {
      id: this.spec.id,
      pid: this.spec.pid,
      command: this.spec.command,
      cwd: this.spec.cwd,
      status: this.#status,
      background: this.spec.background,
      notifyOnComplete: this.spec.notify,
      adopted: this.adopted,
      startedAt: new Date(this.spec.startTime).toISOString(),
      uptimeMs: Math.max(0, (this.#endedAt ?? Date.now()) - this.spec.startTime),
      exitCode: this.#exitCode,
      signal: this.#signal,
      signalsSent: [...this.#signalsSent],
      ...(this.#note === undefined ? {} : { note: this.#note }),
      outputChars: buffer.totalChars,
      droppedChars: buffer.droppedChars,
      lines: buffer.lineCount,
      tail: buffer.tail(tailChars),
      log: this.spec.log,
    }
  }

  /**
   * SIGTERM to the whole process group; once the leader has exited and the group is empty, or after
   * `graceMs`, SIGKILL to whatever is left. Resolves when the process has ended (or, if even SIGKILL
   * did not end it within 5 s, with a note saying so).
   */
  kill(graceMs: number): Promise<void> {
    if (this.#status !== 'running' && !this.#killing) return Promise.resolve()
    this.#killing ??= (async () => {
      this.#signalGroup('SIGTERM')
      const deadline = Date.now() + graceMs
      while (Date.now() < deadline && (this.#status === 'running' || this.#hasStragglers())) {
        await Promise.race([this.#ended.promise, sleep(Math.min(50, Math.max(1, deadline - Date.now())))])
      }
      if (this.#status === 'running' || this.#hasStragglers()) this.#signalGroup('SIGKILL')
      const ended = await Promise.race([this.#ended.promise.then(() => true), sleep(KILL_WAIT_AFTER_SIGKILL_MS).then(() => false)])
      if (!ended) this.#note = `still running ${KILL_WAIT_AFTER_SIGKILL_MS} ms after SIGKILL (stuck in the kernel?)`
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
    this.#child?.unref()
    const stdin = this.#child?.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null | undefined
    stdin?.unref?.()
  }

  /** Stops reading the log; with `deleteLog` the log file is removed too. */
  async dispose(deleteLog: boolean): Promise<void> {
    clearInterval(this.#timer)
    await this.tail.close()
    if (deleteLog) rmSync(this.spec.log, { force: true })
  }

  #finish(code: number | null, signal: string | null, note: string | undefined): void {
    if (this.#status !== 'running') return
    this.#status = 'exited'
    this.#exitCode = code
    this.#signal = signal
    this.#endedAt = Date.now()
    const sent = this.#signalsSent.at(-1)
    if (note !== undefined) this.#note = note
    else if (this.adopted) this.#note = `${sent ? `ended after ${sent} was sent; ` : ''}exit code unknown: an adopted process is not a child of this host`
    clearInterval(this.#timer)
    this.#child?.stdin?.destroy()
    void this.tail.catchUp().catch(() => {}).finally(() => {
      this.#ended.resolve()
      this.#onEnd(this)
    })
  }

  #signalGroup(signal: NodeJS.Signals): void {
    // An adopted group is signalled only while its leader's identity still matches: once it is gone
    // the pid may name another process (group), which must never be touched. Our own child's group,
    // after the leader exited, is signalled only while members remain (they keep its id reserved).
    if (this.adopted && !isSameProcess(this.spec.pid, this.spec.startTime)) return
    if (this.#status !== 'running' && !this.#hasStragglers()) return
    try {
      process.kill(-this.spec.pid, signal)
      this.#signalsSent.push(signal)
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  // Members of our own child's group still alive after the leader exited (never asked of an adopted
  // group: see #signalGroup).
  #hasStragglers(): boolean {
    if (this.adopted) return false
    try {
      process.kill(-this.spec.pid, 0)
      return true
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM'
    }
  }
}
