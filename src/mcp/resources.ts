import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { ResourceNotFoundError, type Resource, type Server } from '@modelcontextprotocol/server'
import { describeThrown } from '../contract/errors.js'
import { underRoot } from '../workspace/paths.js'
import type { Host } from '../host/host.js'
import { MAX_LOG_LINES } from '../processes/log-page.js'
import { workspaceFor } from '../workspace/workspace.js'
import type { McpSessions } from './sessions.js'
import { PROCESS_LOG_PREFIX, processLogUri, watchProcessLog } from './log-watch.js'

const RESULTS = 'toolhost://results/'
const PROCESSES = PROCESS_LOG_PREFIX
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}$/

/** The URI templates toolhost offers (`resources/templates/list`). */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${RESULTS}{name}`,
    name: 'saved-result',
    title: 'Saved whole result',
    description: 'The whole text of a tool result that was over the size limit (limits.results_dir); the result itself names the file.',
    mimeType: 'text/plain',
  },
  {
    uriTemplate: `${PROCESSES}{id}/log`,
    name: 'process-log',
    title: 'Process output',
    description: `The last ${MAX_LOG_LINES} lines of output of a process started with the terminal or process tool; subscribe to hear when a running one writes more.`,
    mimeType: 'text/plain',
  },
]

/**
 * Offers what toolhost has as MCP resources: saved over-long results (`toolhost://results/NAME`,
 * read through the workspace wall) and the output of its processes
 * (`toolhost://processes/ID/log`). `servePromptsAndResources` answers `resources/list`,
 * `resources/templates/list` and `resources/read` with these beside the plugins' resources
 * (`listOwnResources`, `readOwnResource`); this registers the subscriptions. A 2025 session's `resources/subscribe` on a running process's
 * log sends `notifications/resources/updated` while it writes; any other URI is accepted and never
 * updates. A 2026 client subscribes through `subscriptions/listen` (`McpSessions.watchResourceList`
 * publishes every running process's updates; the SDK delivers each to the streams that asked).
 * A missing resource is `ResourceNotFoundError` (`-32602` with `data.uri`, on both revisions).
 *
 * @example
 * serveResources(server, host, sessions) // inside createMcpServer
 */
export function serveResources(server: Server, host: Host, sessions: McpSessions): void {
  const subscriptions = new Map<string, () => void>()
  const previousClose = server.onclose
  server.onclose = () => {
    for (const stop of subscriptions.values()) stop()
    subscriptions.clear()
    previousClose?.()
  }

  server.setRequestHandler('resources/subscribe', async (request) => {
    const { uri } = request.params
    if (!subscriptions.has(uri)) {
      const id = processIdOf(uri)
      const processes = host.services.processes
      const stop = id !== undefined && processes !== undefined
        ? watchProcessLog(processes, id, () => void server.sendResourceUpdated({ uri }).catch(() => {}))
        : () => {}
      subscriptions.set(uri, stop)
    }
    return {}
  })
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    subscriptions.get(request.params.uri)?.()
    subscriptions.delete(request.params.uri)
    return {}
  })
  sessions.watchResourceList(host)
}

/** Toolhost's own resources now: saved results, then process logs. */
export async function listOwnResources(host: Host): Promise<Resource[]> {
  return [...(await listResults(host)), ...listProcessLogs(host)]
}

/** True when `uri` is one of toolhost's own (`toolhost://results/…`, `toolhost://processes/…`). */
export function isOwnResourceUri(uri: string): boolean {
  return uri.startsWith(RESULTS) || uri.startsWith(PROCESSES)
}

async function listResults(host: Host): Promise<Resource[]> {
  const dir = underRoot(host.root, host.config.limits.results_dir)
  let names: string[]
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && SAFE_NAME.test(e.name)).map((e) => e.name).sort()
  } catch {
    return [] // no result saved yet
  }
  return names.map((name) => ({ uri: `${RESULTS}${name}`, name, title: `Saved result ${name}`, description: 'The whole text of a tool result that was over the size limit.', mimeType: 'text/plain' }))
}

function listProcessLogs(host: Host): Resource[] {
  return (host.services.processes?.list() ?? []).map((p) => ({
    uri: processLogUri(p.id),
    name: `${p.id}-log`,
    title: `Output of ${p.id}`,
    description: `${p.command} (${p.status === 'running' ? 'running' : `exited${p.exitCode === null ? '' : ` with ${p.exitCode}`}`}, ${p.lines} lines)`,
    mimeType: 'text/plain',
  }))
}

/** Reads one of toolhost's own resources; anything else is `ResourceNotFoundError`. */
export async function readOwnResource(host: Host, uri: string): Promise<{ uri: string; mimeType: string; text: string }> {
  if (uri.startsWith(RESULTS)) {
    const name = decodeURIComponent(uri.slice(RESULTS.length))
    if (!SAFE_NAME.test(name)) throw notFound(uri, 'not a saved result name')
    const workspace = workspaceFor({ workspace: { root: host.root }, settings: { config: host.config } })
    try {
      const file = workspace.resolve(path.join(underRoot(host.root, host.config.limits.results_dir), name), 'read')
      return { uri, mimeType: 'text/plain', text: (await workspace.readFile(file)).toString('utf8') }
    } catch (error) {
      throw notFound(uri, describeThrown(error))
    }
  }
  const id = processIdOf(uri)
  const processes = host.services.processes
  if (id !== undefined && processes !== undefined) {
    try {
      const page = await processes.log(id, { limit: MAX_LOG_LINES })
      return { uri, mimeType: 'text/plain', text: page.lines.map((line) => line.text).join('\n') }
    } catch (error) {
      throw notFound(uri, describeThrown(error))
    }
  }
  throw notFound(uri, 'toolhost offers toolhost://results/NAME and toolhost://processes/ID/log')
}

function processIdOf(uri: string): string | undefined {
  if (!uri.startsWith(PROCESSES) || !uri.endsWith('/log')) return undefined
  const id = decodeURIComponent(uri.slice(PROCESSES.length, -'/log'.length))
  return SAFE_NAME.test(id) ? id : undefined
}

function notFound(uri: string, why: string): ResourceNotFoundError {
  return new ResourceNotFoundError(uri, `Resource not found: ${uri} (${why})`)
}
