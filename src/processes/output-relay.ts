import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { constants, existsSync, lstatSync, openSync, readdirSync, readlinkSync, statfsSync } from 'node:fs'
import path from 'node:path'
import type { Readable, Writable } from 'node:stream'

/**
 * A command's output on its way to its log file, through `tee`, so the host gets it too: the command
 * writes into `tee`, which appends to the log (the descriptor the host opened, never following a
 * link) and copies everything to the host. When the log cannot grow (a full disk: ENOSPC) the host
 * still has the output in memory, and `tee` says why the log stopped. If the host dies, `tee -p`
 * ignores the broken copy and goes on appending to the log, so a background command keeps logging
 * for the next host to adopt, as when it wrote the log itself. `tee` runs in a session of its own:
 * it is not part of the command's group, and it ends when the last writer of the command's output
 * has gone.
 *
 * @example
 * const relay = OutputRelay.start(tee, logFd, (bytes) => tail.push(bytes), (why) => note(why))
 * spawn('/bin/sh', ['-c', command], { stdio: ['ignore', relay.input, relay.input] }); relay.started()
 */
export class OutputRelay {
  readonly #tee: ChildProcess
  readonly #copy: Readable
  readonly #input: Writable
  readonly #ended: Promise<void>
  // What the command writes into (`/proc/<pid>/fd/1`'s link, e.g. socket:[123]): whoever holds it
  // open can still write; undefined when it could not be read.
  #writerEnd: string | undefined

  private constructor(tee: ChildProcess, onData: (bytes: Buffer) => void, onProblem: (why: string) => void) {
    this.#tee = tee
    this.#input = tee.stdin!
    this.#writerEnd = linkOf(this.#input)
    this.#copy = tee.stdout!
    this.#copy.on('data', onData)
    this.#copy.on('error', () => {})
    this.#input.on('error', () => {})
    let said = ''
    tee.stderr!.setEncoding('utf8')
    tee.stderr!.on('data', (text: string) => {
      said += text
      // tee's words: "/usr/bin/tee: /dev/fd/3: No space left on device" (the reason is what the host keeps).
      const line = said.split('\n').find((l) => l.trim() !== '')
      if (line !== undefined) onProblem(line.replace(/^\S*tee: ('?)\/dev\/fd\/3\1: /, '').trim())
    })
    tee.stderr!.on('error', () => {})
    this.#ended = new Promise<void>((resolve) => {
      this.#copy.once('close', resolve)
      tee.once('error', () => resolve())
    })
  }

  /**
   * Starts `tee` appending to `logFd` (already open for append) and copying to the host. Returns
   * undefined when it could not start (the caller then lets the command write the log itself).
   */
  static start(tee: string, logFd: number, onData: (bytes: Buffer) => void, onProblem: (why: string) => void): OutputRelay | undefined {
    let child: ChildProcess
    try {
      // -p: a broken copy to the host (the host died) is not an error; -a: append, as the descriptor does.
      child = spawn(tee, ['-p', '-a', '/dev/fd/3'], { stdio: ['pipe', 'pipe', 'pipe', logFd], detached: true })
    } catch {
      return undefined
    }
    if (child.pid === undefined) return undefined
    return new OutputRelay(child, onData, onProblem)
  }

  /** What the command's stdout and stderr are given: the write end of `tee`'s input. */
  get input(): Writable {
    return this.#input
  }

  /** Resolves once `tee` has copied the last of the output (the command and all it started closed it). */
  get ended(): Promise<void> {
    return this.#ended
  }

  /**
   * Whether a process other than `tee` still holds the input open (it will write more, and `tee` has
   * not seen the end): a process the command started that escaped it. When none does, `ended` is
   * certain to come, however slow `tee` is. One scan of `/proc` (the relay runs only on Linux).
   */
  isInputHeld(): boolean {
    const input = this.#writerEnd
    if (input === undefined) return true // not known: assume the worst, the wait is bounded
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
      let fds: string[]
      try {
        fds = readdirSync(`/proc/${name}/fd`)
      } catch {
        continue // ended, or not ours to read
      }
      for (const fd of fds) {
        try {
          if (readlinkSync(`/proc/${name}/fd/${fd}`) === input) return true
        } catch {
          // closed meanwhile
        }
      }
    }
    return false
  }

