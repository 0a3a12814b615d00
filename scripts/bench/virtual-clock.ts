/**
 * A virtual clock for the scheduling benchmark: handlers `await clock.sleep(ms)`, and time jumps to
 * the next timer only once the event loop has nothing else to do, so makespans are exact and a run
 * of simulated minutes takes milliseconds.
 */
import { nextTurn } from './table.js'

interface Timer {
  at: number
  seq: number
  resolve: () => void
}

export class VirtualClock {
  #now = 0
  #seq = 0
  // Sorted by (at, seq); batches hold at most a few dozen timers, so insertion sort is enough.
  readonly #timers: Timer[] = []
  /** Bumped on every sleep and every timer fired: lets `settle` see whether work is still flowing. */
  #activity = 0

  now(): number {
    return this.#now
  }

  /** Resolves after `ms` of virtual time. */
  sleep(ms: number): Promise<void> {
    this.#activity++
    return new Promise((resolve) => {
      const timer: Timer = { at: this.#now + ms, seq: ++this.#seq, resolve }
      let i = this.#timers.length
      while (i > 0 && (this.#timers[i - 1]!.at > timer.at || (this.#timers[i - 1]!.at === timer.at && this.#timers[i - 1]!.seq > timer.seq))) i--
      this.#timers.splice(i, 0, timer)
    })
  }

  /**
   * Drives virtual time until `promise` settles: let every ready callback run (several event-loop
   * turns, until a turn changes nothing), then jump to the earliest timer and fire every timer due
   * then. Throws if the promise is still pending with no timer left (a deadlock).
   */
  async runUntil<T>(promise: Promise<T>, activity: () => number = () => 0): Promise<T> {
    let settled = false
    promise.then(
      () => (settled = true),
      () => (settled = true),
    )
    for (;;) {
      await this.settle(activity)
      if (settled) return promise
      const first = this.#timers[0]
      if (!first) throw new Error(`virtual clock: the run is still pending at ${this.#now} ms with no timer left (deadlock)`)
      this.#now = first.at
      while (this.#timers.length > 0 && this.#timers[0]!.at === this.#now) {
        this.#activity++
        this.#timers.shift()!.resolve()
      }
    }
  }

  /** Runs event-loop turns until two in a row see no new activity (sleeps, timers, host events). */
  async settle(activity: () => number = () => 0): Promise<void> {
    let quiet = 0
    let last = this.#activity + activity()
    while (quiet < 2) {
      await nextTurn()
      const current = this.#activity + activity()
      quiet = current === last ? quiet + 1 : 0
      last = current
    }
  }
}
