/** JSON Schema of config.yaml. Every section is closed: an unknown key is an error, not a silent no-op. */
import { BUILTIN_TOOLSETS } from './builtin-toolsets.js'
import { DISPATCH_MODES, PERMISSION_MODES } from './types.js'
import { STORE_PATTERN } from '../store/store-setting.js'

const positiveInt = { type: 'integer', minimum: 1 } as const
const nonNegativeInt = { type: 'integer', minimum: 0 } as const
const nonEmptyString = { type: 'string', minLength: 1 } as const
// Tool names, or globs of them (`mcp_files_*`): the name alphabet plus picomatch's glob characters.
const toolNames = { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9_.*?!,{}()\\[\\]-]{1,128}$' } } as const
const stringList = { type: 'array', items: nonEmptyString } as const

const section = (properties: Record<string, unknown>) =>
  ({ type: 'object', properties, additionalProperties: false }) as const

// A hook: the tools it is for (a name or glob, or a list), its command, and its time limit.
const toolName = toolNames.items
const hooks = {
  type: 'array',
  items: { ...section({ tools: { anyOf: [toolName, { ...toolNames, minItems: 1 }] }, command: nonEmptyString, timeout_ms: positiveInt }), required: ['tools', 'command'] },
} as const

export const CONFIG_SCHEMA = section({
  workspace: section({ root: nonEmptyString, deny: stringList }),
  env_file: { type: 'string' },
  plugins: section({
    dirs: stringList,
    builtins: { type: ['boolean', 'array'], items: { enum: Object.keys(BUILTIN_TOOLSETS) }, uniqueItems: true },
    watch: { type: 'boolean' },
    import_timeout_ms: positiveInt,
  }),
  availability: section({ check_timeout_ms: positiveInt }),
  dispatch: section({
    mode: { enum: DISPATCH_MODES },
    max_workers: { type: 'integer', minimum: 1, maximum: 1024 },
    timeout_ms: positiveInt,
    interrupt_grace_ms: nonNegativeInt,
    parallel_safe: toolNames,
    never_parallel: toolNames,
    path_scoped: toolNames,
    priority: { enum: ['critical-path', 'call-order'] },
    duration_estimates: { type: 'string' },
  }),
  // Keys: a tool name, a toolset, or a glob over tool names (`mcp_github_*`).
  rate_limits: {
    type: 'object',
    propertyNames: { type: 'string', minLength: 1, maxLength: 128 },
    additionalProperties: {
      ...section({ calls: positiveInt, per_ms: positiveInt, concurrency: positiveInt }),
      minProperties: 1,
      dependencies: { calls: ['per_ms'], per_ms: ['calls'] },
    },
  },
  limits: section({
    max_result_chars: { type: 'integer', minimum: 100 },
    max_result_bytes: { type: 'integer', minimum: 0 },
    max_read_chars: { type: 'integer', minimum: 100 },
    max_argument_chars: { type: 'integer', minimum: 100 },
    // Bounded so no walk over admitted arguments (ajv, JSON.stringify) can run out of stack.
    max_argument_depth: { type: 'integer', minimum: 1, maximum: 1000 },
    results_dir: nonEmptyString,
  }),
  read_file: section({ on_overflow: { enum: ['truncate', 'error'] } }),
  search_files: section({ max_results: positiveInt }),
  web_search: section({ timeout_ms: positiveInt, max_results: positiveInt }),
  processes: section({
    dir: nonEmptyString,
    checkpoint: nonEmptyString,
    buffer_chars: { type: 'integer', minimum: 1000 },
    kill_grace_ms: nonNegativeInt,
    max_running: positiveInt,
    retention_ms: nonNegativeInt,
    containment: { enum: ['auto', 'off'] },
  }),
  terminal: section({ timeout_ms: positiveInt, dangerous_patterns: stringList, sandbox: { enum: ['off', 'auto', 'bwrap'] }, network: { type: 'boolean' } }),
  permissions: section({
    mode: { enum: PERMISSION_MODES },
    allow: stringList,
    ask: stringList,
    deny: stringList,
    audit_log: { type: 'string' },
    check_timeout_ms: positiveInt,
    console_approvals: section({ enabled: { type: 'boolean' }, timeout_ms: positiveInt }),
  }),
  hooks: section({ before_call: hooks, after_call: hooks }),
  openai: section({ strict: { type: 'boolean' } }),
  serve: section({
    host: nonEmptyString,
    public_url: { type: 'string' },
    console: { enum: ['loopback', 'always', 'off'] },
    max_message_bytes: { type: 'integer', minimum: 1024 },
    max_sessions: positiveInt,
    max_requests: positiveInt,
    drain_ms: { type: 'integer', minimum: 0 },
    // Bearer tokens for /mcp; checked in full (URLs, env vars set) when `serve --http` starts.
    auth: section({
      authorization_servers: stringList,
      jwks_url: { type: 'string' },
      introspection_url: { type: 'string' },
      client_id: { type: 'string' },
      client_secret_env: { type: 'string' },
      static_token_env: { type: 'string' },
      scopes: { type: 'array', items: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' } },
      cache_ms: nonNegativeInt,
    }),
  }),
  mcp_servers: {
    type: 'object',
    propertyNames: { pattern: '^[A-Za-z0-9_-]{1,32}$' },
    additionalProperties: section({
      command: nonEmptyString,
      args: { type: 'array', items: { type: 'string' } },
      env: { type: 'object', additionalProperties: { type: 'string' } },
      url: nonEmptyString,
      parallel_safe: { type: 'boolean' },
      protocol: { enum: ['auto', 'legacy', '2026-07-28'] },
    }),
  },
  store: { type: 'string', pattern: STORE_PATTERN },
})
