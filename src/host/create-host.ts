import path from 'node:path'
import { logSchedulingEvents } from '../observe/log-events.js'
import { loadEnvFile } from '../config/env-file.js'
import { DISPATCH_MODES, PERMISSION_MODES, type ToolhostConfig } from '../config/types.js'
import { checkChoice, resolveSetup, withPermissionOverrides } from './setup.js'
import { askWorkspaceTrust, keepTrustedCode, mayLoadWorkspaceFile } from './workspace-trust.js'
import { checkConfigNames, checkPluginHookNames } from './config-names.js'
import type { HostOptions, HostServices } from './host-types.js'
import { HostRuntime, type Host, type HostParts } from './host.js'
import { builtinPluginFiles, duplicatesBuiltins } from '../loader/builtin-plugins.js'
import { loadPlugins } from '../loader/load-plugins.js'
import { tsCache } from '../loader/ts-source.js'
import { knownSchemas } from '../registry/known-schemas.js'
import { createLogger } from '../contract/logger.js'
import { AUDIENCES } from '../contract/messages.js'
import { isOpenTelemetryRegistered } from '../otel/detect.js'
import { PermissionGate } from '../permissions/permission-gate.js'
import { openProcessRegistry } from '../processes/attach-processes.js'
import { startTempSweep } from '../workspace/sweep-temp-files.js'
import { underRoot } from '../workspace/paths.js'
import { controlPlaneOf } from '../workspace/control-plane.js'
import { trustFilePath } from '../loader/trust-store.js'
import { openStore } from '../store/open-store.js'
import { storeSetting } from '../store/store-setting.js'
import { processStartTime } from '../processes/start-time.js'
import type { TempFileWriter } from '../workspace/temp-file-names.js'

// The services createHost attaches as each subsystem starts; the host reads them, read-only.
type AttachedServices = { -readonly [K in keyof HostServices]: HostServices[K] }

