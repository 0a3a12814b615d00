import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDeferred } from '../contract/deferred.js'
import type { ProcessInfo, ProcessStatus } from '../contract/process-service.js'
import { LogTail } from './log-file.js'
import { launchArgv } from './containment.js'
import { logStoppedNote, lowDiskNote, openLogFile, OutputRelay } from './output-relay.js'
import { GroupWatch, LIVENESS_EVERY_MS } from './group-watch.js'
import { hasGroupMembers, isOurGroup, MARKER_VARIABLE, signalCommand } from './process-group.js'
import type { SandboxPlan } from './sandbox.js'
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
  /** The `tee` that relays the output to the host as it is written (`output-relay.ts`); absent: the command writes its log alone. */
  relay?: string
  /** Opens the log file for appending (default: O_APPEND, never through a link); tests inject one that fails. */
  openLog?: (file: string) => number
}

const TAIL_EVERY_MS = 200
const KILL_WAIT_AFTER_SIGKILL_MS = 5000
/** After the command ended, how long to wait for the relay's last output while a process that escaped the command still holds the output open. */
export const RELAY_DRAIN_MS = 1000

/**
 * One process the host follows: its own child (exit code and signal come from the 'exit' event) or
 * one adopted from a checkpoint (its exit code cannot be known). Its stdout and stderr, interleaved,
 * go into its log file through the `tee` relay, which copies them to the host's rolling buffer as
 * they are written (so a log that cannot grow costs no output) and goes on logging if the host dies;
 * without a relay (or once adopted) the process writes the log itself and the host tails the file.
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
  // The group after the leader's exit, until it is empty.
  #group: GroupWatch | undefined
  #child: ChildProcess | undefined
  #timer: NodeJS.Timeout | undefined
  #killing: Promise<void> | undefined
  #relay: OutputRelay | undefined
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
      fd = (spec.openLog ?? openLogFile)(spec.log)
    } catch (error) {
      throw new Error(`could not open the log file ${spec.log} for the command's output: ${(error as Error).message}`)
    }
    let child: ChildProcess | undefined
    const spawnedAt = Date.now()
    // What the relay hands over before the process object exists (nothing should: nothing awaits in between).
    const early: Buffer[] = []
    let failed: string | undefined
    let deliver = (bytes: Buffer): void => void early.push(bytes)
    let complain = (why: string): void => void (failed ??= why)
    const relay = spec.relay ? OutputRelay.start(spec.relay, fd, (bytes) => deliver(bytes), (why) => complain(why)) : undefined
    try {
      const env = { ...spec.env, [MARKER_VARIABLE]: spec.marker }
      const [file, args] = launchArgv(spec.command, spec.cwd, spec)
      // stdout and stderr share one append-mode descriptor (the log's, or the relay's input):
      // interleaved as written. detached: the child calls setsid(), so it leads a new session and
      // group with no terminal.
      const out = relay ? relay.input : fd
      child = spawn(file, args, { cwd: spec.cwd, env, detached: true, stdio: [spec.background ? 'pipe' : 'ignore', out, out] })
    } finally {
      closeSync(fd)
      relay?.started(child?.pid)
    }
    const started = child! // spawn threw otherwise
    const pid = started.pid
    if (pid === undefined) {
      const error = await new Promise<Error>((resolve) => started.once('error', resolve))
      throw new Error(`could not start the command: ${error.message}`)
    }
    // Read before returning to the event loop: the child cannot have been reaped yet.
    const startTime = processStartTime(pid) ?? Date.now()
    // The environment and the sandbox plan are not kept: the checkpoint must never hold the secrets the environment may carry.
    const { env: _env, marker, sandbox, contain: _contain, relay: _relay, openLog: _openLog, ...kept } = spec
    const managed = new ManagedProcess({ ...kept, pid, startTime, ...(sandbox ? { sandboxed: true } : {}) }, false, marker, capacity, onEnd)
    managed.#child = started
    managed.#spawnedAt = spawnedAt
    if (relay) {
      managed.#relay = relay
      managed.tail.followPushes()
      deliver = (bytes) => managed.tail.push(bytes)
      complain = (why) => managed.#onLogFailure(why)
      for (const bytes of early) deliver(bytes)
      if (failed !== undefined) complain(failed)
    }
    // 'exit', not 'close': a grandchild holding a descriptor must not delay the end.
    started.once('exit', (code, signal) => managed.#onLeaderExit(code, signal))
    started.stdin?.on('error', () => {})
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

  /** Why its output may be missing or kept only in memory (the log file could not be written or read). */
  get logProblem(): string | undefined {
    return this.#logProblem
  }

  /** Resolves once every process of its group has ended and its log has been read to the end. */
  get exited(): Promise<void> {
    return this.#ended.promise
  }

  /** Resolves once the leader (the command's shell) has exited; its group may still have members. */
  get leaderExited(): Promise<void> {
    return this.#leaderEnded.promise
  }

  /**
   * The leader has exited and nothing the command started is left, only the sandbox's own process
   * on its way out: the command has ended, and `exited` follows within moments.
   */
  get endingInSandbox(): boolean {
    return this.#status === 'running' && this.#group?.sandboxOnly === true
  }

  info(tailChars = 1000): ProcessInfo {
    const buffer = this.tail.buffer
    const stillRunning = this.#status === 'running' ? (this.#group?.stillRunning ?? 0) : 0
    const lingering = stillRunning > 0
    const note = lingering ? `its shell exited with ${this.#signal ?? `code ${this.#exitCode}`}, but ${stillRunning} process${stillRunning === 1 ? '' : 'es'} it started ${stillRunning === 1 ? 'is' : 'are'} still running in its group` : this.#note
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
      ...(lingering ? { stillRunning } : {}),
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
        this.#group?.check()
      }
      if (this.#status === 'running') this.#signalGroup('SIGKILL')
      const until = Date.now() + KILL_WAIT_AFTER_SIGKILL_MS
      while (Date.now() < until && this.#status === 'running') {
        await Promise.race([this.#ended.promise, sleep(50)])
        this.#group?.check()
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
    this.#group?.stop()
    // The relay goes on appending to the log without the host.
    this.#relay?.release()
    this.#child?.unref()
    const stdin = this.#child?.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null | undefined
    stdin?.unref?.()
  }

  /** Stops reading the log; with `deleteLog` the log file is removed too. */
  async dispose(deleteLog: boolean): Promise<void> {
    clearInterval(this.#timer)
    this.#group?.stop()
    this.#relay?.release()
    await this.tail.close()
    if (deleteLog) rmSync(this.spec.log, { force: true })
  }

  #catchUp(): Promise<void> {
    return this.tail.catchUp().then(
      () => {
        if (this.#logProblem?.startsWith('output may be missing: the log file could not be read')) this.#logProblem = undefined
      },
      (error: Error) => {
        this.#logProblem = `output may be missing: the log file could not be read (${error.message}); output since then is missing from memory`
      },
    )
  }

  // The leader's exit: the command has ended only once its whole group has.
  #onLeaderExit(code: number | null, signal: string | null): void {
    this.#exitCode = code
    this.#signal = signal
    this.#leaderEnded.resolve()
    if (this.#status !== 'running' || this.adopted) return
    this.#group = new GroupWatch(this.spec.pid, this.spec.background, () => this.#finish(this.#exitCode, this.#signal, undefined))
    this.#group.start()
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
    this.#group?.stop()
    this.#child?.stdin?.destroy()
    void this.#drain().finally(() => {
      // Without the relay the process's own failed writes cannot be seen: a nearly full disk is the likely reason.
      if (!this.#relay) this.#logProblem ??= lowDiskNote(this.spec.log)
      this.#ended.resolve()
      this.#onEnd(this)
    })
  }

  // The last of the output: read from the log, or handed over by the relay, which ends once every
  // process of the command has closed its output — however long a loaded machine takes. Only when
  // a process that escaped the command (no containment) still holds it open is the wait bounded:
  // then what arrived within RELAY_DRAIN_MS.
  async #drain(): Promise<void> {
    const relay = this.#relay
    if (!relay) return this.#catchUp()
    if (!relay.isInputHeld()) return relay.ended
    let timer: NodeJS.Timeout | undefined
    await Promise.race([relay.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, RELAY_DRAIN_MS)))])
    clearTimeout(timer)
  }

  // The relay could not append to the log (a full disk): the output is still all in memory, and every
  // reader (poll, log pages, the terminal's result) is told the log stopped short.
  #onLogFailure(why: string): void {
    this.#logProblem = logStoppedNote(this.spec.log, why, this.tail.buffer.capacity)
  }

  #signalGroup(signal: NodeJS.Signals): void {
    // Never pid 0, 1 or a negative pid: kill(-1) would reach every process the user may signal.
    if (!Number.isInteger(this.spec.pid) || this.spec.pid <= 1) return
    // An adopted group is signalled only while it is still proven ours (its marker, its leader's
    // start time). Our own child's group: while the leader is unreaped or members remain, its id is
    // reserved and cannot name another group.
    if (this.adopted ? !isOurGroup(this.spec.pid, this.spec.startTime, this.#marker) : this.#leaderEnded.settled && !hasGroupMembers(this.spec.pid)) return
    if (signalCommand(this.spec.pid, signal, this.adopted ? this.#marker : undefined)) this.#signalsSent.push(signal)
  }
}
