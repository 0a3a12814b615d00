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
  const ratePlan = planRates(rules)
  running.forEach(({ index }, k) => {
    const rule = rules[k]
    if (rule) out[index]!.rateLimit = { group: rule.key, limit: rule.limit, waits: ratePlan[k]! }
  })
  const workerWaits = simulateWorkers(deps, duration, known ? bottom : bottom.map(() => 0), context.workers, running.map(({ call }) => call.id))
  running.forEach(({ index }, k) => {
    const behind = workerWaits[k]
    if (behind !== undefined) out[index]!.waitsForWorker = behind
  })
  return out
}

// A call waits for a rate slot when its group already gave out `calls` starts in this batch, or
// has `concurrency` calls of the batch before it (a prediction: earlier batches are not counted).
function planRates(rules: ReadonlyArray<RateRule | undefined>): boolean[] {
  const seen = new Map<string, number>()
  return rules.map((rule) => {
    if (rule === undefined) return false
    const n = (seen.get(rule.key) ?? 0) + 1
    seen.set(rule.key, n)
    const { calls, concurrency } = rule.limit
    return (calls !== undefined && n > calls) || (concurrency !== undefined && n > concurrency)
  })
}

// List scheduling as the pool does it: when a worker frees, the ready call with the highest
// priority (then the earliest) starts. Returns, per call, the calls running when it became ready
// with every worker busy (undefined when it started at once).
function simulateWorkers(deps: readonly number[][], duration: readonly number[], priority: readonly number[], workers: number, ids: readonly string[]): Array<string[] | undefined> {
  const n = duration.length
  const finish = new Array<number>(n).fill(Number.POSITIVE_INFINITY)
  const started = new Array<boolean>(n).fill(false)
  const behind = new Array<string[] | undefined>(n).fill(undefined)
  const noted = new Array<boolean>(n).fill(false)
  let time = 0
  let done = 0
  const running = new Set<number>()
  while (done < n) {
    const ready: number[] = []
    for (let i = 0; i < n; i++) if (!started[i] && deps[i]!.every((d) => finish[d]! <= time)) ready.push(i)
    ready.sort((a, b) => priority[b]! - priority[a]! || a - b)
    for (const i of ready) {
      if (running.size < workers) {
        started[i] = true
        finish[i] = time + duration[i]!
        running.add(i)
      } else if (!noted[i]) {
        noted[i] = true
        behind[i] = [...running].sort((a, b) => a - b).map((r) => ids[r]!)
      }
    }
    if (running.size === 0) break // nothing can start (cannot happen: waits point to earlier calls)
    time = Math.min(...[...running].map((r) => finish[r]!))
    for (const r of [...running]) {
      if (finish[r]! <= time) {
        running.delete(r)
        done++
      }
    }
  }
  return behind
}
