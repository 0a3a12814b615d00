import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { HostEvent } from './host-events.js'
import { CallTimeline, type CallRecord } from './call-timeline.js'

/** One event of the Chrome Trace Event Format (the fields toolhost writes). */
export interface TraceEvent {
  ph: 'X' | 'M' | 's' | 'f'
  name: string
  pid: number
  tid: number
  ts?: number
  dur?: number
  cat?: string
  id?: number
  bp?: 'e'
  args?: Record<string, unknown>
}

/** A trace file: what Perfetto and chrome://tracing open. */
export interface TraceDocument {
  traceEvents: TraceEvent[]
  displayTimeUnit: 'ms'
  otherData: Record<string, string | number>
}

const PID = 1
/** The track of calls that never ran (refused, denied, skipped), after every worker lane. */
export const NOT_RUN_TID = 10_000

/**
 * Calls as a Chrome trace: one slice per call, calls that ran on their worker lane's track (one
 * track per lane, so slices of a track never overlap), calls that never ran on a track of their
 * own, and each wait as a flow from the call waited for to the call that waited. Times are the
 * host's clock in microseconds.
 *
 * @example
 * const doc = toTraceDocument(timeline.records(), { process: 'toolhost' })
 * writeFileSync('trace.json', JSON.stringify(doc))
 */
export function toTraceDocument(records: readonly CallRecord[], meta: { process?: string; mode?: string } = {}): TraceDocument {
  const events: TraceEvent[] = [{ ph: 'M', name: 'process_name', pid: PID, tid: 0, args: { name: meta.process ?? 'toolhost' } }]
  const lanes = new Set<number>()
  const slices = new Map<CallRecord, { tid: number; ts: number; dur: number }>()
  let notRun = false
  for (const r of records) {
    const ran = r.startedAt !== undefined && r.lane !== undefined
    const tid = ran ? r.lane! + 1 : NOT_RUN_TID
    if (ran) lanes.add(r.lane!)
    else notRun = true
    const from = ran ? r.startedAt! : (r.finishedAt ?? r.queuedAt ?? 0)
    // A lane is held until the worker slot is released (an abandoned handler holds it past its answer).
    const to = ran ? (r.releasedAt ?? r.finishedAt ?? from) : from
    const slice = { tid, ts: micros(from), dur: micros(to) - micros(from) }
    slices.set(r, slice)
    events.push({ ph: 'X', name: r.name, cat: 'call', pid: PID, tid, ts: slice.ts, dur: slice.dur, args: argsOf(r) })
  }
  for (const lane of [...lanes].sort((a, b) => a - b)) {
    events.push({ ph: 'M', name: 'thread_name', pid: PID, tid: lane + 1, args: { name: `worker ${lane + 1}` } })
    events.push({ ph: 'M', name: 'thread_sort_index', pid: PID, tid: lane + 1, args: { sort_index: lane + 1 } })
  }
  if (notRun) {
    events.push({ ph: 'M', name: 'thread_name', pid: PID, tid: NOT_RUN_TID, args: { name: 'did not run' } })
    events.push({ ph: 'M', name: 'thread_sort_index', pid: PID, tid: NOT_RUN_TID, args: { sort_index: NOT_RUN_TID } })
  }
  events.push(...waitFlows(records, slices))
  return { traceEvents: events, displayTimeUnit: 'ms', otherData: { generator: 'toolhost', ...(meta.mode ? { mode: meta.mode } : {}) } }
}

// Flow v1: the start ('s') binds to the slice enclosing its timestamp on its track, the end ('f',
// bp 'e') to the slice enclosing its own; so each end sits strictly inside its slice when it can.
function waitFlows(records: readonly CallRecord[], slices: ReadonlyMap<CallRecord, { tid: number; ts: number; dur: number }>): TraceEvent[] {
  const latest = new Map<string, CallRecord>()
  const flows: TraceEvent[] = []
  let id = 0
  for (const r of records) {
    const to = slices.get(r)!
    for (const wait of r.waits) {
      const earlier = latest.get(wait.id)
      if (!earlier) continue // waited for a call from before the recording
      const from = slices.get(earlier)!
      id++
      flows.push({ ph: 's', name: 'waits for', cat: 'wait', id, pid: PID, tid: from.tid, ts: from.ts + from.dur - inset(from.dur), args: { reason: wait.reason } })
      flows.push({ ph: 'f', bp: 'e', name: 'waits for', cat: 'wait', id, pid: PID, tid: to.tid, ts: to.ts + inset(to.dur) })
    }
    latest.set(r.id, r)
  }
  return flows
}

function inset(dur: number): number {
  return dur >= 2 ? 1 : dur / 2
}

function micros(ms: number): number {
  return Math.round(ms * 1000)
}

function argsOf(r: CallRecord): Record<string, unknown> {
  const args: Record<string, unknown> = { id: r.id, batch: r.batch, outcome: r.state === 'refused' ? `refused: ${r.code}` : r.ok ? 'ok' : (r.code ?? 'failed') }
  if (r.footprint) args.footprint = r.footprint
  if (r.waits.length > 0) args.waited_for = r.waits.map((w) => `${w.id}: ${w.reason}`)
  if (r.queuedAt !== undefined && r.startedAt !== undefined) args.wait_ms = round(r.startedAt - r.queuedAt)
  if (r.startedAt !== undefined && r.finishedAt !== undefined) args.run_ms = round(r.finishedAt - r.startedAt)
  if (r.approval) args.approval = r.approval
  if (r.check) args.check = r.check === 'refused' ? `refused: ${r.code}` : r.check
  if (r.pool?.worker) args.waited_for_worker = r.pool.worker.length > 0 ? `${r.pool.worker.join(', ')} held the workers` : 'every worker was busy'
  if (r.pool?.rate) args.waited_for_rate = r.pool.rate
  if (r.abandoned) args.abandoned = true
  if (r.message) args.message = r.message
  for (const note of r.notes) args[note.type] = note.text
  return args
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000
}

/**
 * Records every call of `host` and writes the trace file when the host closes (`traceFile` host
 * option, `toolhost run --trace-file`). Returns the timeline it fills.
 *
 * @example
 * recordTraceFile(host, '/tmp/batch.trace.json')
 */
export function recordTraceFile(host: { mode: string; onEvent(listener: (event: HostEvent) => void): () => void; onClose(closer: () => void): void }, file: string): CallTimeline {
  const timeline = new CallTimeline()
  const stop = host.onEvent((event) => timeline.observe(event))
  host.onClose(() => {
    stop()
    writeTraceFile(file, toTraceDocument(timeline.records(), { mode: host.mode }))
  })
  return timeline
}

/** Writes a trace document (through a temp file and a rename, so a reader never sees half of it). */
export function writeTraceFile(file: string, document: TraceDocument): void {
  mkdirSync(path.dirname(file), { recursive: true })
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, JSON.stringify(document))
  renameSync(temp, file)
}
