import type { ServerResponse } from 'node:http'
import type { Host } from '../host/host.js'
import { CallTimeline, type CallRecord } from '../observe/call-timeline.js'
import type { ProcessRegistry } from '../processes/process-registry.js'
import { callDetailWriter } from './call-detail.js'
import { ConsoleApprovals } from './console-approvals.js'
import { ConsoleCalls } from './console-calls.js'
import { hostView, limitsView, processesView, toolsView, type ConsoleClient } from './console-views.js'
import { EventStream } from './event-stream.js'

/** What a `ConsoleHub` shows besides the host's own state, and how many calls it keeps. */
export interface ConsoleHubOptions {
  /** The connected MCP clients (serve passes its sessions'); none for an embedded host. */
  clients?: () => ConsoleClient[]
  /** Calls kept for the timeline (default 1000; running calls are always kept). */
  keepCalls?: number
}

/** How often changed calls go out to pages, and how often processes and clients are looked at. */
const FLUSH_MS = 100
const POLL_MS = 1000

/**
 * The console's live state and its open pages. It listens to the host (scheduling events, the
 * process registry, the tool registry) only while at least one page is open, so a host nobody
 * watches pays nothing; each page gets a snapshot, then changes as server-sent events (calls
 * batched every 100 ms; processes, clients and tools when they change). While a page is open it is
 * the permission gate's standby approver (`permissions.console_approvals`).
 *
 * @example
 * const hub = new ConsoleHub(host, { clients: () => sessions.describe() })
 * await hub.open(res, securityHeaders, csrfToken) // one page's event stream
 */
export class ConsoleHub {
  readonly approvals: ConsoleApprovals
  /** Calls a person makes from the form (`POST /console/api/calls`). */
  readonly calls: ConsoleCalls
  readonly timeline: CallTimeline
  readonly #host: Host
  readonly #clients: () => ConsoleClient[]
  readonly #streams = new Set<EventStream>()
  readonly #dirty = new Set<CallRecord>()
  #watching: Array<() => void> = []
  #interested = 0
  #flushTimer: NodeJS.Timeout | undefined
  #lastClients = ''
  #lastProcesses = ''
  #detachStandby: () => void = () => {}

  constructor(host: Host, options: ConsoleHubOptions = {}) {
    this.#host = host
    this.#clients = options.clients ?? (() => [])
    const detail = callDetailWriter(host)
    this.timeline = new CallTimeline({ limit: options.keepCalls ?? 1000, onUpdate: (record) => this.#markDirty(record), detail })
    this.calls = new ConsoleCalls(host, detail)
    const { enabled, timeout_ms } = host.config.permissions.console_approvals
    this.approvals = new ConsoleApprovals({ timeoutMs: timeout_ms, isOpen: () => this.#streams.size > 0 })
    if (enabled) this.#detachStandby = host.authoriser.attachStandby?.(this.approvals) ?? (() => {})
    this.approvals.onChange(() => this.#broadcast('approvals', { approvals: this.approvals.pending() }))
  }

  // Named, not `Host['services']['processes']`: that entry exists only where process-registry's
  // declaration merging is in the program, which a consumer importing just toolhost/console lacks.
  /** The host's process registry (the Kill button's). */
  get processes(): ProcessRegistry | undefined {
    return this.#host.services.processes
  }

  /** Pages open now. */
  get pages(): number {
    return this.#streams.size
  }

  /** Serves one page's event stream until it closes: a snapshot first, then changes. */
  async open(res: ServerResponse, headers: Record<string, string>, csrf: string): Promise<void> {
    const stream = new EventStream(res, headers)
    // Listening starts with the first page and stops with the last (counted from the moment a page
    // connects, so two pages opening at once never leave the host unwatched).
    if (this.#interested++ === 0) this.#watch()
    try {
      const [tools, processes] = await Promise.all([toolsView(this.#host), processesView(this.#host)])
      stream.send('snapshot', {
        csrf,
        now: this.#host.now(),
        host: hostView(this.#host),
        limits: limitsView(this.#host),
        approvalsEnabled: this.#host.config.permissions.console_approvals.enabled,
        calls: this.timeline.records(),
        approvals: this.approvals.pending(),
        processes,
        clients: this.#clients(),
        tools,
      })
    } catch (error) {
      this.#host.log.warn(`console: the snapshot failed: ${(error as Error).message}`)
    }
    if (stream.isOpen) this.#streams.add(stream)
    await stream.closed
    this.#streams.delete(stream)
    if (--this.#interested === 0) this.#unwatch()
  }

  /** Ends every page's stream and stops listening (the console is closing). */
  close(): void {
    this.#detachStandby()
    for (const stream of this.#streams) stream.end()
    this.#streams.clear()
    this.#unwatch()
  }

  #watch(): void {
    const host = this.#host
    this.#watching.push(host.onEvent((event) => this.timeline.observe(event)))
    const processes = host.services.processes
    if (processes) this.#watching.push(processes.onEvent(() => void this.#sendProcesses()))
    this.#watching.push(host.registry.onChange(() => void this.#sendTools()))
    // Live keys of a reloaded config.yaml (worker and rate limits, timeouts, hooks) show at once.
    this.#watching.push(host.onConfigChange(() => this.#broadcast('limits', { limits: limitsView(host) })))
    // A plugin's hooks come and go with its file: the count of hooks in force is a limit row.
    this.#watching.push(host.registry.hooks.onChange(() => this.#broadcast('limits', { limits: limitsView(host) })))
    const poll = setInterval(() => {
      this.#sendClients()
      if (processes?.list().some((p) => p.status === 'running')) void this.#sendProcesses()
    }, POLL_MS)
    poll.unref()
    this.#watching.push(() => clearInterval(poll))
  }

  #unwatch(): void {
    for (const stop of this.#watching.splice(0)) stop()
    clearTimeout(this.#flushTimer)
    this.#flushTimer = undefined
    this.#dirty.clear()
  }

  #markDirty(record: CallRecord): void {
    this.#dirty.add(record)
    if (this.#flushTimer === undefined) {
      this.#flushTimer = setTimeout(() => this.#flush(), FLUSH_MS)
      this.#flushTimer.unref()
    }
  }

  #flush(): void {
    this.#flushTimer = undefined
    if (this.#dirty.size === 0) return
    const calls = [...this.#dirty]
    this.#dirty.clear()
    this.#broadcast('calls', { now: this.#host.now(), calls })
  }

  async #sendProcesses(): Promise<void> {
    const processes = await processesView(this.#host)
    const text = JSON.stringify(processes.map(({ uptimeMs: _uptime, ...p }) => p))
    if (text === this.#lastProcesses) return
    this.#lastProcesses = text
    this.#broadcast('processes', { processes })
  }

  async #sendTools(): Promise<void> {
    this.#broadcast('tools', { tools: await toolsView(this.#host) })
  }

  #sendClients(): void {
    const clients = this.#clients()
    const text = JSON.stringify(clients)
    if (text === this.#lastClients) return
    this.#lastClients = text
    this.#broadcast('clients', { clients })
  }

  #broadcast(event: string, data: unknown): void {
    for (const stream of this.#streams) stream.send(event, data)
  }
}
