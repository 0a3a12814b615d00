import { parseArgs } from 'node:util'
import { DISPATCH_MODES, PERMISSION_MODES } from '../config/types.js'
import { suggestNames } from '../dispatch/admit/suggest.js'
import { ToolhostError } from '../contract/errors.js'

// The commands that run calls, so the only ones with something for --trace-file to record.
const TRACED_COMMANDS: readonly string[] = ['run', 'call', 'serve', 'demo']

/** Each command: its synopsis, one line on what it does, and what `toolhost help CMD` adds. */
export const COMMANDS: Readonly<Record<string, { synopsis: string; summary: string; more: string }>> = {
  list: {
    synopsis: 'toolhost list [--json]',
    summary: 'tools, prompts, resources, availability and why one is hidden',
    more: '--json prints {"tools": [{name, toolset, description, available, reason?}]}, "prompts": [{name, description, arguments, available, reason?}] and "resources": [{uri or uriTemplate, name, description, mimeType, available, reason?}] when plugins registered some, and "duplicates": [{name, kept, lost, why}] when two files registered one name. A plugin that failed to load is reported on stderr.',
  },
  doctor: {
    synopsis: 'toolhost doctor',
    summary: 'config, env, plugins that failed to load, and why',
    more: 'One fact a line: the config file, the workspace root, the .env file and the variables it set (names only), the permission mode, the coordination store and whether it answers, each plugin file and what it registered (tools, prompts, resources, hooks), the hidden tools and why (with a set variable close to a missing one), each tool name in config that matches no registered tool, with a did-you-mean, and each tool name two files registered (which kept it, which lost, why). Exits 1 when a plugin failed to load, a tool name is registered twice or an MCP server is down.',
  },
  call: {
    synopsis: "toolhost call NAME [JSON] [--json]",
    summary: 'one call',
    more: `JSON is the raw argument text, as a model would send it (omitted means {}); quote it: toolhost call echo '{"text":"hi"}'. Prints the result's content, or "error CODE: MESSAGE" on stderr and exits 1; --json prints the whole result.`,
  },
  prompt: {
    synopsis: 'toolhost prompt NAME [--arg K=V]… [--json]',
    summary: "a plugin's prompt rendered: its messages",
    more: 'Renders the prompt as an MCP client would get it (prompts/get): each message as ROLE: TEXT. --arg KEY=VALUE gives an argument (repeatable), checked against the prompt\'s schema; --json prints {description?, messages}. An unknown or hidden prompt, a bad argument or a handler that throws prints "error CODE: MESSAGE" on stderr and exits 1.',
  },
  resource: {
    synopsis: 'toolhost resource URI [--json]',
    summary: "a plugin's resource read: its text",
    more: 'Reads the resource at URI as an MCP client would (resources/read): a fixed URI, or one a resource template matches. Prints its text (a binary part is named with its type and size); --json prints {contents} with binary parts in base64. An unknown or hidden resource, or a read that throws, prints "error CODE: MESSAGE" on stderr and exits 1.',
  },
  run: {
    synopsis: 'toolhost run FILE|- [--mode M] [--json] [--trace] [--trace-file F]',
    summary: 'a batch (OpenAI tool_calls or Anthropic tool_use blocks)',
    more: 'FILE (or - for standard input) holds the calls in any model format. Results come back in call order; --json prints {"mode", "results"}; --trace adds a timeline of what ran when and what waited for what (with --json: queuedAt, startedAt, endedAt, waitedFor, and waitedForHost, waitedForWorker, waitedForRate when a call waited for a call of another host or for the pool); --trace-file F writes the calls as a Chrome trace; --mode graph|partition|batch|serial picks the scheduling. Exits 1 when a call failed.',
  },
  explain: {
    synopsis: 'toolhost explain FILE|- [--mode M] [--json]',
    summary: 'the plan: footprints, who waits for whom and why; runs nothing',
    more: 'For each call: what it touches and where that came from, what the permission system would decide, which earlier calls it would wait for and why, and whether it would wait for a worker or a rate slot. Nothing runs and no one is asked; --json prints the plan as {"mode", "calls"}.',
  },
  serve: {
    synopsis: 'toolhost serve [--http PORT] [--watch]',
    summary: 'MCP server over stdio (default) or Streamable HTTP',
    more: 'Over stdio, stdout carries only MCP messages. --http PORT serves Streamable HTTP at /mcp on serve.host (127.0.0.1; port 0 picks a free one), and the console at / (serve.console). Speaks MCP 2025 (sessions) and 2026-07-28 (stateless). Calls that would ask are asked of the calling client (elicitation; input_required for 2026-07-28), or in an open console; --yes approves them all. --watch reloads plugin files when they change and takes live limits from a changed config.yaml.',
  },
  trust: {
    synopsis: 'toolhost trust [--revoke]',
    summary: "let this folder's own plugins, hooks and MCP servers run",
    more: "Until a folder is trusted, toolhost runs only the built-in tools and the --plugins folders there: the plugin folders of its config.yaml (or ./plugins), its hooks commands and its mcp_servers are left out, its permissions.allow rules and a looser permissions.mode are not applied, and one line says so. Trust is kept per user, outside the folder (TOOLHOST_TRUST_FILE, else ~/.config/toolhost/trust.json), under the folder's real path and a digest of that code: a changed plugin file, hook or server needs toolhost trust again. --revoke forgets the folder. init trusts the folder it sets up.",
  },
  init: {
    synopsis: 'toolhost init',
    summary: 'start a project here: config.yaml, an example plugin and its test',
    more: "Writes a commented config.yaml (every key at its default, with what it does), plugins/hello.ts (or .mjs in a project without TypeScript) with its test for your project's runner (as new-plugin writes them), adds .toolhost/ (the host's own state) to .gitignore, and trusts the folder (toolhost trust) to run what it wrote. Never overwrites: a file that exists is left as it is and named as skipped.",
  },
  'new-plugin': {
    synopsis: 'toolhost new-plugin NAME',
    summary: 'write a plugin and its test into the current project',
    more: "Writes plugins/NAME.ts (or .mjs in a project without TypeScript) importing 'toolhost', and a test for your project's runner: vitest when the project uses it, else node --test. Never overwrites a file.",
  },
  demo: {
    synopsis: 'toolhost demo',
    summary: 'the built-in tools, then a sample batch on a scratch copy (what npm start runs)',
    more: 'Runs the sample batch on a fresh temporary copy of examples/workspace: nothing in the current folder is read or changed.',
  },
  help: {
    synopsis: 'toolhost help [COMMAND]',
    summary: 'this text, or one command in more detail',
    more: 'Also: toolhost COMMAND --help.',
  },
}

