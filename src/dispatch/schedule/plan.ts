import type { DispatchMode } from '../../config/types.js'
import { conflictReason, isConcurrencySafe, type Footprint } from '../admit/footprint.js'
import { pathsOverlap } from '../../workspace/paths.js'

export interface PlanInput {
  id: string
  footprint: Footprint
}

export type ModeWaits = Array<Array<{ index: number; reason: string }>>

/**
 * The waits a batch's mode adds on top of the conflict rule (which every mode keeps):
 * `serial` chains every call; `batch` chains them all unless the whole batch passes the Hermes rule;
 * `partition` makes each group of adjacent concurrency-safe calls wait for the group before it;
 * `graph` adds nothing — each call waits only for the earlier calls it conflicts with.
 *
 * `blocker` says why the Hermes rule must run the batch serially for a call that never reached
 * scheduling (arguments that do not parse, a tool name nobody registered); see `batchBlocker` (admit).
 *
 * @example
 * planModeWaits('serial', [{ id: 'a', footprint: free }, { id: 'b', footprint: free }])
 * // [[], [{ index: 0, reason: 'serial mode runs one call at a time' }]]
 */
export function planModeWaits(mode: DispatchMode, calls: readonly PlanInput[], blocker?: string): ModeWaits {
  switch (mode) {
    case 'graph':
      return calls.map(() => [])
    case 'serial':
      return chain(calls, 'serial mode runs one call at a time')
    case 'batch': {
      const why = batchSerialReason(calls, blocker)
      return why === undefined ? calls.map(() => []) : chain(calls, `batch mode runs the whole batch serially: ${why}`)
    }
    case 'partition':
      return partitionWaits(calls)
  }
}

/**
 * Why the Hermes whole-batch rule runs this batch serially, or undefined when it may run in parallel.
 *
 * @example
 * batchSerialReason([{ id: 'a', footprint: { kind: 'free' } }, { id: 'b', footprint: { kind: 'barrier', reason: 'clarify is never-parallel' } }])
 * // 'b: clarify is never-parallel'
 */
export function batchSerialReason(calls: readonly PlanInput[], blocker?: string): string | undefined {
  if (blocker !== undefined) return blocker
  if (calls.length < 2) return 'fewer than two calls'
  const scoped: { id: string; target: string; isKey: boolean }[] = []
  for (const call of calls) {
    const fp = call.footprint
    if (fp.kind === 'barrier') return `${call.id}: ${fp.reason}`
    if (fp.kind === 'free') continue
    for (const touch of fp.touches) {
      // The Hermes rule reserves paths whatever the access: two reads of one file still overlap.
      const clash = scoped.find((s) => s.id !== call.id && (s.isKey || touch.isKey ? s.target === touch.target : pathsOverlap(s.target, touch.target)))
      if (clash) return `${call.id} and ${clash.id} touch overlapping paths (${touch.label})`
    }
    for (const touch of fp.touches) scoped.push({ id: call.id, target: touch.target, isKey: touch.isKey })
  }
  return undefined
}

/**
 * Groups of adjacent concurrency-safe calls; every other call is a group of its own.
 *
 * @example
 * partitionGroups(plan(Read, Read, Write, Read, Bash)) // [[0, 1], [2], [3], [4]]
 */
export function partitionGroups(calls: readonly PlanInput[]): number[][] {
  const groups: { safe: boolean; members: number[] }[] = []
  calls.forEach((call, index) => {
    const safe = isConcurrencySafe(call.footprint)
    const last = groups[groups.length - 1]
    if (safe && last?.safe) last.members.push(index)
    else groups.push({ safe, members: [index] })
  })
  return groups.map((g) => g.members)
}

function partitionWaits(calls: readonly PlanInput[]): ModeWaits {
  const waits: ModeWaits = calls.map(() => [])
  const groups = partitionGroups(calls)
  for (let g = 1; g < groups.length; g++) {
    for (const index of groups[g]!) {
      for (const before of groups[g - 1]!) {
        waits[index]!.push({ index: before, reason: `partition mode: waits for the group before it (${calls[before]!.id})` })
      }
    }
  }
  return waits
}

function chain(calls: readonly PlanInput[], reason: string): ModeWaits {
  return calls.map((_, index) => (index === 0 ? [] : [{ index: index - 1, reason }]))
}

/**
 * For `explain`: every earlier call each call must wait for, and why (conflicts plus the mode's waits).
 *
 * @example
 * explainWaits('graph', [writeA, readA]) // [[], [{ id: 'w', reason: 'reads a, which w writes too' }]]
 */
export function explainWaits(mode: DispatchMode, calls: readonly PlanInput[], blocker?: string): Array<Array<{ id: string; reason: string }>> {
  const modeWaits = planModeWaits(mode, calls, blocker)
  return calls.map((call, i) => {
    const waits: { id: string; reason: string }[] = []
    const seen = new Set<number>()
    for (let j = 0; j < i; j++) {
      const reason = conflictReason(calls[j]!.footprint, call.footprint, calls[j]!.id)
      if (reason !== undefined) {
        waits.push({ id: calls[j]!.id, reason })
        seen.add(j)
      }
    }
    for (const wait of modeWaits[i]!) if (!seen.has(wait.index)) waits.push({ id: calls[wait.index]!.id, reason: wait.reason })
    return waits
  })
}
