import { describeRateLimit, type RateLimit } from '../dispatch/schedule/rate-limits.js'
import type { Wait } from '../dispatch/schedule/scheduler.js'
import type { ToolResult } from '../contract/types.js'

/** A call that found every worker busy (`worker`: the calls holding them), or waited for a rate slot. */
export interface PoolWait {
  worker?: string[]
  rate?: { group: string; limit: RateLimit }
}

/**
 * Draws one row per call with a bar on a shared time axis, so a person sees at a glance what ran
 * together and what waited, and why: for an earlier call it conflicts with, for a worker (and which
 * calls held them), or for a rate slot. Results need `startedAt`/`endedAt` (run with trace); with
 * `queuedAt` (each call's queued event) the axis starts at the first arrival.
 *
 * @example
 * renderTimeline([{ id: 'a', name: 'wait', ok: true, content: '', startedAt: 0, endedAt: 10 }], new Map())
 */
export function renderTimeline(results: readonly ToolResult[], waits: ReadonlyMap<string, Wait[]>, width = 48, pool: ReadonlyMap<string, PoolWait> = new Map(), queuedAt: ReadonlyMap<string, number> = new Map()): string {
  const ran = results.filter((r) => typeof r.startedAt === 'number' && typeof r.endedAt === 'number')
  // The axis starts when the first call was queued (given `queuedAt`), so a wait before the first
  // start (another host's call, a rate slot) is on it; with nothing run, it is empty, not Infinity.
  const queued = ran.flatMap((r) => (queuedAt.has(r.id) ? [queuedAt.get(r.id)!] : []))
  const t0 = ran.length > 0 ? Math.min(...ran.map((r) => r.startedAt as number), ...queued) : 0
  const t1 = ran.length > 0 ? Math.max(...ran.map((r) => r.endedAt as number)) : 0
  const span = Math.max(t1 - t0, 1e-9)
  const idWidth = Math.max(4, ...results.map((r) => r.id.length))
  const nameWidth = Math.max(4, ...results.map((r) => r.name.length))
  const lines: string[] = []
  // The axis labels sit over the bars (one column in, past the opening '|').
  lines.push(`${'call'.padEnd(idWidth)}  ${'tool'.padEnd(nameWidth)}   ${'0 ms'.padEnd(Math.floor(width / 2))}${`${(t1 - t0).toFixed(1)} ms`.padStart(Math.ceil(width / 2))}`)
  for (const r of results) {
    let bar: string
    let when: string
    if (typeof r.startedAt === 'number' && typeof r.endedAt === 'number' && ran.length > 0) {
      const from = Math.min(width - 1, Math.floor(((r.startedAt - t0) / span) * width))
      const to = Math.max(from + 1, Math.min(width, Math.round(((r.endedAt - t0) / span) * width)))
      bar = ' '.repeat(from) + '█'.repeat(to - from) + ' '.repeat(width - to)
      when = `${(r.startedAt - t0).toFixed(1)}–${(r.endedAt - t0).toFixed(1)} ms`
    } else {
      bar = '·'.repeat(width)
      when = 'did not run'
    }
    const status = r.ok ? 'ok' : (r.error?.code ?? 'failed')
    lines.push(`${r.id.padEnd(idWidth)}  ${r.name.padEnd(nameWidth)}  |${bar}| ${when}  ${status}`)
    const pad = ''.padEnd(idWidth + nameWidth + 4)
    for (const w of waits.get(r.id) ?? []) lines.push(`${pad}waited for ${w.id}: ${w.reason}`)
    const queued = pool.get(r.id)
    if (queued?.worker) lines.push(`${pad}waited for a worker: ${queued.worker.length > 0 ? `${queued.worker.join(', ')} held them` : 'all were busy'}`)
    if (queued?.rate) lines.push(`${pad}waited for a rate slot: ${queued.rate.group} allows ${describeRateLimit(queued.rate.limit)}`)
  }
  return lines.join('\n')
}
