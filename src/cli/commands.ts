import { existsSync, readFileSync } from 'node:fs'
import { parseBatch } from '../adapters/parse-batch.js'
import { ToolhostError } from '../contract/errors.js'
import { internalsOf, type Host } from '../host/host.js'
import { underRoot } from '../workspace/paths.js'
import type { ToolResult } from '../contract/types.js'
import type { CliArgs } from './args.js'
import { showProgress } from './progress-display.js'
import { stopOnSignals } from './stop-on-signals.js'
import { renderTimeline } from './timeline.js'
import { RunTrace } from './run-trace.js'
import { listPromptsAndResources, promptAndResourceLines } from './prompt-commands.js'
import { describeRateLimit } from '../dispatch/schedule/rate-limits.js'
import type { PlannedCall } from '../host/host-types.js'
import { configNameLines, envHint } from './doctor-names.js'
import { describeDuplicate, duplicateToolsOf } from '../loader/duplicate-tools.js'
import { chooseSearchEngine } from '../search/find-ripgrep.js'

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
  const listed = await listPromptsAndResources(host)
  // A plugin that failed to load is already reported on stderr, once, by createHost's logger.
  if (tools.length === 0 && listed.prompts.length === 0 && listed.resources.length === 0) io.err(whyNoTools(host))
  const duplicates = duplicateToolsOf(host.pluginReport)
  if (args.json) {
    const extra = { ...(listed.prompts.length > 0 ? { prompts: listed.prompts } : {}), ...(listed.resources.length > 0 ? { resources: listed.resources } : {}) }
    io.out(JSON.stringify({ tools, ...extra, ...(duplicates.length > 0 ? { duplicates } : {}) }, null, 2))
    return 0
  }
  const nameWidth = Math.max(4, ...tools.map((t) => t.name.length))
  const setWidth = Math.max(7, ...tools.map((t) => t.toolset.length))
  io.out(`${'tool'.padEnd(nameWidth)}  ${'toolset'.padEnd(setWidth)}  status`)
  for (const t of tools) {
    io.out(`${t.name.padEnd(nameWidth)}  ${t.toolset.padEnd(setWidth)}  ${t.available ? 'available' : `hidden: ${t.reason}`}`)
  }
  io.out(`\n${tools.filter((t) => t.available).length} of ${counted(tools.length, 'tool')} available`)
  for (const line of promptAndResourceLines(listed)) io.out(line)
  if (duplicates.length > 0) io.out(`\nduplicate tool names (the file loaded first keeps the name):\n${duplicates.map((d) => `  ${describeDuplicate(d)}`).join('\n')}`)
  return 0
}

