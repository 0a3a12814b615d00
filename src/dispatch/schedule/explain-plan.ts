// What `explain` predicts beyond the conflict waits: which calls the permission system keeps out,
// each call's priority for a worker, and who is expected to wait for a worker or a rate slot.
import type { DispatchMode } from '../../config/types.js'
import type { DurationEstimates, ToolProfile } from './duration-estimates.js'
import type { Footprint } from '../admit/footprint.js'
import { explainWaits } from './plan.js'
import type { RateLimit, RateRule } from './rate-limits.js'

/** One call of a batch as `explain` sees it after admission. */
export interface ExplainInput {
  id: string
  footprint: Footprint
  /** What the permission system would decide; `deny` keeps the call out of the wait graph. */
  permission?: { outcome: 'allow' | 'ask' | 'deny' }
  profile?: ToolProfile
}

/** A wait in the plan; `ifAllowed` when the call waited for may yet be refused by a person. */
export interface PlannedWait {
  id: string
  reason: string
  ifAllowed?: true
}

/** The prediction for one call. */
export interface ExplainedCall {
  waitsFor: PlannedWait[]
  /** Estimated ms of work on the longest chain that starts with this call: its priority for a worker. */
  priority: number
  /** Predicted: every worker is busy when its waits are over; the calls holding them then. */
  waitsForWorker?: string[]
  /** The `rate_limits` group of its tool, and whether this call is predicted to wait for a slot. */
  rateLimit?: { group: string; limit: RateLimit; waits: boolean }
}

export interface ExplainContext {
  workers: number
  estimates: DurationEstimates
  ruleOf: (profile: ToolProfile) => RateRule | undefined
}

/**
 * Plans a batch for `explain`: conflict and mode waits among the calls that would run (a call the
 * permission system would deny never reaches the scheduler, so nothing waits for it; a wait on a
 * call that asks a person is marked `ifAllowed`), each call's priority (bottom level from the
 * duration estimates), and a simulation of the worker pool and rate groups with those estimates.
 *
 * @example
 * explainPlan('graph', [write, read], undefined, { workers: 1, estimates, ruleOf })
 * // [{ waitsFor: [], priority: 40 }, { waitsFor: [{ id: 'w', reason: 'reads a, which w writes too' }], priority: 20 }]
 */
export function explainPlan(mode: DispatchMode, calls: readonly ExplainInput[], blocker: string | undefined, context: ExplainContext): ExplainedCall[] {
  const running = calls.map((c, i) => ({ call: c, index: i })).filter(({ call }) => call.permission?.outcome !== 'deny')
  const waits = explainWaits(mode, running.map(({ call }) => call), blocker)
  const byId = new Map(calls.map((c) => [c.id, c]))
  const out: ExplainedCall[] = calls.map(() => ({ waitsFor: [], priority: 0 }))
  // Edges by position in `running`: who waits for whom.
  const deps: number[][] = running.map(() => [])
  const position = new Map(running.map(({ call }, k) => [call.id, k]))
  running.forEach(({ index }, k) => {
    out[index]!.waitsFor = waits[k]!.map((w) => (byId.get(w.id)?.permission?.outcome === 'ask' ? { ...w, ifAllowed: true as const } : w))
    deps[k] = waits[k]!.map((w) => position.get(w.id)!).filter((d) => d !== undefined)
  })
  const known = running.some(({ call }) => call.profile?.ms !== undefined)
  // With nothing known every call counts 1 ms, so the simulation still shows the worker limit.
  const duration = running.map(({ call }) => (known ? context.estimates.estimate(call.profile) : 1))
  const bottom = new Array<number>(running.length).fill(0)
  for (let k = running.length - 1; k >= 0; k--) {
    let tail = 0
    for (let j = k + 1; j < running.length; j++) if (deps[j]!.includes(k) && bottom[j]! > tail) tail = bottom[j]!
    bottom[k] = duration[k]! + tail
  }
  running.forEach(({ index }, k) => (out[index]!.priority = known ? bottom[k]! : 0))
  const rules = running.map(({ call }) => (call.profile ? context.ruleOf(call.profile) : undefined))
  const pool = simulatePool(deps, duration, known ? bottom : bottom.map(() => 0), context.workers, rules, running.map(({ call }) => call.id))
  running.forEach(({ index }, k) => {
    const rule = rules[k]
    if (rule) out[index]!.rateLimit = { group: rule.key, limit: rule.limit, waits: pool.rateWaits[k]! }
    const behind = pool.behind[k]
    if (behind !== undefined) out[index]!.waitsForWorker = behind
  })
  return out
}

