import type { HostEvent } from './host-events.js'
import { describeRateLimit } from '../dispatch/schedule/rate-limits.js'
import type { Logger } from '../contract/types.js'

/**
 * One line per scheduling event, for the debug log (`TOOLHOST_LOG=debug`): what was queued, whom it
 * waits for and why, when it started and finished, and when its reservations were released.
 *
 * @example
 * host.onEvent((event) => host.log.debug(describeEvent(event)))
 */
export function describeEvent(event: HostEvent): string {
  switch (event.type) {
    case 'queued':
      return `call ${event.id} queued (#${event.seq}) at ${event.at} ms`
    case 'waiting':
      return `call ${event.id} waits for ${event.on.map((w) => `${w.id} (${w.reason})`).join(', ')}`
    case 'waiting-worker':
      return `call ${event.id} waits for a worker: ${event.behind.length > 0 ? `all taken (${event.behind.join(', ')} running)` : 'all taken'}`
    case 'waiting-rate':
      return `call ${event.id} waits for a rate slot of ${event.group} (${describeRateLimit(event.limit)})`
    case 'started':
      return `call ${event.id} started at ${event.at} ms (${event.running} running)`
    case 'finished':
      return `call ${event.id} finished at ${event.at} ms: ${event.ok ? 'ok' : (event.code ?? 'failed')}`
    case 'released':
      return `call ${event.id} released its reservations at ${event.at} ms${event.abandoned ? ' (abandoned: its handler ignored the abort)' : ''}`
    case 'progress':
      return `call ${event.id} progress: ${event.message}${event.progress === undefined ? '' : ` (${event.progress}${event.total === undefined ? '' : `/${event.total}`})`}`
    case 'log':
      return `call ${event.id} logged (${event.level}): ${event.message}`
    case 'admitted':
      return `call ${event.id} (${event.name}) admitted in batch ${event.batch}: ${event.footprint}${event.permission === 'ask' ? ', waits for an approval' : event.permission === 'check' ? ', held while its availability and permission are checked' : ''}`
    case 'refused':
      return `call ${event.id} (${event.name}) refused before scheduling: ${event.code}`
    case 'checked':
      return `call ${event.id} checked: ${event.outcome === 'asking' ? 'asks a person' : event.outcome}${event.code ? ` (${event.code})` : ''}`
    case 'answered':
      // A failure's message too: it says what went wrong and, for a handler that threw, where.
      return `call ${event.id} answered at ${event.at} ms: ${event.result.ok ? 'ok' : `${event.result.error?.code ?? 'failed'}${event.result.error ? `: ${event.result.error.message}` : ''}`}`
    case 'approval':
      return `call ${event.id} ${event.outcome}${event.code ? ` (${event.code})` : ''}`
    default: {
      // An event type this version does not know (a newer scheduler's): its type and call.
      const other = event as { type: string; id?: unknown }
      return `call ${String(other.id)} ${other.type}`
    }
  }
}

/** Sends every event of a host to `log.debug`; returns the function that stops it. */
export function logSchedulingEvents(host: { onEvent(listener: (event: HostEvent) => void): () => void }, log: Logger): () => void {
  // A handler's own log lines are in the log already.
  return host.onEvent((event) => {
    if (event.type !== 'log') log.debug(describeEvent(event))
  })
}