/** Why a host has no tool at all, and what to do about it. */
function whyNoTools(host: Host): string {
  const reasons: string[] = []
  const builtins = host.config.plugins.builtins
  if (builtins === false || (Array.isArray(builtins) && builtins.length === 0)) reasons.push(`the built-in tools are off (plugins.builtins: ${JSON.stringify(builtins)}${host.configFile ? ` in ${host.configFile}` : ''})`)
  const { loaded, failed, missingDirs = [] } = host.pluginReport
  const withheld = host.untrustedCode?.pluginFiles.length ?? 0
  if (withheld > 0) reasons.push(`the folder's ${counted(withheld, 'plugin file')} ${withheld === 1 ? 'was' : 'were'} not loaded: it is not trusted (toolhost trust runs them)`)
  else if (failed.length > 0) reasons.push(`${failed.length} plugin file${failed.length === 1 ? '' : 's'} failed to load (toolhost doctor says why)`)
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
  io.out(`mode:          ${host.mode}, max_workers ${host.maxWorkers}${host.maxWorkersFrom === 'config' ? '' : ` (from ${host.maxWorkersFrom})`}, timeout ${c.dispatch.timeout_ms} ms, interrupt grace ${c.dispatch.interrupt_grace_ms} ms`)
  const rules = internalsOf(host).pool.rateRules
  io.out(`rate limits:   ${rules.length === 0 ? 'none' : rules.map((r) => `${r.key}: ${describeRateLimit(r.limit)}`).join('; ')}`)
  const watcher = host.services.configWatcher
  io.out(`live limits:   ${watcher ? `${host.configFile} is watched: worker limit, rate limits, timeouts and hooks apply to calls not yet started` : 'off (plugins.watch or serve --watch turns it on); limits change on restart'}`)
  const known = internalsOf(host).estimates.known()
  io.out(`durations:     ${known.length} tool${known.length === 1 ? '' : 's'} with an estimate${c.dispatch.duration_estimates === '' ? ' (kept in memory only)' : `, kept in ${underRoot(host.root, c.dispatch.duration_estimates)}`}`)
  const ruleCount = c.permissions.allow.length + c.permissions.ask.length + c.permissions.deny.length
  io.out(`permissions:   ${c.permissions.mode}, ${ruleCount} rule${ruleCount === 1 ? '' : 's'} (allow ${c.permissions.allow.length}, ask ${c.permissions.ask.length}, deny ${c.permissions.deny.length}), audit log ${c.permissions.audit_log === '' ? 'off' : underRoot(host.root, c.permissions.audit_log)}`)
  io.out(`hooks:         ${describeHooks(host)}`)
  io.out(`store:         ${await describeStore(host)}`)
  io.out(`sandbox:       ${host.services.processes.sandboxStatus}`)
  io.out(`containment:   ${host.services.processes.containmentStatus}`)
  io.out(`search:        ${await describeSearchEngine()}`)
  const servers = host.services.mcpClients ?? []
  if (servers.length > 0) io.out(`mcp servers:   ${servers.filter((m) => m.connected).length} of ${servers.length} connected`)
  for (const m of servers) io.out(`  ${m.connected ? 'ok     ' : 'DOWN   '} ${m.server} (${counted(m.tools.length, 'tool')})${m.problems.length > 0 ? `: ${m.problems.join('; ')}` : ''}`)
  for (const line of trustLines(host)) io.out(line)
  io.out(`plugins:       ${host.pluginReport.loaded.length} loaded, ${host.pluginReport.failed.length} failed`)
  const pluginHooks = host.registry.hooks.list()
  const catalogue = host.registry.promptsAndResources
  for (const file of host.pluginReport.loaded) {
    // What the file registered: tools, then prompts, resources and hooks; "no tools" only when it registered nothing.
    const tools = (host.pluginReport.toolsByFile.get(file) ?? []).join(', ')
    const prompts = catalogue.prompts().filter((e) => e.source === file).map((e) => e.prompt.name)
    const resources = catalogue.resources().filter((e) => e.source === file).map((e) => e.key)
    const hooks = pluginHooks.filter((e) => e.source === file).map((e) => `${e.hook.event} hook "${e.hook.name}"`)
    const parts = [
      ...(tools ? [tools] : []),
      ...(prompts.length > 0 ? [`${prompts.length === 1 ? 'prompt' : 'prompts'} ${prompts.join(', ')}`] : []),
      ...(resources.length > 0 ? [`${resources.length === 1 ? 'resource' : 'resources'} ${resources.join(', ')}`] : []),
      ...hooks,
    ]
    io.out(`  ok      ${file} (${parts.length > 0 ? parts.join('; ') : 'no tools'})`)
  }
  for (const f of host.pluginReport.failed) io.out(`  FAILED  ${f.file}: ${f.message}`)
  for (const dir of host.pluginReport.missingDirs ?? []) io.out(`  missing folder ${dir}`)
  const duplicates = duplicateToolsOf(host.pluginReport)
  if (duplicates.length > 0) io.out(`duplicates:    ${counted(duplicates.length, 'tool name')} registered by two files; the file loaded first keeps it`)
  for (const d of duplicates) io.out(`  ${describeDuplicate(d)}`)
  const hidden = (await host.registry.explainAvailability({}, { checkTimeoutMs: c.availability.check_timeout_ms, env: host.env, canAsk: host.ask !== undefined })).filter((a) => !a.available)
  io.out(`tools:         ${host.registry.list().length} registered, ${hidden.length} hidden`)
  for (const h of hidden) io.out(`  hidden  ${h.name}: ${h.reason}${envHint(host, h.name)}`)
  for (const line of configNameLines(host)) io.out(line)
  return host.pluginReport.failed.length > 0 || duplicates.length > 0 || servers.some((m) => !m.connected) ? 1 : 0
}

// What the folder brings and did not run because it is not trusted: each file, hook count, server.
function trustLines(host: Host): string[] {
  const code = host.untrustedCode
  if (code === undefined) return []
  const lines = [`trust:         ${host.root} is NOT trusted: its own code was not run; toolhost trust --root ${JSON.stringify(host.root)} runs it`]
  for (const file of code.pluginFiles) lines.push(`  not loaded  ${file}`)
  if (code.hookCommands > 0) lines.push(`  not run     ${code.hookCommands} hook command${code.hookCommands === 1 ? '' : 's'} of ${code.configFile ?? 'config'}`)
  for (const server of code.mcpServers) lines.push(`  not started mcp_servers.${server}`)
  if (code.permissions.mode !== undefined) lines.push(`  not applied permissions.mode ${code.permissions.mode} (calls ask as in ask mode)`)
  if (code.permissions.allowRules > 0) lines.push(`  not applied ${code.permissions.allowRules} permissions.allow rule${code.permissions.allowRules === 1 ? '' : 's'}`)
  return lines
}

