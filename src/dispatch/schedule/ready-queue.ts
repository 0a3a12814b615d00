import type { Queue, QueueAddOptions } from 'p-queue'

/** A task as p-queue hands it to its queue class. */
type RunFunction = () => Promise<unknown>

/** What the scheduler hands p-queue's `add` beside the task: its priority, its id and its place in call order. */
export type ReadyOptions = QueueAddOptions & {
  /** Arrival order: the tie-break between equal priorities (earlier first). */
  seq?: number
  /** What the task stands for (the pool's call), so waiting tasks can be taken out again (`take`). */
  item?: unknown
}

// `Entry.at` of an entry in the run (outside the heap).
const IN_RUN = -2
// Taken entries are cut off the front of the run once this many (and half of it) have gone.
const RUN_COMPACT_AT = 1024

// The options object p-queue builds for each task (a fresh copy per add) is the heap entry itself,
// with the task and its heap position added: no second object per call.
interface Entry {
  run: RunFunction
  id?: string | undefined
  priority: number
  seq: number
  item?: unknown
  /** Where the entry sits in the heap; IN_RUN while in the run; -1 once it has left. */
  at: number
}

/**
 * The worker pool's queue (its slots take the next call from it, worker-slots.ts) and p-queue's
 * queue class for the rate groups: waiting calls (for a worker, or in a group for a rate slot),
 * highest priority first and, between equal priorities, the earliest arrival (call order) first (p-queue's
 * own sorted array ties by enqueue order, which is not call order when later calls become ready
 * first). A binary heap, O(log n) in and out, beside a run of entries that arrived already in
 * order (each after the one before: the common case, equal priorities in call order), which go in
 * and out in O(1); the next task is the first of the two. `setPriority` finds the entry by a scan,
 * as p-queue's own queue does: it is rare (a bottom level grew), and an index by id would cost every
 * call a map entry. It and the other rare changes first move the run into the heap.
 *
 * @example
 * const pool = new PQueue<ReadyQueue, ReadyOptions>({ concurrency: 8, queueClass: ReadyQueue })
 * void pool.add(() => run(job), { priority: 120, id: '7', seq: 7 })
 * pool.setPriority('7', 300) // the bottom level grew: it goes first for the next free worker
 */
export class ReadyQueue implements Queue<RunFunction, ReadyOptions> {
  readonly #heap: Entry[] = []
  // The run: entries in order from #runHead on (each not before the one ahead of it).
  #run: Entry[] = []
  #runHead = 0

  get size(): number {
    return this.#heap.length + this.#run.length - this.#runHead
  }

  enqueue(run: RunFunction, options?: Partial<ReadyOptions>): void {
    const entry = (options ?? {}) as Entry
    entry.run = run
    entry.priority ??= 0
    entry.seq ??= 0
    const last = this.#run.length > this.#runHead ? this.#run[this.#run.length - 1]! : undefined
    if (last === undefined || !this.#before(entry, last)) {
      entry.at = IN_RUN
      this.#run.push(entry)
      return
    }
    entry.at = this.#heap.length
    this.#heap.push(entry)
    this.#up(entry.at)
  }

  dequeue(): RunFunction | undefined {
    return this.#next()?.run
  }

  /** Takes the next entry out and returns its `item` (for a queue whose entries stand for items, not tasks). */
  takeNext(): unknown {
    return this.#next()?.item
  }

  #next(): Entry | undefined {
    const top = this.#heap[0]
    const first = this.#runHead < this.#run.length ? this.#run[this.#runHead]! : undefined
    if (first !== undefined && (top === undefined || this.#before(first, top))) {
      this.#takeFirstOfRun(first)
      return first
    }
    if (top === undefined) return undefined
    this.#removeAt(0)
    return top
  }

  setPriority(id: string, priority: number): void {
    this.#spillRun()
    const entry = this.#find(id)
    if (entry === undefined) throw new ReferenceError(`No promise function with the id "${id}" exists in the queue.`)
    const before = entry.priority
    entry.priority = priority
    if (priority > before) this.#up(entry.at)
    else this.#down(entry.at)
  }

  remove(id: string): void {
    this.#spillRun()
    const entry = this.#find(id)
    if (entry !== undefined) this.#removeAt(entry.at)
  }

  /**
   * Takes out the waiting tasks whose `item` passes `test` and returns those items (their tasks never
   * run; p-queue's promises for them never settle). For rare changes, such as new rate limits that
   * now cover calls waiting for a worker: O(n log n).
   */
  take(test: (item: unknown) => boolean): unknown[] {
    this.#spillRun()
    const taken: unknown[] = []
    const kept: Entry[] = []
    for (const entry of this.#heap) {
      if (entry.item !== undefined && test(entry.item)) {
        entry.at = -1
        taken.push(entry.item)
      } else {
        kept.push(entry)
      }
    }
    if (taken.length === 0) return taken
    this.#heap.length = 0
    for (const entry of kept) {
      entry.at = this.#heap.length
      this.#heap.push(entry)
      this.#up(entry.at)
    }
    return taken
  }

  /**
   * Sets every waiting task's priority from its `item` at once and restores the heap order: O(n),
   * for when many priorities move together (new duration estimates), where a `setPriority` each
   * would cost a scan apiece, O(n²) in all.
   */
  reorder(priorityOf: (item: unknown) => number): void {
    this.#spillRun()
    const heap = this.#heap
    for (const entry of heap) if (entry.item !== undefined) entry.priority = priorityOf(entry.item)
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) this.#down(i)
  }

  filter(options: Readonly<Partial<ReadyOptions>>): RunFunction[] {
    return [...this.#heap, ...this.#run.slice(this.#runHead)].filter((e) => e.priority === options.priority).map((e) => e.run)
  }

  #takeFirstOfRun(first: Entry): void {
    first.at = -1
    this.#run[this.#runHead++] = undefined as unknown as Entry // the array does not keep it alive
    if (this.#runHead === this.#run.length) {
      this.#run = []
      this.#runHead = 0
    } else if (this.#runHead >= RUN_COMPACT_AT && this.#runHead * 2 >= this.#run.length) {
      this.#run = this.#run.slice(this.#runHead)
      this.#runHead = 0
    }
  }

  // Moves the run into the heap (before a rare change that looks entries up or reorders them).
  #spillRun(): void {
    const run = this.#run
    for (let i = this.#runHead; i < run.length; i++) {
      const entry = run[i]!
      entry.at = this.#heap.length
      this.#heap.push(entry)
      this.#up(entry.at)
    }
    this.#run = []
    this.#runHead = 0
  }

  #find(id: string): Entry | undefined {
    for (const entry of this.#heap) if (entry.id === id) return entry
    return undefined
  }

  #removeAt(i: number): void {
    const heap = this.#heap
    heap[i]!.at = -1
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
