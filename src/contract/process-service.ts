/**
 * The process service a tool may use (`ctx.services.processes`, the host's `ProcessRegistry`): run
 * commands in the workspace, in the foreground or in the background, and follow them. Types only;
 * processes/process-registry.ts implements it.
 */

/** Whether a process still runs. */
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
  /** Ran inside the bubblewrap sandbox (`terminal.sandbox`). */
  sandboxed: boolean
  /** Processes of its group still running after the leader (the command's shell) exited. */
  stillRunning?: number
  note?: string
  /** Why its output may be missing or incomplete (the log file could not be written or read). */
  logProblem?: string
  /** Characters of output so far, and how many rolled out of memory (all are in the log file). */
  outputChars: number
  droppedChars: number
  lines: number
  tail: string
  /** Absolute path of the log file holding all its output. */
  log: string
}

/** One line of output with its stable 1-based number (counted from the first character ever appended). */
export interface NumberedLine {
  n: number
  text: string
}

/** Lines `from` to `to` of a process's output, both included, by stable line numbers. */
export interface LineRange {
  from: number
  to: number
}

/** One page of a process's output by stable line numbers. */
export interface LogPage {
  id: string
  from: number
  to: number
  totalLines: number
  /** Lines before this one are no longer in memory (they are read from the log file). */
  firstLineInMemory: number
  lines: NumberedLine[]
  fromMemory: LineRange | null
  fromFile: LineRange | null
  /** Lines of the page found neither in memory nor in the log file (it was deleted, or could not grow). */
  missing: LineRange | null
  /** Why the log file may hold less than the process wrote (a full disk: the rest is in memory only), as in `ProcessInfo`. */
  logProblem?: string
}

/** How `spawn` runs a command: where, with what added environment, and whether it outlives the host. */
export interface SpawnOptions {
  /** Working folder, relative to the workspace root (default: the root). */
  cwd?: string
  /** Variables added to the base environment. */
  env?: Record<string, string>
  /** Keeps running after the host closes (and gets a stdin for `write`). */
  background?: boolean
  /** Queue a completion when it ends (see `completions()`). */
  notifyOnComplete?: boolean
}

/** How `wait` ended: the process exited, the wait's time ran out, or the wait was aborted. */
export type WaitOutcome = 'exited' | 'timeout' | 'interrupted'

/**
 * What a tool can do with the host's processes. Ids are the host's (`proc_…`); an unknown id throws
 * E_NOT_FOUND naming the ones it knows.
 */
export interface ProcessService {
  /** Runs `command` with `/bin/sh -c` in its own process group. Throws E_LIMIT at `processes.max_running`. */
  spawn(command: string, options?: SpawnOptions): Promise<ProcessInfo>
  /** The host's processes (running, and ended ones still retained), without their output. */
  list(): ProcessInfo[]
  /** Status, pid, uptime, exit code or signal, and the last 1000 characters. */
  poll(id: string): Promise<ProcessInfo>
  /** Lines `offset`..`offset + limit - 1` (1-based, stable); without `offset`, the last `limit` lines. */
  log(id: string, page?: { offset?: number; limit?: number }): Promise<LogPage>
  /** Waits for the process (its group, or with `until: 'leader'` its shell) to end, a timeout, or `signal`. */
  wait(id: string, options?: { timeoutMs?: number; signal?: AbortSignal; tailChars?: number; until?: 'group' | 'leader' }): Promise<{ outcome: WaitOutcome; process: ProcessInfo }>
  /** SIGTERM to the group, SIGKILL after the grace time; resolves with how it really ended. */
  kill(id: string, options?: { tailChars?: number }): Promise<ProcessInfo>
  /** Writes to the stdin of a background process this host spawned. */
  write(id: string, data: string): Promise<void>
}