// The hooks in force by kind, in the order they run: config.yaml's, the embedding's, the plugins'.
function describeHooks(host: Host): string {
  const plugins = host.registry.hooks.list()
  const kinds = (['before_call', 'after_call'] as const).map((event) => {
    const config = host.config.hooks[event].map((_, i) => `hooks.${event}[${i}]`)
    const code = (event === 'before_call' ? host.hooks?.beforeCall : host.hooks?.afterCall) ?? []
    const names = [...config, ...code.map((h, i) => h.name ?? `the code hook ${event === 'before_call' ? 'beforeCall' : 'afterCall'}[${i}]`), ...plugins.filter((p) => p.hook.event === event).map((p) => JSON.stringify(p.hook.name))]
    return names.length === 0 ? undefined : `${event} ${names.join(', ')}`
  })
  const shown = kinds.filter((k) => k !== undefined)
  return shown.length === 0 ? 'none' : shown.join('; ')
}

// Which engine search_files runs, and why the JavaScript one when it is.
async function describeSearchEngine(): Promise<string> {
  const engine = await chooseSearchEngine()
  if (engine.kind === 'ripgrep') return `ripgrep ${engine.version} (${engine.source === 'PATH' ? `rg on PATH: ${engine.binary}` : `@vscode/ripgrep: ${engine.binary}`})`
  return `the JavaScript engine (no ripgrep: ${engine.reason})`
}

