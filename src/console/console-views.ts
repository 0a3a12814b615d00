// What each console panel shows, read from the host (plain data, sent to pages as JSON).
import { internalsOf, type Host } from '../host/host.js'
import type { ProcessInfo } from '../contract/process-service.js'
import { describeRatePace } from '../dispatch/schedule/rate-limits.js'
import type { JsonSchema } from '../contract/types.js'

/** A connected MCP client, as the console lists it. */
export interface ConsoleClient {
  name: string
  version: string
  /** It can be asked (clarify, approvals) through MCP elicitation. */
  elicitation: boolean
  /** Its calls running now. */
  calls: number
  /** Tools it is never offered (the console shows the rest of the available ones as what it sees). */
  withheld?: string[]
}

export interface ToolView {
  name: string
  toolset: string
  description: string
  available: boolean
  reason?: string
  /** Its input JSON Schema: what the console's form is built from. */
  parameters: JsonSchema
}

/** One row of the limits panel. */
export interface LimitView {
  key: string
  value: string
}

/** A process with the last part of its output (for the live tail). */
export type ProcessView = Omit<ProcessInfo, 'cwd' | 'log'>

/** Every tool, whether it is offered now, and why a hidden one is hidden. */
export async function toolsView(host: Host): Promise<ToolView[]> {
  const availability = new Map((await host.registry.explainAvailability({}, { checkTimeoutMs: host.config.availability.check_timeout_ms, env: host.env, canAsk: host.ask !== undefined })).map((a) => [a.name, a]))
  return host.registry.list().map((t) => {
    const a = availability.get(t.name)
    return { name: t.name, toolset: t.toolset, description: t.description, available: a?.available ?? false, ...(a?.reason ? { reason: a.reason } : {}), parameters: t.parameters }
  })
}

/** The limits in force: scheduling, rate limits, sizes, processes, permissions. */
export function limitsView(host: Host): LimitView[] {
  const c = host.config
  const p = c.permissions
  const permissionRules = `allow ${p.allow.length}, ask ${p.ask.length}, deny ${p.deny.length}`
  const rows: Array<[string, string | number]> = [
    ['dispatch.mode', host.mode],
    ['dispatch.max_workers', host.maxWorkers],
    ['dispatch.timeout_ms', c.dispatch.timeout_ms],
    ['dispatch.interrupt_grace_ms', c.dispatch.interrupt_grace_ms],
    ['limits.max_result_chars', c.limits.max_result_chars],
    ['limits.max_read_chars', c.limits.max_read_chars],
    ['limits.max_argument_chars', c.limits.max_argument_chars],
    ['processes.max_running', c.processes.max_running],
    ['processes.kill_grace_ms', c.processes.kill_grace_ms],
    ['terminal.timeout_ms', c.terminal.timeout_ms],
    ['permissions.mode', p.mode],
    ['permissions rules', permissionRules],
    ['permissions.console_approvals', p.console_approvals.enabled ? `on, ${p.console_approvals.timeout_ms} ms` : 'off'],
    ['availability.check_timeout_ms', c.availability.check_timeout_ms],
    ['hooks', hooksText(host)],
  ]
  // The rate limits the pool applies now (a live key: a reloaded config.yaml is sent to open pages at once).
  const rules = internalsOf(host).pool.rateRules
  if (rules.length === 0) rows.push(['rate_limits', 'none'])
  for (const rule of rules) rows.push([`rate_limits.${rule.key}`, describeRatePace(rule.limit)])
  return rows.map(([key, value]) => ({ key, value: String(value) }))
}

// How many hooks of each kind are in force: config.yaml's, the embedding's and the plugins'.
function hooksText(host: Host): string {
  const plugins = host.registry.hooks.list()
  const count = (config: number, code: number, event: string): number => config + code + plugins.filter((p) => p.hook.event === event).length
  const before = count(host.config.hooks.before_call.length, host.hooks?.beforeCall?.length ?? 0, 'before_call')
  const after = count(host.config.hooks.after_call.length, host.hooks?.afterCall?.length ?? 0, 'after_call')
  return before + after === 0 ? 'none' : `before_call ${before}, after_call ${after}`
}

/** The host's processes with the tail of each one's output. */
export async function processesView(host: Host): Promise<ProcessView[]> {
  const registry = host.services.processes
  if (!registry) return []
  const listed = registry.list()
  const polled = await Promise.all(listed.map((p) => registry.poll(p.id).catch(() => p)))
  return polled.map(({ cwd: _cwd, log: _log, ...view }) => view)
}

/** Who the host is: shown in the console's header. */
export function hostView(host: Host): { root: string; configFile: string | null; mode: string; permissionMode: string; pid: number } {
  return { root: host.root, configFile: host.configFile ?? null, mode: host.mode, permissionMode: host.config.permissions.mode, pid: process.pid }
}
