import type { HostEvent } from '../observe/host-events.js'

/** Where progress goes: a terminal gets one live line, anything else plain lines. */
export interface ProgressSink {
  /** True for a terminal (the live line is redrawn in place). */
  isTTY?: boolean
  write(text: string): unknown
}

/** A plain-lines sink prints a call's progress at most this often (and always its last step). */
export const PLAIN_INTERVAL_MS = 1000

/**
 * Shows the progress tools report (`ctx.report.progress`) while the CLI waits for calls. On a terminal one
 * live line is redrawn in place — the latest report, and how many other calls are reporting — and
 * cleared when they finish; elsewhere (a pipe, a log file) each report is a plain line, at most one
 * per call per `intervalMs` unless it completes the total. Returns the function that stops (and
 * clears the live line).
 *
 * @example
 * const stop = showProgress(host, process.stderr)
 * try { await host.run(calls) } finally { stop() }
 */
export function showProgress(host: { onEvent(listener: (event: HostEvent) => void): () => void }, sink: ProgressSink, options: { now?: () => number; intervalMs?: number } = {}): () => void {
  const now = options.now ?? (() => performance.now())
  const intervalMs = options.intervalMs ?? PLAIN_INTERVAL_MS
  const live = new Map<string, string>() // call id -> its latest report, most recent last
  const lastPrinted = new Map<string, number>()
  let shown = false
  const clear = (): void => {
    if (!shown) return
    sink.write('\r\x1b[2K')
    shown = false
  }
  const redraw = (): void => {
    const latest = [...live.entries()].at(-1)
    if (!latest) return clear()
    const others = live.size - 1
    sink.write(`\r\x1b[2K${latest[0]}: ${latest[1]}${others > 0 ? ` (+${others} more)` : ''}`)
    shown = true
  }
  const stop = host.onEvent((event) => {
    if (event.type === 'progress') {
      const text = describe(event)
      if (sink.isTTY) {
        live.delete(event.id)
        live.set(event.id, text)
        return redraw()
      }
      const at = now()
      const done = event.total !== undefined && event.progress === event.total
      const last = lastPrinted.get(event.id)
      if (!done && last !== undefined && at - last < intervalMs) return
      lastPrinted.set(event.id, at)
      sink.write(`progress ${event.id}: ${text}\n`)
      return
    }
    if (event.type === 'finished') {
      lastPrinted.delete(event.id)
      if (live.delete(event.id) && sink.isTTY) redraw()
    }
  })
  return () => {
    stop()
    live.clear()
    clear()
  }
}

function describe(event: Extract<HostEvent, { type: 'progress' }>): string {
  if (event.progress === undefined) return event.message
  const amount = event.total === undefined ? `${event.progress}` : `${event.progress}/${event.total}${event.total > 0 ? `, ${Math.round((event.progress / event.total) * 100)}%` : ''}`
  return `${event.message} (${amount})`
}