// Which coordination store, and whether it answers now: one round trip (a single-use id that lapses in a second).
async function describeStore(host: Host): Promise<string> {
  const store = host.services.store
  const which = store.where.startsWith(store.kind) ? store.where : `${store.kind} (${store.where})`
  try {
    await store.consumeOnce(`toolhost-doctor-${process.pid}-${Date.now()}`, 1000)
    return `${which}, reachable`
  } catch (error) {
    return `${which}, NOT reachable: ${(error as Error).message}`
  }
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
  // A name given, even "" (a hostile or generated one), is a call: the host answers it (E_TOOL_UNKNOWN).
  if (name === undefined) throw new ToolhostError('E_USAGE', 'call needs a tool name: toolhost call NAME [JSON]')
  // A JSON argument the shell split at its spaces would otherwise be cut silently.
  if (args.positionals.length > 2) {
    throw new ToolhostError('E_USAGE', `call takes a tool name and one JSON argument, got ${args.positionals.length - 1} arguments after the name; quote the JSON: toolhost call ${name} '{"key": "value"}'`)
  }
  const stopProgress = showProgress(host, process.stderr)
  const signals = stopOnSignals(io)
  let result: ToolResult
  try {
    result = await host.call({ id: 'call_1', name, arguments: json ?? '' }, { signal: signals.signal })
  } finally {
    signals.stop()
    stopProgress()
  }
  if (args.json) io.out(JSON.stringify(result, null, 2))
  else if (result.ok) io.out(result.content)
  else io.err(`error ${result.error?.code}: ${result.error?.message}`)
  return signals.exitCode(result.ok ? 0 : 1)
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

// A batch that parses to no calls (an assistant message with text only, an empty tool_calls)
// would otherwise print nothing at all and exit 0: say so, so a wrong file is noticed.
function noCallsNote(file: string | undefined): string {
  return `${file === '-' ? 'standard input' : file} holds no tool calls (an assistant message without tool_calls or tool_use blocks?); nothing to run`
}

/** `toolhost run FILE|-`: a batch; results in call order; `--trace` adds timings and the plan. */
export async function runCommand(host: Host, args: CliArgs, io: Output): Promise<number> {
  const calls = readBatch(args.positionals[0])
  if (calls.length === 0) io.err(noCallsNote(args.positionals[0]))
  const { results, exitCode } = await runAndPrint(host, calls, args, io)
  return exitCode(results.every((r) => r.ok) ? 0 : 1)
}

/**
 * Runs a batch and prints its results (and, with `--trace`, the timeline); resolves with the results
 * and the exit code to give (130 or 143 once SIGINT or SIGTERM interrupted the batch).
 */
export async function runAndPrint(host: Host, calls: ReturnType<typeof parseBatch>, args: CliArgs, io: Output): Promise<{ results: ToolResult[]; exitCode: (code: number) => number }> {
  const mode = (args.mode as Host['mode'] | undefined) ?? host.mode
  const trace = new RunTrace()
  const stop = host.onEvent((e) => trace.observe(e))
  const signals = stopOnSignals(io)
  const stopProgress = showProgress(host, process.stderr)
  let results: ToolResult[]
  try {
    results = await host.run(calls, { mode, trace: args.trace, signal: signals.signal })
  } finally {
    signals.stop()
    stopProgress()
    stop()
  }
  if (args.json) {
    // With --trace, when each call was queued, and the waits waitedFor leaves out: for another
    // host's calls (through the coordination store), for a worker, for a rate slot.
    const shown = args.trace ? results.map((r) => trace.traced(r)) : results
    io.out(JSON.stringify({ mode, results: shown }, null, 2))
  } else {
    for (const r of results) {
      const head = r.ok ? `ok    ${r.id} ${r.name}` : `error ${r.id} ${r.name} ${r.error?.code}`
      io.out(`${head}\n${indent(r.content)}`)
    }
    if (args.trace) io.out(`\n${mode} mode timeline:\n${renderTimeline(results, trace.waits, undefined, trace.pool, trace.queuedAt)}`)
  }
  return { results, exitCode: signals.exitCode }
}

/** `toolhost explain FILE|-`: the plan without running anything. */
export async function explainCommand(host: Host, args: CliArgs, io: Output): Promise<number> {
  const calls = readBatch(args.positionals[0])
  if (calls.length === 0) io.err(noCallsNote(args.positionals[0]))
  const plan = await host.explain(calls, { mode: (args.mode as Host['mode'] | undefined) ?? host.mode })
  if (args.json) {
    io.out(JSON.stringify(plan, null, 2))
    return 0
  }
  io.out(`${plan.mode} mode plan (${counted(plan.calls.length, 'call')}):`)
  for (const c of plan.calls) {
    if (c.error) {
      io.out(`${c.id} ${c.name}: will not run — ${c.error.code}: ${c.error.message}`)
      continue
    }
    const fp = c.footprint!
    const touches = fp.kind === 'barrier' ? `runs alone: ${fp.reason}` : fp.kind === 'free' ? 'touches nothing shared' : fp.touches.map((t) => `${t.access} ${t.label}`).join(', ')
    io.out(`${c.id} ${c.name}: ${touches}`)
    if (c.permission) io.out(`    permission: ${c.permission.outcome} (${c.permission.by}: ${c.permission.reason})`)
    if (c.hooks) io.out(`    hooks (run when it runs, not here): ${c.hooks.join(', ')}`)
    for (const line of planLines(c, host.maxWorkers)) io.out(`    ${line}`)
  }
  return 0
}

/** What `explain` says under a call: its waits (or that it starts at once), then where its footprint came from. */
function planLines(c: PlannedCall, workers: number): string[] {
  const lines: string[] = []
  if (c.permission?.outcome === 'deny') {
    lines.push('will not run (denied), so no call waits for it')
  } else {
    for (const w of c.waitsFor) lines.push(`waits for ${w.id}${w.ifAllowed ? ' (if allowed)' : ''}: ${w.reason}`)
    if (c.waitsForWorker) lines.push(`waits for a worker (predicted; max_workers ${workers}): ${c.waitsForWorker.join(', ')} ${c.waitsForWorker.length === 1 ? 'holds' : 'hold'} them`)
    if (c.rateLimit?.waits) lines.push(`waits for a rate slot: ${c.rateLimit.group} allows ${describeRateLimit(c.rateLimit.limit)}`)
    if (lines.length === 0) lines.push('starts at once')
  }
  if (c.footprintFrom) lines.push(`footprint from ${c.footprintFrom.by === 'default' ? 'the default' : c.footprintFrom.by === 'tool' ? 'the tool' : 'config'}: ${c.footprintFrom.detail}`)
  if (c.priority !== undefined && c.priority > 0) lines.push(`priority: ~${formatMs(c.priority)} of estimated work on its longest chain`)
  return lines
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`
}

function indent(text: string): string {
  const lines = text.split('\n')
  const shown = lines.slice(0, 20).map((l) => `      ${l}`)
  if (lines.length > 20) shown.push(`      … ${lines.length - 20} more lines`)
  return shown.join('\n')
}

/** "1 call", "2 calls", "0 tools": what a person reads under a count. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}
