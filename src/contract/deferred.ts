/** A promise with its resolve function at hand (gates and one-shot signals in the scheduler). */
export interface Deferred<T> {
  promise: Promise<T>
  resolve(value: T): void
  settled: boolean
}

/**
 * A one-shot promise; `resolve` after the first call does nothing, and `settled` says whether it came.
 *
 * @example
 * const gate = createDeferred<void>()
 * setTimeout(() => gate.resolve(), 10)
 * await gate.promise
 */
export function createDeferred<T>(): Deferred<T> {
  let resolveFn!: (value: T) => void
  const deferred: Deferred<T> = {
    promise: new Promise<T>((resolve) => {
      resolveFn = resolve
    }),
    resolve(value: T) {
      if (deferred.settled) return
      deferred.settled = true
      resolveFn(value)
    },
    settled: false,
  }
  return deferred
}
