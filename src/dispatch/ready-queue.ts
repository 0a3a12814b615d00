/**
 * A binary min-heap on `seq`: the scheduler's calls that are ready to run and wait only for a free
 * worker. `pop` gives the earliest-arrived one (greedy list scheduling in call order).
 *
 * @example
 * const ready = new ReadyQueue<{ seq: number }>()
 * ready.push({ seq: 3 }); ready.push({ seq: 1 })
 * ready.pop() // { seq: 1 }
 */
export class ReadyQueue<T extends { seq: number }> {
  readonly #heap: T[] = []

  get size(): number {
    return this.#heap.length
  }

  push(item: T): void {
    const heap = this.#heap
    let i = heap.length
    heap.push(item)
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (heap[parent]!.seq <= item.seq) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = item
  }

  /** The item with the lowest `seq`, removed; undefined when empty. */
  pop(): T | undefined {
    const heap = this.#heap
    const top = heap[0]
    const last = heap.pop()
    if (top === undefined || last === undefined || heap.length === 0) return top
    let i = 0
    const n = heap.length
    for (;;) {
      const left = 2 * i + 1
      if (left >= n) break
      const right = left + 1
      const child = right < n && heap[right]!.seq < heap[left]!.seq ? right : left
      if (heap[child]!.seq >= last.seq) break
      heap[i] = heap[child]!
      i = child
    }
    heap[i] = last
    return top
  }
}