// The pool as it runs a batch (earlier batches are not counted): when a call's waits are over it
// first needs its rate slot (at most `calls` starts of its group in any `per_ms` window, at most
// `concurrency` of them running), waiting for which holds no worker; then a worker, which goes to
// the ready call with the highest priority (then the earliest). Returns, per call, whether it waited
// for its rate slot, and the calls holding every worker when it had its slot but no worker.
function simulatePool(deps: readonly number[][], duration: readonly number[], priority: readonly number[], workers: number, rules: ReadonlyArray<RateRule | undefined>, ids: readonly string[]): { behind: Array<string[] | undefined>; rateWaits: boolean[] } {
  const n = duration.length
  const finish = new Array<number>(n).fill(Number.POSITIVE_INFINITY)
  const startedAt = new Array<number>(n).fill(Number.NaN)
  const started = new Array<boolean>(n).fill(false)
  const behind = new Array<string[] | undefined>(n).fill(undefined)
  const rateWaits = new Array<boolean>(n).fill(false)
  let time = 0
  let done = 0
  const running = new Set<number>()
  while (done < n) {
    const ready: number[] = []
    for (let i = 0; i < n; i++) if (!started[i] && deps[i]!.every((d) => finish[d]! <= time)) ready.push(i)
    ready.sort((a, b) => priority[b]! - priority[a]! || a - b)
    let nextSlot = Number.POSITIVE_INFINITY
    for (const i of ready) {
      const slotAt = rateSlotAt(rules[i], i, time, started, startedAt, finish, rules)
      if (slotAt > time) {
        rateWaits[i] = true
        nextSlot = Math.min(nextSlot, slotAt)
      } else if (running.size < workers) {
        started[i] = true
        startedAt[i] = time
        finish[i] = time + duration[i]!
        running.add(i)
      } else behind[i] ??= [...running].sort((a, b) => a - b).map((r) => ids[r]!)
    }
    const nextFinish = Math.min(...[...running].map((r) => finish[r]!))
    if (running.size === 0 && nextSlot === Number.POSITIVE_INFINITY) break // nothing can start (cannot happen)
    time = Math.min(nextFinish, nextSlot)
    for (const r of [...running]) {
      if (finish[r]! <= time) {
        running.delete(r)
        done++
      }
    }
  }
  return { behind, rateWaits }
}

// The earliest time from `time` on when call `i` may take its group's slot: `time` itself when its
// group allows a start now (or it has no group), else when a start leaves the window or a running
// call of the group ends. Infinity when only a finish can free it and none is due (never: a call of
// the group is running then).
function rateSlotAt(rule: RateRule | undefined, i: number, time: number, started: readonly boolean[], startedAt: readonly number[], finish: readonly number[], rules: ReadonlyArray<RateRule | undefined>): number {
  if (rule === undefined) return time
  const { calls, per_ms: perMs, concurrency } = rule.limit
  let at = time
  const group: number[] = []
  for (let j = 0; j < started.length; j++) if (j !== i && started[j] && rules[j]?.key === rule.key) group.push(j)
  if (calls !== undefined && perMs !== undefined) {
    const inWindow = group.map((j) => startedAt[j]!).filter((s) => s > time - perMs).sort((a, b) => a - b)
    if (inWindow.length >= calls) at = Math.max(at, inWindow[inWindow.length - calls]! + perMs)
  }
  if (concurrency !== undefined) {
    const ends = group.map((j) => finish[j]!).filter((f) => f > time).sort((a, b) => a - b)
    if (ends.length >= concurrency) at = Math.max(at, ends[ends.length - concurrency]!)
  }
  return at
}
