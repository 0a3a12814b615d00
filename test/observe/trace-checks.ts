// Structural checks of a Chrome trace written by toolhost, shared by the host and CLI tests.
import { expect } from 'vitest'
import type { TraceDocument, TraceEvent } from '../../src/observe/trace-file.js'

export interface TraceFacts {
  /** The slice of each call, by call id. */
  slices: Map<string, TraceEvent>
  /** Worker lane tracks (tid) that hold slices, with their names. */
  laneNames: Map<number, string>
  /** Each flow as [from call id, to call id]. */
  flows: Array<[string, string]>
}

/**
 * Checks what every trace must hold: metadata names the process and each track, every call has
 * exactly one slice, slices on a worker track never overlap, and every flow has both ends, each
 * inside a slice of its track. Returns the facts for batch-specific checks.
 */
export function checkTrace(doc: TraceDocument, callIds: readonly string[]): TraceFacts {
  expect(doc.displayTimeUnit).toBe('ms')
  const events = doc.traceEvents
  expect(events.find((e) => e.ph === 'M' && e.name === 'process_name')?.args).toEqual({ name: 'toolhost' })
  const slices = events.filter((e) => e.ph === 'X')
  const byCall = new Map<string, TraceEvent>()
  for (const s of slices) {
    const id = String(s.args?.id)
    expect(byCall.has(id), `call ${id} has two slices`).toBe(false)
    byCall.set(id, s)
  }
  expect([...byCall.keys()].sort()).toEqual([...callIds].sort())
  const names = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [e.tid, String(e.args?.name)]))
  const laneNames = new Map<number, string>()
  const byTid = new Map<number, TraceEvent[]>()
  for (const s of slices) {
    expect(names.has(s.tid), `track ${s.tid} has no thread_name`).toBe(true)
    byTid.set(s.tid, [...(byTid.get(s.tid) ?? []), s])
  }
  for (const [tid, list] of byTid) {
    if (!/^worker \d+$/.test(names.get(tid)!)) continue
    laneNames.set(tid, names.get(tid)!)
    list.sort((a, b) => a.ts! - b.ts!)
    for (let i = 1; i < list.length; i++) {
      const before = list[i - 1]!
      expect(list[i]!.ts!, `${String(list[i]!.args?.id)} overlaps ${String(before.args?.id)} on ${names.get(tid)}`).toBeGreaterThanOrEqual(before.ts! + before.dur!)
    }
  }
  const inside = (e: TraceEvent): TraceEvent | undefined => slices.find((s) => s.tid === e.tid && s.ts! <= e.ts! && e.ts! <= s.ts! + s.dur!)
  const starts = events.filter((e) => e.ph === 's')
  const ends = events.filter((e) => e.ph === 'f')
  expect(ends.every((e) => e.bp === 'e')).toBe(true)
  expect(new Set(starts.map((e) => e.id)).size).toBe(starts.length)
  expect(ends.map((e) => e.id).sort()).toEqual(starts.map((e) => e.id).sort())
  const flows: Array<[string, string]> = starts.map((s) => {
    const f = ends.find((e) => e.id === s.id)!
    expect(f.cat).toBe(s.cat)
    expect(f.name).toBe(s.name)
    const from = inside(s)
    const to = inside(f)
    expect(from, `flow ${s.id} starts outside any slice`).toBeDefined()
    expect(to, `flow ${s.id} ends outside any slice`).toBeDefined()
    return [String(from!.args?.id), String(to!.args?.id)]
  })
  return { slices: byCall, laneNames, flows }
}