/**
 * Creates a host: loads config (file or object), the .env file, and the plugin folders.
 * Configuration faults throw `E_CONFIG_INVALID` naming the file and key; a plugin that fails to load
 * is reported in `host.pluginReport` while the others load.
 *
 * @example
 * const host = await createHost({ root: '.', permissionMode: 'plan' })
 * const results = await host.run(assistantMessage)
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  checkChoice('createHost({ mode })', options.mode, DISPATCH_MODES)
  checkChoice('createHost({ permissionMode })', options.permissionMode, PERMISSION_MODES)
  checkChoice('createHost({ audience })', options.audience, AUDIENCES)
  const resolved = resolveSetup(options, options.env)
  // The workspace's own code is asked about before anything reads the config: withheld, it is gone
  // from the config every part of the host is built from.
  const trust = await askWorkspaceTrust(resolved, options)
  const config = withPermissionOverrides(trust.config, options)
  // What programs the host is out of the file tools' reach; the folder's own plugin folders and hook
  // scripts count even when withheld (a file written there would run once the folder is trusted).
  const controlPlane = controlPlaneOf({
    root: resolved.root,
    config: { ...config, plugins: resolved.config.plugins, hooks: resolved.config.hooks },
    configFile: resolved.file,
    baseDir: resolved.baseDir,
    pluginDirs: (options.plugins ?? []).map((d) => path.resolve(options.cwd ?? process.cwd(), d)),
    trustFile: trustFilePath(options.env ?? process.env),
    caches: [tsCache.dir, knownSchemas.file === undefined ? undefined : path.dirname(knownSchemas.file)].filter((dir): dir is string => dir !== undefined),
  })
  const setup = { ...resolved, config, controlPlane }
  const log = options.log ?? createLogger()
  const env = options.env ?? process.env
  // A bad `store` (or TOOLHOST_STORE) fails start-up naming it, before anything starts.
  const store = openStore({ ...storeSetting(setup.config.store, setup.file ?? (typeof options.config === 'object' ? 'createHost({ config })' : 'defaults'), env), root: setup.root, log })
  // The permission system first: a bad rule fails start-up before any process is adopted.
  const authoriser = options.authoriser ?? new PermissionGate({ config: setup.config, configFile: setup.file, root: setup.root, approve: options.approve, log, audience: options.audience ?? 'developer' })
  const opened = await openProcessRegistry({ root: setup.root, config: setup.config, configFile: setup.file, log, env, controlPlane })
  const sweep = startTempSweep({ root: setup.root, log, isWriterAlive }) // temp files of killed writes, in the background
  // Joined while the rest starts (plugins load meanwhile), awaited before the host is handed out:
  // a host alone then starts its first call at once. (It never rejects: a store that cannot be
  // joined is reported and the host runs alone.)
  const joined = store.open()
  const services: AttachedServices = { processes: opened.processes, store, tempSweep: sweep.done }
  const parts: HostParts = { log, authoriser, services, pluginReport: { loaded: [], failed: [], toolsByFile: new Map() }, envFile: undefined, ...(trust.withheld ? { untrustedCode: trust.withheld } : {}) }
  const host = new HostRuntime(setup, options, parts)
  // Closed in reverse: the sweep, the processes, the permission gate (its audit log), then the store
  // (every call has been released by then: this host leaves it holding nothing).
  host.onClose(() => store.close())
  // What this host learned of its tools' durations goes to the other hosts of a cluster store as it
  // leaves (before the store closes; hosts of one machine share the dispatch.duration_estimates file).
  if (store.shareEstimates) {
    const share = store.shareEstimates.bind(store)
    host.onClose(() => share(host.estimates.known()).catch((error: unknown) => log.debug(`the duration estimates were not shared: ${(error as Error).message}`)))
  }
  if (authoriser instanceof PermissionGate && authoriser !== options.authoriser) host.onClose(() => authoriser.close())
  host.onClose(() => opened.close())
  host.onClose(() => sweep.stop())
  // Events cost nothing while nobody listens, so they are logged only when asked for.
  if (options.logEvents ?? env.TOOLHOST_LOG?.trim().toLowerCase() === 'debug') logSchedulingEvents(host, host.log)
  // Observers are loaded only when asked for (or, for OpenTelemetry, when an SDK is registered).
  if (options.traceFile !== undefined) (await import('../observe/trace-file.js')).recordTraceFile(host, path.resolve(options.cwd ?? process.cwd(), options.traceFile))
  if (options.openTelemetry ?? isOpenTelemetryRegistered()) (await import('../otel/instrument-host.js')).instrumentHost(host)
  if (setup.config.env_file !== '') {
    const file = underRoot(setup.root, setup.config.env_file)
    parts.envFile = { file, set: loadEnvFile(file, options.env) }
  }
  // Live limits: config.yaml is watched beside the plugin folders (same switch), loaded only when on.
  if (setup.file !== undefined && (setup.config.plugins.watch || options.watch === true)) {
    const file = setup.file
    // A name misspelt in an edit disables what it configures as surely as one at start-up.
    const onApplied = (next: ToolhostConfig): void => warnUnmatchedNames(host, next, file)
    // Under a trust gate a hook changed in the file is new code: the hooks in force stay until trusted.
    const vet = trust.gated ? keepTrustedCode(resolved.config, trust.config, host.log) : undefined
    services.configWatcher = (await import('../loader/watch-config.js')).watchConfig(host, file, trust.config, { onApplied, ...(vet ? { vet } : {}) })
  }
  if (options.loadPlugins !== false) {
    // Compiled TypeScript is never cached inside the workspace (a root at HOME holds ~/.cache).
    tsCache.keepOutOf(setup.root)
    // The package's own plugins come from `plugins.builtins`, whatever the current folder; user
    // folders come on top.
    const builtins = builtinPluginFiles(setup.config.plugins.builtins)
    const dirs = [
      ...setup.config.plugins.dirs.map((d) => path.resolve(setup.baseDir, d)),
      ...(options.plugins ?? []).map((d) => path.resolve(options.cwd ?? process.cwd(), d)),
    ].filter((dir) => !duplicatesBuiltins(dir, builtins))
    parts.pluginReport = await loadPlugins(dirs, host.registry, { files: builtins, importTimeoutMs: setup.config.plugins.import_timeout_ms })
    for (const failure of parts.pluginReport.failed) host.log.error(`plugin ${failure.file} failed to load: ${failure.message}`)
    if (setup.config.plugins.watch || options.watch === true) {
      // Under a trust gate, a changed file of the workspace's folders loads only once trusted again.
      const mayLoad = trust.gated ? mayLoadWorkspaceFile(resolved, setup.config.plugins.dirs.map((d) => path.resolve(setup.baseDir, d)), options.workspaceTrust!) : undefined
      services.pluginWatcher = (await import('../loader/watch-plugins.js')).watchHostPlugins(host, dirs, mayLoad)
    }
  }
  // Loaded only when configured, so hosts without MCP servers never load the MCP client.
  if (Object.keys(setup.config.mcp_servers).length > 0) services.mcpClients = await (await import('../mcp-client/connect-servers.js')).connectMcpServers(host)
  // A misspelt tool name in config disables what it configures without a word: say so once the tools are in.
  warnUnmatchedNames(host, setup.config, setup.file ?? 'createHost({ config })')
  await joined
  // What the other hosts of a cluster store learned (Redis), for the tools this host knows nothing of yet.
  if (store.sharedEstimates) await store.sharedEstimates().then((estimates) => host.estimates.take(estimates), (error: unknown) => log.debug(`the shared duration estimates were not read: ${(error as Error).message}`))
  return host
}

// Warns of each tool name or glob in `config` that matches no registered tool (none registered yet:
// an embedding registers them later, and every name would be reported).
function warnUnmatchedNames(host: Host, config: ToolhostConfig, where: string): void {
  const tools = host.registry.list()
  if (tools.length === 0) return
  for (const unmatched of checkConfigNames(config, tools)) host.log.warn(`${where}: ${unmatched.message}`)
  for (const unmatched of checkPluginHookNames(host.registry.hooks.list(), tools, host.root)) host.log.warn(unmatched.message)
}

// Options are checked at start-up, like config.yaml: an unknown mode ran as some other, and an
// unknown audience broke every failed call's message.

// How far the OS's start time of a process may lie from the one its temp file names carry (the
// process's own clock at start; /proc's boot time has second resolution).
const START_SLACK_MS = 2_000

/** A temp file's writer still runs: its pid is alive and started no later than its name says (a reused pid started after it died). */
function isWriterAlive(writer: TempFileWriter): boolean {
  const started = processStartTime(writer.pid)
  return started !== undefined && started <= writer.startedAt + START_SLACK_MS
}

