import type { Wait } from '../dispatch/schedule/scheduler.js'
import type { ToolResult } from '../contract/types.js'
import type { HostEvent } from '../host/host.js'
import type { PoolWait } from './timeline.js'

/** A wait for a call of another host sharing the workspace root, as `--json --trace` gives it. */
export interface HostWait {
  id: string
  host: string
  reason: string
}

/** A result as `run --json --trace` prints it: the host's trace fields and what the events told besides. */
export type TracedResult = ToolResult & { queuedAt?: number; waitedForHost?: HostWait[]; waitedForWorker?: string[]; waitedForRate?: string }

/**
 * What `toolhost run --trace` learns from a batch's events beside its results: when each call was
 * queued, every wait it had (in this host and, through the coordination store, for another host's
 * calls, which a result's `waitedFor` never holds), and its waits for the pool. The human timeline
 * and `--json --trace` read the same record, so they tell the same waits on the same axis.
 *
 * @example
 * const trace = new RunTrace()
 * const stop = host.onEvent((event) => trace.observe(event))
 * const results = await host.run(calls, { trace: true })
 * stop()
 * results.map((r) => trace.traced(r)) // … { queuedAt: 3.1, startedAt: 412.7, waitedForHost: [{ id: 'a1', host: 'host 4242', reason: '…' }] }
 */
export class RunTrace {
  /** Every wait of each call, in the order told (its own host's first). */
  readonly waits = new Map<string, Wait[]>()
  readonly pool = new Map<string, PoolWait>()
  /** When each call was queued, on the clock of `startedAt`. */
  readonly queuedAt = new Map<string, number>()

  observe(event: HostEvent): void {
    if (event.type === 'queued') {
      if (!this.queuedAt.has(event.id)) this.queuedAt.set(event.id, event.at)
    } else if (event.type === 'waiting') {
      // A call waits for its own host's calls first, then (another event) for other hosts': keep both.
      const told = this.waits.get(event.id) ?? []
      for (const wait of event.on) if (!told.some((w) => w.id === wait.id && w.host === wait.host)) told.push(wait)
      this.waits.set(event.id, told)
    } else if (event.type === 'waiting-worker') {
      this.pool.set(event.id, { worker: event.behind })
    } else if (event.type === 'waiting-rate') {
      this.pool.set(event.id, { rate: { group: event.group, limit: event.limit } })
    }
  }

  /** `result` with when it was queued and the waits its own fields leave out (other hosts', the pool's). */
  traced(result: ToolResult): TracedResult {
    const queuedAt = this.queuedAt.get(result.id)
    const hostWaits = (this.waits.get(result.id) ?? []).filter((w) => w.host !== undefined).map((w) => ({ id: w.id, host: w.host!, reason: w.reason }))
    const pool = this.pool.get(result.id)
    return {
      ...result,
      ...(queuedAt === undefined ? {} : { queuedAt }),
      ...(hostWaits.length > 0 ? { waitedForHost: hostWaits } : {}),
      ...(pool?.worker ? { waitedForWorker: pool.worker } : {}),
      ...(pool?.rate ? { waitedForRate: pool.rate.group } : {}),
    }
  }
}
