/**
 * JSON Schema of config.yaml: the one place a config key is declared. Every section is closed (an
 * unknown key is an error, not a silent no-op). From it come the TypeScript types
 * (`npm run config-types` writes generated-types.ts), the defaults (each key's `default`,
 * defaults.ts), and the live keys (`x-live: true`, live-config.ts). A `title` names a type of its own;
 * a `description` becomes that key's JSDoc.
 */
import { BUILTIN_TOOLSETS } from './builtin-toolsets.js'
import { DEFAULT_DANGEROUS_PATTERNS } from './dangerous-patterns.js'
import { DISPATCH_MODES, PERMISSION_MODES } from './types.js'
import { STORE_PATTERN } from '../store/store-setting.js'

const positiveInt = (value: number) => ({ type: 'integer', minimum: 1, default: value }) as const
const nonNegativeInt = (value: number) => ({ type: 'integer', minimum: 0, default: value }) as const
const text = (value: string) => ({ type: 'string', default: value }) as const
const nonEmptyText = (value: string) => ({ type: 'string', minLength: 1, default: value }) as const
const flag = (value: boolean) => ({ type: 'boolean', default: value }) as const
// Tool names, or globs of them (`mcp_files_*`): the name alphabet plus picomatch's glob characters.
const toolName = { type: 'string', pattern: '^[A-Za-z0-9_.*?!,{}()\\[\\]-]{1,128}$' } as const
const toolNames = { type: 'array', items: toolName, default: [] } as const
const stringList = (value: readonly string[]) => ({ type: 'array', items: { type: 'string', minLength: 1 }, default: value }) as const
/** A live key: a running host takes a changed value from a reloaded config.yaml (live-config.ts). */
const live = { 'x-live': true } as const

const section = (properties: Record<string, unknown>, annotations: Record<string, unknown> = {}) =>
  ({ ...annotations, type: 'object', properties, additionalProperties: false }) as const

const hooks = {
  type: 'array',
  default: [],
  ...live,
  items: {
    ...section(
      {
        tools: { description: 'A tool name or glob (`write_*`), or a list of them.', anyOf: [toolName, { type: 'array', items: toolName, minItems: 1 }] },
        command: { type: 'string', minLength: 1 },
        timeout_ms: { type: 'integer', minimum: 1, description: 'How long the command may take (default 10000); past it the call is denied.' },
      },
      {
        title: 'HookConfig',
        description: 'One `hooks.before_call` / `hooks.after_call` entry: a command (operator config, run with the shell in the workspace root) for the calls of the tools named; the call comes as JSON on its stdin.',
      },
    ),
    required: ['tools', 'command'],
  },
} as const

