import { commandProcesses, hasGroupMembers, isBwrapProcess } from './process-group.js'

/** How often a group whose leader exited is looked at (and an adopted one). */
export const LIVENESS_EVERY_MS = 250
// While only the sandbox's own processes are left (bwrap's init in the command's PID namespace ends
// just after bwrap reports the command's exit), the group is looked at this often, this many times,
// before the usual LIVENESS_EVERY_MS.
const SANDBOX_ENDING_EVERY_MS = 10
const SANDBOX_ENDING_CHECKS = 100

/**
 * A command's process group after its leader (the shell) exited: looked at until it is empty, then
 * `onEmpty`. Meanwhile it counts who is left, the group and those that left it, but not bwrap's
 * own processes; when only those are left the command has ended and the group is looked at soon.
 *
 * @example
 * const watch = new GroupWatch(pid, false, () => finish())
 * watch.start() // onEmpty at once if the group is empty, else once it is
 * watch.stillRunning // processes the command left running (at least 1 while watched)
 */
export class GroupWatch {
  /** Processes the command left running at the last look (at least 1 until the group is empty). */
  stillRunning = 0
  /** Only the sandbox's own processes were left at the last look: the command has ended. */
  sandboxOnly = false
  readonly #pgid: number
  readonly #background: boolean
  readonly #onEmpty: () => void
  #timer: NodeJS.Timeout | undefined
  #fastChecks = 0
  #done = false

  /** `background`: the watch does not hold the host open (a foreground command is waited for or killed). */
  constructor(pgid: number, background: boolean, onEmpty: () => void) {
    this.#pgid = pgid
    this.#background = background
    this.#onEmpty = onEmpty
  }

  start(): void {
    if (this.check()) this.#next()
  }

  /** Stops looking (the command ended, or the host stopped following it). */
  stop(): void {
    this.#done = true
    clearTimeout(this.#timer)
  }

  #next(): void {
    if (this.#done) return
    const fast = this.sandboxOnly && this.#fastChecks < SANDBOX_ENDING_CHECKS
    if (fast) this.#fastChecks++
    this.#timer = setTimeout(() => {
      if (this.check()) this.#next()
    }, fast ? SANDBOX_ENDING_EVERY_MS : LIVENESS_EVERY_MS)
    if (this.#background) this.#timer.unref()
  }

  /** Looks now (also for a kill waiting for the group to end): false once the group is empty (`onEmpty` was called). */
  check(): boolean {
    if (this.#done) return false
    if (!hasGroupMembers(this.#pgid)) {
      this.stop()
      this.stillRunning = 0
      this.#onEmpty()
      return false
    }
    const { members, outside } = commandProcesses(this.#pgid)
    let left = 0
    for (const pid of [...members, ...outside]) if (!isBwrapProcess(pid)) left++
    this.sandboxOnly = left === 0
    this.stillRunning = Math.max(1, left)
    return true
  }
}