const GLOBAL_OPTIONS = `global options:
  --config FILE             config file (default ./config.yaml; none means the defaults)
  --root DIR                workspace root (default: workspace.root, else the current folder)
  --plugins DIR             an extra plugin folder (repeatable)
  --permission-mode MODE    ask | accept-edits | auto | plan | bypass
  -y, --yes                 approve every call that would ask (non-interactive use)
  --trace-file FILE         write the calls as a Chrome trace (open it in Perfetto or chrome://tracing)
  -h, --help                help; toolhost help COMMAND for one command
  -v, --version             the version`

export const USAGE = `toolhost — a host for LLM-agent tools written as plugins

usage:
${Object.values(COMMANDS)
  .map((c) => `  ${c.synopsis.length < 51 ? c.synopsis.padEnd(51) : `${c.synopsis}\n${' '.repeat(53)}`}${c.summary}`)
  .join('\n')}

${GLOBAL_OPTIONS}

exit codes: 0 all calls ok, 1 some call failed, 2 usage or configuration error
manual: the docs/ folder of the toolhost package (docs/cli.md: every command)`

/** The help of one command (`toolhost help CMD`, `toolhost CMD --help`). */
export function commandHelp(command: string): string {
  const c = COMMANDS[command]
  if (!c) throw unknownCommand(command)
  return `${c.synopsis}\n\n${c.summary[0]!.toUpperCase()}${c.summary.slice(1)}. ${c.more}\n\n${GLOBAL_OPTIONS}`
}

export interface CliArgs {
  command: string | undefined
  positionals: string[]
  config: string | undefined
  root: string | undefined
  plugins: string[]
  /** `--arg KEY=VALUE` of `toolhost prompt`, as given. */
  args: string[]
  json: boolean
  trace: boolean
  traceFile: string | undefined
  mode: string | undefined
  permissionMode: string | undefined
  yes: boolean
  http: string | undefined
  watch: boolean
  revoke: boolean
  help: boolean
  version: boolean
}

