import { existsSync, readFileSync } from 'node:fs'
import { parseBatch } from '../adapters/parse-batch.js'
import type { Wait } from '../dispatch/scheduler.js'
import { ToolhostError } from '../errors.js'
import type { Host } from '../host.js'
import { underRoot } from '../host-setup.js'
import type { ToolResult } from '../types.js'
import type { CliArgs } from './args.js'
import { showProgress } from './progress-display.js'
import { renderTimeline } from './timeline.js'

export interface Output {
  out: (text: string) => void
  err: (text: string) => void
}

/** `toolhost list`: every tool, whether it is offered now, and why not. */
export async function listCommand(host: Host, args: CliArgs, io: Output): Promise<number> {
  const availability = new Map((await host.registry.explainAvailability({}, { checkTimeoutMs: host.config.availability.check_timeout_ms, env: host.env, canAsk: host.ask !== undefined })).map((a) => [a.name, a]))
  const tools = host.registry.list().map((t) => {
    const a = availability.get(t.name)
    return { name: t.name, toolset: t.toolset, description: t.description, available: a?.available ?? false, ...(a?.reason ? { reason: a.reason } : {}) }
  })
  // A plugin that failed to load is already reported on stderr, once, by createHost's logger.
  if (tools.length === 0) io.err(whyNoTools(host))
  if (args.json) {
    io.out(JSON.stringify({ tools }, null, 2))
    return 0
  }
  const nameWidth = Math.max(4, ...tools.map((t) => t.name.length))
  const setWidth = Math.max(7, ...tools.map((t) => t.toolset.length))
  io.out(`${'tool'.padEnd(nameWidth)}  ${'toolset'.padEnd(setWidth)}  status`)
  for (const t of tools) {
    io.out(`${t.name.padEnd(nameWidth)}  ${t.toolset.padEnd(setWidth)}  ${t.available ? 'available' : `hidden: ${t.reason}`}`)
  }
  io.out(`\n${tools.filter((t) => t.available).length} of ${tools.length} tools available`)
  return 0
}

/** Why a host has no tool at all, and what to do about it. */
function whyNoTools(host: Host): string {
  const reasons: string[] = []
  const builtins = host.config.plugins.builtins
  if (builtins === false || (Array.isArray(builtins) && builtins.length === 0)) reasons.push(`the built-in tools are off (plugins.builtins: ${JSON.stringify(builtins)}${host.configFile ? ` in ${host.configFile}` : ''})`)
  const { loaded, failed, missingDirs = [] } = host.pluginReport
  if (failed.length > 0) reasons.push(`${failed.length} plugin file${failed.length === 1 ? '' : 's'} failed to load (toolhost doctor says why)`)
  else if (loaded.length === 0) reasons.push(`no plugin file was found${missingDirs.length > 0 ? ` (no folder ${missingDirs.join(', ')})` : ''}`)
  else reasons.push(`the ${loaded.length} plugin file${loaded.length === 1 ? '' : 's'} loaded registered no tool`)
  return `toolhost: no tools: ${reasons.join('; ')}. Write one with npx toolhost new-plugin NAME (into ./plugins), or name a folder with --plugins DIR.`
}

/** `toolhost doctor`: config, env, plugins, hidden tools; exit 1 when something needs fixing. */
export async function doctorCommand(host: Host, _args: CliArgs, io: Output): Promise<number> {
  const c = host.config
  io.out(`config:        ${host.configFile ?? '(none found; defaults)'}`)
  io.out(`root:          ${host.root}`)
  io.out(`env file:      ${describeEnvFile(host)}`)
  io.out(`mode:          ${host.mode}, max_workers ${host.maxWorkers}, timeout ${c.dispatch.timeout_ms} ms`)
  const rules = c.permissions.allow.length + c.permissions.ask.length + c.permissions.deny.length
  io.out(`permissions:   ${c.permissions.mode}, ${rules} rule${rules === 1 ? '' : 's'} (allow ${c.permissions.allow.length}, ask ${c.permissions.ask.length}, deny ${c.permissions.deny.length}), audit log ${c.permissions.audit_log === '' ? 'off' : underRoot(host.root, c.permissions.audit_log)}`)
  io.out(`sandbox:       ${host.services.processes.sandboxStatus}`)
  const servers = host.services.mcpClients ?? []
  if (servers.length > 0) io.out(`mcp servers:   ${servers.filter((m) => m.connected).length} of ${servers.length} connected`)
  for (const m of servers) io.out(`  ${m.connected ? 'ok     ' : 'DOWN   '} ${m.server} (${m.tools.length} tools)${m.problems.length > 0 ? `: ${m.problems.join('; ')}` : ''}`)
  io.out(`plugins:       ${host.pluginReport.loaded.length} loaded, ${host.pluginReport.failed.length} failed`)
  for (const file of host.pluginReport.loaded) io.out(`  ok      ${file} (${(host.pluginReport.toolsByFile.get(file) ?? []).join(', ') || 'no tools'})`)
  for (const f of host.pluginReport.failed) io.out(`  FAILED  ${f.file}: ${f.message}`)
  for (const dir of host.pluginReport.missingDirs ?? []) io.out(`  missing folder ${dir}`)
  const hidden = (await host.registry.explainAvailability({}, { checkTimeoutMs: c.availability.check_timeout_ms, env: host.env, canAsk: host.ask !== undefined })).filter((a) => !a.available)
  io.out(`tools:         ${host.registry.list().length} registered, ${hidden.length} hidden`)
  for (const h of hidden) io.out(`  hidden  ${h.name}: ${h.reason}`)
  return host.pluginReport.failed.length > 0 || servers.some((m) => !m.connected) ? 1 : 0
}

