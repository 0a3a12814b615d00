/**
 * Schedules computed offline, knowing every call's true duration (which the host never does): what
 * critical-path priority would reach with perfect estimates, and the best schedule a search finds.
 * They place the lower bound max(critical path, work ÷ workers) against what is achievable.
 */
import { conflictReason, type Footprint } from '../../src/dispatch/admit/footprint.js'

/** For each call, the earlier calls it waits for (the conflict graph, by the scheduler's own rule). */
export function conflictGraph(footprints: readonly Footprint[]): number[][] {
  return footprints.map((fp, j) => footprints.slice(0, j).flatMap((earlier, i) => (conflictReason(earlier, fp, 'x') === undefined ? [] : [i])))
}

/** Each call's bottom level: its duration plus the longest chain of calls waiting on it. */
export function bottomLevels(durations: readonly number[], deps: readonly number[][]): number[] {
  const bottom = durations.map(() => 0)
  for (let i = durations.length - 1; i >= 0; i--) {
    let tail = 0
    for (let j = i + 1; j < durations.length; j++) if (deps[j]!.includes(i) && bottom[j]! > tail) tail = bottom[j]!
    bottom[i] = durations[i]! + tail
  }
  return bottom
}

/** List scheduling as the pool does it: a free worker takes the ready call of highest priority, then the earliest. */
export function listSchedule(durations: readonly number[], deps: readonly number[][], workers: number, priority: readonly number[]): number {
  const n = durations.length
  const finish = new Array<number>(n).fill(Number.POSITIVE_INFINITY)
  const started = new Array<boolean>(n).fill(false)
  const running: number[] = []
  let time = 0
  let makespan = 0
  for (let done = 0; done < n; ) {
    const ready = [...Array(n).keys()].filter((i) => !started[i] && deps[i]!.every((d) => finish[d]! <= time))
    ready.sort((a, b) => priority[b]! - priority[a]! || a - b)
    for (const i of ready.slice(0, workers - running.length)) {
      started[i] = true
      finish[i] = time + durations[i]!
      running.push(i)
      makespan = Math.max(makespan, finish[i]!)
    }
    time = Math.min(...running.map((r) => finish[r]!))
    for (let k = running.length - 1; k >= 0; k--) {
      if (finish[running[k]!]! <= time) {
        running.splice(k, 1)
        done++
      }
    }
  }
  return makespan
}

/**
 * The shortest makespan a depth-first search finds over every choice of which ready call to start
 * (and of leaving a worker idle), pruned by a lower bound; it gives up after `budget` nodes and then
 * returns the best found (`exact: false`).
 */
export function searchBestSchedule(durations: readonly number[], deps: readonly number[][], workers: number, budget = 200_000): { makespan: number; exact: boolean } {
  const n = durations.length
  const pred = deps.map((ds) => ds.reduce((mask, d) => mask | (1 << d), 0))
  const bottom = bottomLevels(durations, deps)
  const all = (1 << n) - 1
  let best = listSchedule(durations, deps, workers, bottom)
  let nodes = 0
  const visit = (done: number, started: number, running: Array<{ i: number; f: number }>, time: number, unstarted: number): void => {
    if (++nodes > budget) return
    if (done === all) {
      best = Math.min(best, time)
      return
    }
    let bound = time + unstarted / workers
    for (const r of running) bound = Math.max(bound, r.f)
    for (let i = 0; i < n; i++) if (!(started & (1 << i))) bound = Math.max(bound, time + bottom[i]!)
    if (bound >= best - 1e-9) return
    if (running.length < workers) {
      const ready: number[] = []
      for (let i = 0; i < n; i++) if (!(started & (1 << i)) && (pred[i]! & ~done) === 0) ready.push(i)
      ready.sort((a, b) => bottom[b]! - bottom[a]!)
      for (const i of ready) visit(done, started | (1 << i), [...running, { i, f: time + durations[i]! }], time, unstarted - durations[i]!)
    }
    if (running.length === 0) return
    const next = Math.min(...running.map((r) => r.f))
    let nowDone = done
    const still = running.filter((r) => (r.f <= next ? ((nowDone |= 1 << r.i), false) : true))
    visit(nowDone, started, still, next, unstarted)
  }
  visit(0, 0, [], 0, durations.reduce((a, b) => a + b, 0))
  return { makespan: best, exact: nodes <= budget }
}
