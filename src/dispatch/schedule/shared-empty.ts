// A speed trick: one empty array, frozen, shared by every call that has none of a thing (most calls
// wait for nothing and have no deps), instead of two new arrays per call. Frozen, so a stray push
// throws instead of giving every such call the pushed value; whoever adds replaces it with a fresh
// array first (`Job.dependOn`). What it saves: two allocations per call, seen in BENCHMARKS.md's
// cost rows ("per call, batch of 1,000").

const EMPTY: readonly never[] = Object.freeze([])

/** The shared frozen empty array, typed as a mutable one for fields that are replaced, never pushed to, while it is theirs. */
export function sharedEmpty<T>(): T[] {
  return EMPTY as unknown as T[]
}