// Names only: a value from .env may be a secret, and doctor's output is pasted into issues.
function describeEnvFile(host: Host): string {
  const env = host.envFile
  if (env === undefined) return '(disabled)'
  if (!existsSync(env.file)) return `${env.file} (not found)`
  if (env.set.length === 0) return `${env.file} (read; it set no variable)`
  return `${env.file} (set ${env.set.join(', ')})`
}

/** `toolhost call NAME [JSON]`: one call; prints its content (or the result with --json). */
export async function callCommand(host: Host, args: CliArgs, io: Output): Promise<number> {
  const [name, json] = args.positionals
  if (!name) throw new ToolhostError('E_USAGE', 'call needs a tool name: toolhost call NAME [JSON]')
  // A JSON argument the shell split at its spaces would otherwise be cut silently.
  if (args.positionals.length > 2) {
    throw new ToolhostError('E_USAGE', `call takes a tool name and one JSON argument, got ${args.positionals.length - 1} arguments after the name; quote the JSON: toolhost call ${name} '{"key": "value"}'`)
  }
  const stopProgress = showProgress(host, process.stderr)
  let result: ToolResult
  try {
    result = await host.call({ id: 'call_1', name, arguments: json ?? '' })
  } finally {
    stopProgress()
  }
  if (args.json) io.out(JSON.stringify(result, null, 2))
  else if (result.ok) io.out(result.content)
  else io.err(`error ${result.error?.code}: ${result.error?.message}`)
  return result.ok ? 0 : 1
}

/** Reads a batch file (or stdin for `-`). */
export function readBatch(file: string | undefined): ReturnType<typeof parseBatch> {
  if (!file) throw new ToolhostError('E_USAGE', 'name a batch file, or - for standard input')
  let text: string
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8')
  } catch (error) {
    throw new ToolhostError('E_USAGE', `cannot read ${file}: ${(error as Error).message}`)
  }
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (error) {
    throw new ToolhostError('E_USAGE', `${file} is not valid JSON: ${(error as Error).message}`)
  }
  return parseBatch(document, file)
}

/** `toolhost run FILE|-`: a batch; results in call order; `--trace` adds timings and the plan. */
export async function runCommand(host: Host, args: CliArgs, io: Output): Promise<number> {
  const results = await runAndPrint(host, readBatch(args.positionals[0]), args, io)
  return results.every((r) => r.ok) ? 0 : 1
}

/** Runs a batch and prints its results (and, with `--trace`, the timeline); resolves with the results. */
export async function runAndPrint(host: Host, calls: ReturnType<typeof parseBatch>, args: CliArgs, io: Output): Promise<ToolResult[]> {
  const mode = (args.mode as Host['mode'] | undefined) ?? host.mode
  const waits = new Map<string, Wait[]>()
  const stop = host.onEvent((e) => {
    if (e.type === 'waiting') waits.set(e.id, e.on)
  })
  const controller = new AbortController()
  const onSigint = (): void => controller.abort()
  process.once('SIGINT', onSigint)
  const stopProgress = showProgress(host, process.stderr)
  let results: ToolResult[]
  try {
    results = await host.run(calls, { mode, trace: args.trace, signal: controller.signal })
  } finally {
    process.off('SIGINT', onSigint)
    stopProgress()
    stop()
  }
  if (args.json) {
    io.out(JSON.stringify({ mode, results }, null, 2))
  } else {
    for (const r of results) {
      const head = r.ok ? `ok    ${r.id} ${r.name}` : `error ${r.id} ${r.name} ${r.error?.code}`
      io.out(`${head}\n${indent(r.content)}`)
    }
    if (args.trace) io.out(`\n${mode} mode timeline:\n${renderTimeline(results, waits)}`)
  }
  return results
}

/** `toolhost explain FILE|-`: the plan without running anything. */
export async function explainCommand(host: Host, args: CliArgs, io: Output): Promise<number> {
  const calls = readBatch(args.positionals[0])
  const plan = await host.explain(calls, { mode: (args.mode as Host['mode'] | undefined) ?? host.mode })
  if (args.json) {
    io.out(JSON.stringify(plan, null, 2))
    return 0
  }
  io.out(`${plan.mode} mode plan (${plan.calls.length} calls):`)
  for (const c of plan.calls) {
    if (c.error) {
      io.out(`${c.id} ${c.name}: will not run — ${c.error.code}: ${c.error.message}`)
      continue
    }
    const fp = c.footprint!
    const touches = fp.kind === 'barrier' ? `runs alone: ${fp.reason}` : fp.kind === 'free' ? 'touches nothing shared' : fp.touches.map((t) => `${t.access} ${t.label}`).join(', ')
    io.out(`${c.id} ${c.name}: ${touches}`)
    if (c.permission) io.out(`    permission: ${c.permission.outcome} (${c.permission.by}: ${c.permission.reason})`)
    if (c.waitsFor.length === 0) io.out('    starts at once')
    for (const w of c.waitsFor) io.out(`    waits for ${w.id}: ${w.reason}`)
  }
  return 0
}

function indent(text: string): string {
  const lines = text.split('\n')
  const shown = lines.slice(0, 20).map((l) => `      ${l}`)
  if (lines.length > 20) shown.push(`      … ${lines.length - 20} more lines`)
  return shown.join('\n')
}
