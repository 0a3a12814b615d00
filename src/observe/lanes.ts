/**
 * Worker lanes for a picture of a schedule: a call that starts takes the lowest lane no running call
 * holds, and gives it back when its worker slot is released. Lanes follow the scheduler's running
 * count, so there are never more of them than calls that ran at once (at most `max_workers`), and
 * two calls on one lane never overlap.
 *
 * @example
 * const lanes = new LaneAllocator()
 * const a = lanes.take() // 0
 * const b = lanes.take() // 1
 * lanes.free(a)
 * lanes.take() // 0 again
 */
export class LaneAllocator {
  readonly #busy: boolean[] = []
  #peak = 0

  /** The lowest free lane, now held. */
  take(): number {
    let lane = this.#busy.indexOf(false)
    if (lane === -1) lane = this.#busy.length
    this.#busy[lane] = true
    if (lane + 1 > this.#peak) this.#peak = lane + 1
    return lane
  }

  /** Gives `lane` back (freeing a free lane does nothing). */
  free(lane: number): void {
    if (lane < this.#busy.length) this.#busy[lane] = false
  }

  /** How many lanes were ever used at once. */
  get peak(): number {
    return this.#peak
  }
}
