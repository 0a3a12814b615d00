import type { ProcessRegistry } from '../processes/process-registry.js'

/** Where process logs are offered as MCP resources (`toolhost://processes/ID/log`). */
export const PROCESS_LOG_PREFIX = 'toolhost://processes/'

/** The URI of process `id`'s log resource. */
export function processLogUri(id: string): string {
  return `${PROCESS_LOG_PREFIX}${encodeURIComponent(id)}/log`
}

/** How often a subscribed running process's output is looked at. */
export const LOG_WATCH_INTERVAL_MS = 250

/**
 * Calls `onUpdate` when process `id` writes more output (at most once per `intervalMs`) and once
 * more when it ends, then stops by itself. An unknown or ended process is never reported. Returns
 * the function that stops watching.
 *
 * @example
 * const stop = watchProcessLog(host.services.processes, 'proc_1', () => server.sendResourceUpdated({ uri }))
 */
export function watchProcessLog(processes: ProcessRegistry, id: string, onUpdate: () => void, intervalMs = LOG_WATCH_INTERVAL_MS): () => void {
  let seen: number | undefined
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const look = async (): Promise<void> => {
    let status: string
    let chars: number
    try {
      const info = await processes.poll(id)
      status = info.status
      chars = info.outputChars
    } catch {
      return stop() // gone (pruned, or never existed)
    }
    if (stopped) return
    const first = seen === undefined
    const grew = !first && chars !== seen
    seen = chars
    if (status !== 'running') {
      if (!first) onUpdate() // its last output and its end
      return stop()
    }
    if (grew) onUpdate()
    timer = setTimeout(() => void look(), intervalMs)
    timer.unref()
  }
  const stop = (): void => {
    stopped = true
    clearTimeout(timer)
  }
  void look()
  return stop
}
