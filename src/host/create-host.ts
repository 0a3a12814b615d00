import path from 'node:path'
import { logSchedulingEvents } from '../observe/log-events.js'
import { loadEnvFile } from '../config/env-file.js'
import { DISPATCH_MODES, PERMISSION_MODES } from '../config/types.js'
import { checkChoice, resolveSetup } from './setup.js'
import { underRoot } from '../workspace/paths.js'
import type { HostOptions } from './host-types.js'
import { Host } from './host.js'
import { builtinPluginFiles, duplicatesBuiltins } from '../loader/builtin-plugins.js'
import { loadPlugins } from '../loader/load-plugins.js'
import { AUDIENCES } from '../contract/messages.js'
import { isOpenTelemetryRegistered } from '../otel/detect.js'
import { attachProcessRegistry } from '../processes/attach-processes.js'
import { startTempSweep } from '../workspace/sweep-temp-files.js'

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
  const setup = resolveSetup(options, options.env)
  const host = new Host(setup, options)
  await attachProcessRegistry(host)
  startTempSweep(host) // temp files of killed writes, in the background
  // Events cost nothing while nobody listens, so they are logged only when asked for.
  if (options.logEvents ?? (options.env ?? process.env).TOOLHOST_LOG?.trim().toLowerCase() === 'debug') logSchedulingEvents(host, host.log)
  // Observers are loaded only when asked for (or, for OpenTelemetry, when an SDK is registered).
  if (options.traceFile !== undefined) (await import('../observe/trace-file.js')).recordTraceFile(host, path.resolve(options.cwd ?? process.cwd(), options.traceFile))
  if (options.openTelemetry ?? isOpenTelemetryRegistered()) (await import('../otel/instrument-host.js')).instrumentHost(host)
  if (setup.config.env_file !== '') {
    const file = underRoot(setup.root, setup.config.env_file)
    host.envFile = { file, set: loadEnvFile(file, options.env) }
  }
  // Live limits: config.yaml is watched beside the plugin folders (same switch), loaded only when on.
  if (setup.file !== undefined && (setup.config.plugins.watch || options.watch === true)) (await import('../loader/watch-config.js')).watchConfig(host, setup.file, setup.config)
  if (options.loadPlugins !== false) {
    // The package's own plugins come from `plugins.builtins`, whatever the current folder; user
    // folders come on top.
    const builtins = builtinPluginFiles(setup.config.plugins.builtins)
    const dirs = [
      ...setup.config.plugins.dirs.map((d) => path.resolve(setup.baseDir, d)),
      ...(options.plugins ?? []).map((d) => path.resolve(options.cwd ?? process.cwd(), d)),
    ].filter((dir) => !duplicatesBuiltins(dir, builtins))
    host.pluginReport = await loadPlugins(dirs, host.registry, { files: builtins, importTimeoutMs: setup.config.plugins.import_timeout_ms })
    for (const failure of host.pluginReport.failed) host.log.error(`plugin ${failure.file} failed to load: ${failure.message}`)
    if (setup.config.plugins.watch || options.watch === true) (await import('../loader/watch-plugins.js')).watchHostPlugins(host, dirs)
  }
  // Loaded only when configured, so hosts without MCP servers never load the MCP client.
  if (Object.keys(setup.config.mcp_servers).length > 0) await (await import('../mcp/client.js')).connectMcpServers(host)
  return host
}

// Options are checked at start-up, like config.yaml: an unknown mode ran as some other, and an
// unknown audience broke every failed call's message.

