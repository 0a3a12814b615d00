import { parseArgs } from 'node:util'
import { ToolhostError } from '../errors.js'

export const USAGE = `toolhost — a host for LLM-agent tools written as plugins

usage:
  toolhost list [--json]                             tools, availability and why a tool is hidden
  toolhost doctor                                    config, env, plugins that failed to load, and why
  toolhost call NAME [JSON] [--json]                 one call
  toolhost run FILE|- [--mode M] [--json] [--trace] [--trace-file F]
                                                     a batch (OpenAI tool_calls or Anthropic tool_use blocks)
  toolhost explain FILE|- [--mode M] [--json]        the plan: footprints, who waits for whom and why; runs nothing
  toolhost serve [--http PORT] [--watch]             MCP server over stdio (default) or Streamable HTTP
  toolhost new-plugin NAME                           write plugins/NAME.ts and its test from a template
  toolhost demo                                      what npm start runs: the built-in tools on a sample batch

global options:
  --config FILE             config file (default ./config.yaml)
  --root DIR                workspace root (default: workspace.root, else the current folder)
  --plugins DIR             an extra plugin folder (repeatable)
  --permission-mode MODE    ask | accept-edits | auto | plan | bypass
  --yes                     approve every call that would ask (non-interactive use)
  --trace-file FILE         write the calls as a Chrome trace (open it in Perfetto or chrome://tracing)
  -h, --help                this text

exit codes: 0 all calls ok, 1 some call failed, 2 usage or configuration error`

export interface CliArgs {
  command: string | undefined
  positionals: string[]
  config: string | undefined
  root: string | undefined
  plugins: string[]
  json: boolean
  trace: boolean
  traceFile: string | undefined
  mode: string | undefined
  permissionMode: string | undefined
  yes: boolean
  http: string | undefined
  watch: boolean
  help: boolean
}

/** Parses argv (without node and the script); unknown options are a usage error. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string' },
        root: { type: 'string' },
        plugins: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        trace: { type: 'boolean' },
        'trace-file': { type: 'string' },
        mode: { type: 'string' },
        'permission-mode': { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        http: { type: 'string' },
        watch: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    throw new ToolhostError('E_USAGE', `${(error as Error).message}\n\n${USAGE}`)
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  const mode = values.mode
  if (mode !== undefined && !['graph', 'partition', 'batch', 'serial'].includes(mode)) {
    throw new ToolhostError('E_USAGE', `--mode must be one of graph, partition, batch, serial; got ${JSON.stringify(mode)}`)
  }
  const permissionMode = values['permission-mode']
  if (permissionMode !== undefined && !['ask', 'accept-edits', 'auto', 'plan', 'bypass'].includes(permissionMode)) {
    throw new ToolhostError('E_USAGE', `--permission-mode must be one of ask, accept-edits, auto, plan, bypass; got ${JSON.stringify(permissionMode)}`)
  }
  return {
    command,
    positionals: rest,
    config: values.config,
    root: values.root,
    plugins: values.plugins ?? [],
    json: values.json ?? false,
    trace: values.trace ?? false,
    traceFile: values['trace-file'],
    mode,
    permissionMode,
    yes: values.yes ?? false,
    http: values.http,
    watch: values.watch ?? false,
    help: values.help ?? false,
  }
}