  /**
   * The command (`pid`, when it started) has its own copy of the input now: the host notes what it
   * writes into, then lets go of its own copy, so `tee` sees the end when the command's processes do.
   */
  started(pid: number | undefined): void {
    if (this.#writerEnd === undefined && pid !== undefined) {
      try {
        this.#writerEnd = readlinkSync(`/proc/${pid}/fd/1`)
      } catch {
        // It has ended already: whoever it left holding its output is not known.
      }
    }
    this.#input.destroy()
  }

  /** The host stops reading (closing, or done with it): `tee` goes on appending to the log alone. */
  release(): void {
    this.#input.destroy()
    this.#copy.destroy()
    this.#tee.stderr?.destroy()
    this.#tee.unref()
  }
}

// The `/proc/self/fd` link of the host's own end of a pipe or socket (`socket:[123]`): the end the
// command gets a copy of. Read through the handle's descriptor (Node's stream internals, on Unix);
// undefined when that is not there.
function linkOf(stream: Writable): string | undefined {
  const fd = (stream as unknown as { _handle?: { fd?: unknown } })._handle?.fd
  if (typeof fd !== 'number' || fd < 0) return undefined
  try {
    return readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
}

let probed: { tee: string | undefined } | undefined

/**
 * The `tee` that can relay output (GNU coreutils or busybox: it takes `-p`), or undefined where
 * there is none (then commands write their logs themselves, and a full disk loses their output).
 * Asked once per process.
 *
 * @example
 * findRelayTee() // '/usr/bin/tee'
 */
export function findRelayTee(): string | undefined {
  if (probed) return probed.tee
  let tee: string | undefined
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    if (dir === '' || !existsSync(path.join(dir, 'tee'))) continue
    const candidate = path.join(dir, 'tee')
    const probe = spawnSync(candidate, ['-p', '-a', '/dev/null'], { input: '', timeout: 5000 })
    if (probe.status === 0 && process.platform === 'linux') tee = candidate
    break
  }
  probed = { tee }
  return tee
}

/**
 * What every reader is told when the relay could not append to the log (a full disk): the output
 * is still in memory, the log stopped short.
 *
 * @example
 * logStoppedNote('/ws/.toolhost/processes/proc_1.log', 'No space left on device', 200_000)
 */
export function logStoppedNote(log: string, why: string, capacity: number): string {
  let size = ''
  try {
    size = ` at ${lstatSync(log).size} bytes`
  } catch {
    // The log is gone as well; the reason says enough.
  }
  return `the log file stopped growing${size} (${why}): the output is kept in memory only, its latest ${capacity} characters (processes.buffer_chars); lines that leave memory are lost`
}

/**
 * Opens a command's log for appending. O_NOFOLLOW: a link planted at the log's name is refused,
 * never written through.
 *
 * @example
 * const fd = openLogFile('/ws/.toolhost/processes/proc_1.log')
 */
export function openLogFile(file: string): number {
  return openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o666)
}

/** Below this many free bytes on the log's file system, an empty or short log is blamed on a full disk. */
const LOW_DISK_BYTES = 1024 * 1024

/**
 * Without the relay, a process's own failed writes to its log cannot be seen: when the log's disk
 * is nearly full, its output is likely missing, and the result says so instead of a bare
 * "(no output)". Undefined when there is room.
 *
 * @example
 * lowDiskNote('/ws/.toolhost/processes/proc_1.log') // undefined, or 'output may be missing: the log file could not grow: …'
 */
export function lowDiskNote(log: string): string | undefined {
  try {
    const fs = statfsSync(path.dirname(log))
    const free = fs.bavail * fs.bsize
    return free < LOW_DISK_BYTES ? `output may be missing: the log file could not grow: its disk has only ${free} bytes free (${path.dirname(log)}), so output is likely missing` : undefined
  } catch (error) {
    return `output may be missing: the log folder could not be checked (${(error as Error).message})`
  }
}
