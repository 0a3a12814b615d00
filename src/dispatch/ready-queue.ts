import type { Queue, QueueAddOptions } from 'p-queue'

/** A task as p-queue hands it to its queue class. */
type RunFunction = () => Promise<unknown>

/** What the scheduler hands p-queue's `add` beside the task: its priority, its id and its place in call order. */
export type ReadyOptions = QueueAddOptions & {
  /** Arrival order: the tie-break between equal priorities (earlier first). */
  readonly seq?: number
}

interface Entry {
  run: RunFunction
  id: string | undefined
  priority: number
  seq: number
  /** Where the entry sits in the heap; -1 once it has left. */
  at: number
}

/**
 * p-queue's queue class for the worker pool: the calls that wait only for a worker, highest
 * priority first and, between equal priorities, the earliest arrival (call order) first. A binary
 * heap that knows where each entry sits, so p-queue's `setPriority` moves one waiting call in
 * O(log n) (p-queue's own sorted array ties by enqueue order and moves a call in O(n)).
 *
 * @example
 * const pool = new PQueue<ReadyQueue, ReadyOptions>({ concurrency: 8, queueClass: ReadyQueue })
 * void pool.add(() => run(job), { priority: 120, id: '7', seq: 7 })
 * pool.setPriority('7', 300) // the bottom level grew: it goes first for the next free worker
 */
export class ReadyQueue implements Queue<RunFunction, ReadyOptions> {
  readonly #heap: Entry[] = []
  // Only entries with an id are findable (the scheduler gives one to every call).
  readonly #byId = new Map<string, Entry>()

  get size(): number {
    return this.#heap.length
  }

  enqueue(run: RunFunction, options?: Partial<ReadyOptions>): void {
    const entry: Entry = { run, id: options?.id, priority: options?.priority ?? 0, seq: options?.seq ?? 0, at: this.#heap.length }
    this.#heap.push(entry)
    if (entry.id !== undefined) this.#byId.set(entry.id, entry)
    this.#up(entry.at)
  }

  dequeue(): RunFunction | undefined {
    const top = this.#heap[0]
    if (top === undefined) return undefined
    this.#removeAt(0)
    return top.run
  }

  setPriority(id: string, priority: number): void {
    const entry = this.#byId.get(id)
    if (entry === undefined) throw new ReferenceError(`No promise function with the id "${id}" exists in the queue.`)
    const before = entry.priority
    entry.priority = priority
    if (priority > before) this.#up(entry.at)
    else this.#down(entry.at)
  }

  /** The priority of a waiting call, or undefined once it has left the queue. */
  priorityOf(id: string): number | undefined {
    return this.#byId.get(id)?.priority
  }

  remove(id: string): void {
    const entry = this.#byId.get(id)
    if (entry !== undefined) this.#removeAt(entry.at)
  }

  filter(options: Readonly<Partial<ReadyOptions>>): RunFunction[] {
    return this.#heap.filter((e) => e.priority === options.priority).map((e) => e.run)
  }

  #removeAt(i: number): void {
    const heap = this.#heap
    const gone = heap[i]!
    gone.at = -1
    if (gone.id !== undefined) this.#byId.delete(gone.id)
    const last = heap.pop()!
    if (i === heap.length) return
    heap[i] = last
    last.at = i
    this.#up(i)
    this.#down(last.at)
  }

  // a before b: higher priority, then earlier arrival.
  #before(a: Entry, b: Entry): boolean {
    return a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq)
  }

  #up(i: number): void {
    const heap = this.#heap
    const item = heap[i]!
    while (i > 0) {
      const parent = (i - 1) >> 1
      const p = heap[parent]!
      if (!this.#before(item, p)) break
      heap[i] = p
      p.at = i
      i = parent
    }
    heap[i] = item
    item.at = i
  }

  #down(i: number): void {
    const heap = this.#heap
    const n = heap.length
    const item = heap[i]!
    for (;;) {
      const left = 2 * i + 1
      if (left >= n) break
      const right = left + 1
      const child = right < n && this.#before(heap[right]!, heap[left]!) ? right : left
      const c = heap[child]!
      if (!this.#before(c, item)) break
      heap[i] = c
      c.at = i
      i = child
    }
    heap[i] = item
    item.at = i
  }
}
