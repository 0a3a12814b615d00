/** A wake-up taken before asking the store: see `WakeUps.take`. */
export interface WakeUp {
  /** Resolves at the first `wakeAll` since the wake-up was taken, or after `ms`; rejects with the signal's reason on abort. */
  wait(ms: number, signal?: AbortSignal): Promise<void>
}

/**
 * Wake-ups for requests waiting on a remote store: a request takes one before it asks, so a release
 * announced between the answer and the wait still wakes it; `ms` bounds every wait (what is not
 * announced, such as a host's session lapsing, is seen at the next poll).
 *
 * @example
 * const wake = wakeUps.take()
 * const answer = await askStore()
 * if (mustWait(answer)) await wake.wait(250, signal)
 */
export class WakeUps {
  readonly #wakers = new Set<() => void>()
  #closed = false

  /** Wakes every wake-up taken so far. */
  wakeAll(): void {
    const wakers = [...this.#wakers]
    this.#wakers.clear()
    for (const wake of wakers) wake()
  }

  /** Wakes everything, and every later wait resolves at once. */
  close(): void {
    this.#closed = true
    this.wakeAll()
  }

  take(): WakeUp {
    let woken = false
    let wake: () => void = () => void (woken = true)
    const waker = (): void => wake()
    this.#wakers.add(waker)
    return {
      wait: (ms, signal) =>
        new Promise<void>((resolve, reject) => {
          if (woken || this.#closed) {
            this.#wakers.delete(waker)
            return resolve()
          }
          const done = (): void => {
            clearTimeout(timer)
            signal?.removeEventListener('abort', aborted)
            this.#wakers.delete(waker)
            resolve()
          }
          const aborted = (): void => {
            clearTimeout(timer)
            this.#wakers.delete(waker)
            reject(signal!.reason)
          }
          const timer = setTimeout(done, ms)
          wake = done
          if (signal?.aborted) return aborted()
          signal?.addEventListener('abort', aborted, { once: true })
        }),
    }
  }
}