export const CONFIG_SCHEMA = section(
  {
    workspace: section({ root: nonEmptyText('.'), deny: stringList(['.env', '.env.*', '!.env.example', '!.env.sample', '!.env.template', '.git/**', '.toolhost/**']) }),
    env_file: text('.env'),
    plugins: section(
      {
        dirs: stringList(['plugins']),
        builtins: { type: ['boolean', 'array'], items: { enum: Object.keys(BUILTIN_TOOLSETS) }, uniqueItems: true, default: true },
        watch: flag(false),
        import_timeout_ms: positiveInt(15_000),
      },
      { description: "`builtins`: the package's own tools — all (true), none (false), or the toolsets named." },
    ),
    availability: section({ check_timeout_ms: positiveInt(2000) }),
    dispatch: section({
      mode: { title: 'DispatchMode', description: '`dispatch.mode`: how a batch is scheduled (docs/scheduling.md): `graph`, `partition`, `batch` or `serial`.', enum: DISPATCH_MODES, default: 'graph' },
      max_workers: { type: 'integer', minimum: 1, maximum: 1024, default: 8, ...live },
      timeout_ms: { ...positiveInt(120_000), ...live },
      interrupt_grace_ms: { ...nonNegativeInt(2000), ...live },
      parallel_safe: toolNames,
      never_parallel: toolNames,
      path_scoped: toolNames,
      priority: { enum: ['critical-path', 'call-order'], default: 'critical-path', description: 'Which ready call gets a free worker: the longest estimated chain behind it, or the earliest.' },
      duration_estimates: { ...text('.toolhost/durations.json'), description: 'File keeping per-tool duration estimates between runs ("" keeps them in memory only).' },
    }),
    // Keys: a tool name, a toolset, or a glob over tool names (`mcp_github_*`).
    rate_limits: {
      type: 'object',
      default: {},
      ...live,
      description: 'Per tool name, toolset or glob: at most `calls` starts per `per_ms`, and/or `concurrency` at once.',
      propertyNames: { type: 'string', minLength: 1, maxLength: 128 },
      additionalProperties: {
        ...section({ calls: { type: 'integer', minimum: 1 }, per_ms: { type: 'integer', minimum: 1 }, concurrency: { type: 'integer', minimum: 1 } }, { title: 'RateLimitConfig', description: 'One `rate_limits` entry.' }),
        minProperties: 1,
        dependencies: { calls: ['per_ms'], per_ms: ['calls'] },
      },
    },
    limits: section({
      max_result_chars: { type: 'integer', minimum: 100, default: 100_000 },
      // 5 MiB: Anthropic's limit for one image, and well inside each API's request size.
      max_result_bytes: nonNegativeInt(5_242_880),
      max_read_chars: { type: 'integer', minimum: 100, default: 100_000 },
      max_argument_chars: { type: 'integer', minimum: 100, default: 1_000_000 },
      // Bounded so no walk over admitted arguments (ajv, JSON.stringify) can run out of stack.
      max_argument_depth: { type: 'integer', minimum: 1, maximum: 1000, default: 64 },
      results_dir: nonEmptyText('.toolhost/results'),
    }),
    read_file: section({ on_overflow: { enum: ['truncate', 'error'], default: 'truncate' } }),
    search_files: section({ max_results: positiveInt(200) }),
    web_search: section({ timeout_ms: { ...positiveInt(15_000), ...live }, max_results: positiveInt(8) }),
    processes: section({
      dir: nonEmptyText('.toolhost/processes'),
      checkpoint: nonEmptyText('.toolhost/processes.json'),
      buffer_chars: { type: 'integer', minimum: 1000, default: 200_000 },
      kill_grace_ms: nonNegativeInt(3000),
      max_running: positiveInt(16),
      retention_ms: nonNegativeInt(3_600_000),
      containment: {
        title: 'ProcessContainment',
        description: '`processes.containment`: a PID namespace through bwrap where it can run (`auto`), or never (`off`).',
        enum: ['auto', 'off'],
        default: 'auto',
      },
    }),
    terminal: section({
      timeout_ms: { ...positiveInt(180_000), ...live },
      dangerous_patterns: stringList(DEFAULT_DANGEROUS_PATTERNS),
      sandbox: {
        title: 'TerminalSandbox',
        description: 'Where `terminal` commands run: directly (`off`), in bubblewrap (`bwrap`), or in bubblewrap where it can run (`auto`).',
        enum: ['off', 'auto', 'bwrap'],
        default: 'off',
      },
      network: flag(false),
    }),
    permissions: section({
      mode: { title: 'PermissionMode', description: '`permissions.mode`: which calls run without asking, which ask and which are denied (docs/permissions.md): `ask`, `accept-edits`, `auto`, `plan` or `bypass`.', enum: PERMISSION_MODES, default: 'ask' },
      allow: stringList([]),
      ask: stringList([]),
      deny: stringList([]),
      audit_log: text('.toolhost/audit.jsonl'),
      check_timeout_ms: positiveInt(10_000),
      console_approvals: section({ enabled: flag(true), timeout_ms: positiveInt(120_000) }),
    }),
    hooks: section(
      { before_call: hooks, after_call: hooks },
      { ...live, description: 'Commands run before each call (may deny, ask or rewrite its arguments) and after (may withhold or rewrite its result).' },
    ),
    openai: section({ strict: flag(false) }),
    serve: section({
      host: nonEmptyText('127.0.0.1'),
      public_url: { ...text(''), description: 'The URL clients reach /mcp at (the OAuth resource, the Host and Origin accepted); "" on loopback.' },
      console: { enum: ['loopback', 'always', 'off'], default: 'loopback' },
      max_message_bytes: { type: 'integer', minimum: 1024, default: 16 * 1024 * 1024 },
      max_sessions: positiveInt(1000),
      max_requests: { ...positiveInt(1000), description: 'The most 2026-07-28 requests in flight at once (each holds a server instance; `subscriptions/listen` streams count).' },
      drain_ms: { ...nonNegativeInt(10_000), description: 'On SIGTERM, how long `serve --http` waits for the tool calls in flight before it interrupts them (0: at once).' },
      // Bearer tokens for /mcp; checked in full (URLs, env vars set) when `serve --http` starts.
      auth: section(
        {
          authorization_servers: { ...stringList([]), description: "Issuers of accepted tokens, named in the protected resource metadata; a JWT's `iss` must be one." },
          jwks_url: { ...text(''), description: 'JWT access tokens verified against this JWKS ("" = not used).' },
          introspection_url: { ...text(''), description: 'RFC 7662 token introspection endpoint ("" = not used), called with `client_id` and its secret.' },
          client_id: text(''),
          client_secret_env: text(''),
          static_token_env: { ...text(''), description: 'An environment variable holding one shared token (simple set-ups; "" = not used).' },
          scopes: { type: 'array', items: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }, default: [], description: 'Scopes every request to /mcp needs (403 insufficient_scope without them).' },
          cache_ms: { ...nonNegativeInt(60_000), description: "How long an introspection answer is reused (never past the token's `exp`)." },
        },
        { description: 'How /mcp verifies bearer tokens (MCP authorization: an OAuth 2.1 resource server). Secrets are never here: `*_env` keys name the environment variables holding them.' },
      ),
    }),
    mcp_servers: {
      type: 'object',
      default: {},
      propertyNames: { pattern: '^[A-Za-z0-9_-]{1,32}$' },
      additionalProperties: section(
        {
          command: { type: 'string', minLength: 1 },
          args: { type: 'array', items: { type: 'string' } },
          env: { type: 'object', additionalProperties: { type: 'string' } },
          url: { type: 'string', minLength: 1 },
          parallel_safe: { type: 'boolean' },
          protocol: {
            enum: ['auto', 'legacy', '2026-07-28'],
            default: 'auto',
            description: 'Which MCP revision to speak: `auto` (probe with server/discover, else 2025), `legacy` (2025 only), or `2026-07-28` only.',
          },
        },
        { title: 'McpServerConfig', description: 'One `mcp_servers` entry: a stdio server (`command`) or a Streamable HTTP one (`url`), whose tools join the registry as `mcp_<name>_<tool>`.' },
      ),
    },
    store: {
      type: 'string',
      pattern: STORE_PATTERN,
      default: 'local',
      description: 'Where hosts sharing this workspace coordinate: `local` (its `.toolhost/store/`), `memory` (this process only), or a `redis://` URL.',
    },
  },
  { title: 'ToolhostConfig', description: 'The shape of config.yaml after defaults are merged (docs/config.md has every key).' },
)
