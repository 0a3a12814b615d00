import type { ManagedProcess } from './managed-process.js'

/** A process started with `notifyOnComplete` has ended. Delivered exactly once. */
export interface ProcessCompletion {
  id: string
  command: string
  /** The exit code, or null when it ended by a signal or its code cannot be known (adopted process). */
  exitCode: number | null
  /** The signal that ended it, when the host saw one. */
  signal: string | null
  /** The last output (up to 1000 characters). */
  tail: string
  /** ISO time the host noticed the end. */
  endedAt: string
  /** How the end was observed, when there is more to say (e.g. "exit code unknown"). */
  note?: string
}

/**
 * An ended process's completion: how it ended, its last 1000 characters of output, when.
 *
 * @example
 * queue.push(completionOf(managed)) // { id: 'proc_…', command: 'npm test', exitCode: 0, signal: null, tail: '…', endedAt: '…' }
 */
export function completionOf(managed: ManagedProcess): ProcessCompletion {
  const note = managed.note
  return {
    id: managed.id,
    command: managed.spec.command,
    exitCode: managed.exitCode,
    signal: managed.signal,
    tail: managed.tail.buffer.tail(1000),
    endedAt: new Date(managed.endedAt ?? Date.now()).toISOString(),
    ...(note === undefined ? {} : { note }),
  }
}

/**
 * The queue of completions not yet delivered. `take()` and the iterators hand each completion out
 * once (the first taker wins), and only after `claim(id)` says this queue may (`CompletionClaims`:
 * another host on the workspace may have delivered it; then it is dropped); `onChange` runs after
 * every change so the owner can persist the queue (the process registry rewrites its checkpoint).
 *
 * @example
 * const queue = new CompletionQueue(() => save(), (id) => claims.claim(id))
 * queue.push(completion)
 * for await (const c of queue.drain(signal)) console.log(c.id, c.exitCode)
 */
export class CompletionQueue {
  #items: ProcessCompletion[] = []
  #waiters = new Set<() => void>()
  #closed = false
  readonly #onChange: () => void
  readonly #claim: (id: string) => boolean

  constructor(onChange: () => void = () => {}, claim: (id: string) => boolean = () => true) {
    this.#onChange = onChange
    this.#claim = claim
  }

  /** Completions waiting to be delivered, oldest first. */
  get pending(): readonly ProcessCompletion[] {
    return this.#items
  }

  /** Adds completions (a restart reloads them); ids already queued are not queued twice. */
  push(...completions: ProcessCompletion[]): void {
    let added = false
    for (const completion of completions) {
      if (this.#items.some((c) => c.id === completion.id)) continue
      this.#items.push(completion)
      added = true
    }
    if (!added) return
    this.#onChange()
    for (const wake of [...this.#waiters]) wake()
  }

  /**
   * Removes and returns the oldest completion this queue may deliver, or undefined. One that another
   * host claimed first is dropped on the way (it was delivered there).
   */
  take(): ProcessCompletion | undefined {
    if (this.#items.length === 0) return undefined
    let next = this.#items.shift()
    while (next !== undefined && !this.#claim(next.id)) next = this.#items.shift()
    this.#onChange()
    return next
  }

  /**
   * Yields each completion as it becomes available, until `signal` aborts or the queue closes.
   * A completion is removed (and the removal persisted) just before it is yielded.
   */
  async *drain(signal?: AbortSignal): AsyncGenerator<ProcessCompletion, void, undefined> {
    while (!this.#closed && !signal?.aborted) {
      const next = this.take()
      if (next) {
        yield next
        continue
      }
      await this.#nextChange(signal)
    }
  }

  /** Ends every drain loop. */
  close(): void {
    this.#closed = true
    for (const wake of [...this.#waiters]) wake()
  }

  #nextChange(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        this.#waiters.delete(wake)
        signal?.removeEventListener('abort', wake)
        resolve()
      }
      this.#waiters.add(wake)
      signal?.addEventListener('abort', wake, { once: true })
    })
  }
}
