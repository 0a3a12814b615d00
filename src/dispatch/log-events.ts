import type { HostEvent } from '../host-types.js'
import { describeRateLimit } from './rate-limits.js'
import type { Logger } from '../types.js'

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
  }
}

/** Sends every event of a host to `log.debug`; returns the function that stops it. */
export function logSchedulingEvents(host: { onEvent(listener: (event: HostEvent) => void): () => void }, log: Logger): () => void {
  return host.onEvent((event) => log.debug(describeEvent(event)))
}