/** Parses argv (without node and the script); an unknown option or command is a usage error. */
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
        arg: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        trace: { type: 'boolean' },
        'trace-file': { type: 'string' },
        mode: { type: 'string' },
        'permission-mode': { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        http: { type: 'string' },
        watch: { type: 'boolean' },
        revoke: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    })
  } catch (error) {
    throw usageError(error as Error & { code?: string }, argv)
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  if (command !== undefined && !Object.hasOwn(COMMANDS, command)) throw unknownCommand(command)
  if (command !== undefined && values.help !== true) checkArgumentCount(command, rest)
  // Only commands that run calls have anything to trace: elsewhere the file would be written empty.
  if (values['trace-file'] !== undefined && command !== undefined && !TRACED_COMMANDS.includes(command)) {
    throw new ToolhostError('E_USAGE', `--trace-file records the calls that run; use it with ${TRACED_COMMANDS.join(', ')} (not ${command})`)
  }
  if (values.arg !== undefined && command !== undefined && command !== 'prompt') throw new ToolhostError('E_USAGE', `--arg gives a prompt's argument (toolhost prompt NAME --arg KEY=VALUE), not ${command}'s`)
  if (values.revoke === true && command !== undefined && command !== 'trust') throw new ToolhostError('E_USAGE', `--revoke goes with trust (toolhost trust --revoke), not ${command}`)
  const mode = values.mode
  if (mode !== undefined && !(DISPATCH_MODES as readonly string[]).includes(mode)) {
    throw new ToolhostError('E_USAGE', `--mode must be one of ${DISPATCH_MODES.join(', ')}; got ${JSON.stringify(mode)}`)
  }
  const permissionMode = values['permission-mode']
  if (permissionMode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(permissionMode)) {
    throw new ToolhostError('E_USAGE', `--permission-mode must be one of ${PERMISSION_MODES.join(', ')}; got ${JSON.stringify(permissionMode)}`)
  }
  return {
    command,
    positionals: rest,
    config: values.config,
    root: values.root,
    plugins: values.plugins ?? [],
    args: values.arg ?? [],
    json: values.json ?? false,
    trace: values.trace ?? false,
    traceFile: values['trace-file'],
    mode,
    permissionMode,
    yes: values.yes ?? false,
    http: values.http,
    watch: values.watch ?? false,
    revoke: values.revoke ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
  }
}

/** What each option that takes a value wants, as the usage text names it. */
const OPTION_VALUES: Record<string, string> = {
  config: 'FILE', root: 'DIR', plugins: 'DIR', arg: 'KEY=VALUE', 'trace-file': 'FILE', mode: 'graph|partition|batch|serial',
  'permission-mode': 'ask|accept-edits|auto|plan|bypass', http: 'PORT (0 picks a free one)',
}

// One line, and where to look: node's own message for an unknown option is three sentences.
function usageError(error: Error & { code?: string }, argv: readonly string[]): ToolhostError {
  const command = argv.find((a) => Object.hasOwn(COMMANDS, a))
  const pointer = `see toolhost ${command ? `${command} ` : ''}--help`
  const unknown = /^Unknown option '([^']+)'/.exec(error.message)
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) return new ToolhostError('E_USAGE', `unknown option ${unknown[1]}; ${pointer}`)
  // Node says "Option '--root <value>' argument missing": name the value the option wants instead.
  const missing = /^Option '(?:-\w, )?--([\w-]+)(?: <value>)?' argument (?:missing|is ambiguous)/.exec(error.message)
  if (missing) return new ToolhostError('E_USAGE', `--${missing[1]} needs a value: --${missing[1]} ${OPTION_VALUES[missing[1]!] ?? 'VALUE'}; ${pointer}`)
  const flag = /^Option '(?:-\w, )?--([\w-]+)' does not take an argument/.exec(error.message)
  if (flag) return new ToolhostError('E_USAGE', `--${flag[1]} takes no value: write --${flag[1]} alone; ${pointer}`)
  return new ToolhostError('E_USAGE', `${error.message.split('. ')[0]!.replace(/\.$/, '')}; ${pointer}`)
}

// How many words each command takes after its name; `call` words its own error (quote the JSON).
const ARGUMENTS: Readonly<Record<string, { max: number; names: string }>> = {
  list: { max: 0, names: '' }, doctor: { max: 0, names: '' }, serve: { max: 0, names: '' }, trust: { max: 0, names: '' }, demo: { max: 0, names: '' }, init: { max: 0, names: '' },
  prompt: { max: 1, names: 'NAME' }, resource: { max: 1, names: 'URI' }, run: { max: 1, names: 'FILE|-' }, explain: { max: 1, names: 'FILE|-' }, 'new-plugin': { max: 1, names: 'NAME' }, help: { max: 1, names: 'COMMAND' },
}

// An extra word was silently ignored (`new-plugin a b` wrote plugins/a.ts); say so instead.
function checkArgumentCount(command: string, rest: readonly string[]): void {
  const rule = ARGUMENTS[command]
  if (!rule || rest.length <= rule.max) return
  const extra = rest.slice(rule.max).map((word) => JSON.stringify(word)).join(' ')
  const takes = rule.max === 0 ? 'takes no arguments' : `takes one argument (${rule.names})`
  throw new ToolhostError('E_USAGE', `${command} ${takes}; unexpected ${extra}; see toolhost ${command} --help`)
}

function unknownCommand(command: string): ToolhostError {
  const close = suggestNames(command, Object.keys(COMMANDS))
  return new ToolhostError('E_USAGE', `unknown command "${command}"${close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : ''}; see toolhost --help`)
}
