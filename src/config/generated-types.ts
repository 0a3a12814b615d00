// Generated from src/config/schema.ts by `npm run config-types`: do not edit. To add a config key,
// add it to the schema (with its `default`), run `npm run config-types`, and give it a row in docs/config.md.

/** The shape of config.yaml after defaults are merged (docs/config.md has every key). */
export interface ToolhostConfig {
  workspace: {
    root: string
    deny: string[]
  }
  env_file: string
  /** `builtins`: the package's own tools — all (true), none (false), or the toolsets named. */
  plugins: {
    dirs: string[]
    builtins: boolean | Array<'basics' | 'files' | 'interaction' | 'notify' | 'terminal' | 'web'>
    watch: boolean
    import_timeout_ms: number
  }
  availability: {
    check_timeout_ms: number
  }
  dispatch: {
    mode: DispatchMode
    max_workers: number
    timeout_ms: number
    interrupt_grace_ms: number
    parallel_safe: string[]
    never_parallel: string[]
    path_scoped: string[]
    /** Which ready call gets a free worker: the longest estimated chain behind it, or the earliest. */
    priority: 'critical-path' | 'call-order'
    /** File keeping per-tool duration estimates between runs ("" keeps them in memory only). */
    duration_estimates: string
  }
  /** Per tool name, toolset or glob: at most `calls` starts per `per_ms`, and/or `concurrency` at once. */
  rate_limits: Record<string, RateLimitConfig>
  limits: {
    max_result_chars: number
    max_result_bytes: number
    max_read_chars: number
    max_argument_chars: number
    max_argument_depth: number
    results_dir: string
  }
  read_file: {
    on_overflow: 'truncate' | 'error'
  }
  search_files: {
    max_results: number
  }
  web_search: {
    timeout_ms: number
    max_results: number
  }
  processes: {
    dir: string
    checkpoint: string
    buffer_chars: number
    kill_grace_ms: number
    max_running: number
    retention_ms: number
    containment: ProcessContainment
  }
  terminal: {
    timeout_ms: number
    dangerous_patterns: string[]
    sandbox: TerminalSandbox
    network: boolean
  }
  permissions: {
    mode: PermissionMode
    allow: string[]
    ask: string[]
    deny: string[]
    audit_log: string
    check_timeout_ms: number
    console_approvals: {
      enabled: boolean
      timeout_ms: number
    }
  }
  /** Commands run before each call (may deny, ask or rewrite its arguments) and after (may withhold or rewrite its result). */
  hooks: {
    before_call: HookConfig[]
    after_call: HookConfig[]
  }
  openai: {
    strict: boolean
  }
  serve: {
    host: string
    /** The URL clients reach /mcp at (the OAuth resource, the Host and Origin accepted); "" on loopback. */
    public_url: string
    console: 'loopback' | 'always' | 'off'
    max_message_bytes: number
    max_sessions: number
    /** The most 2026-07-28 requests in flight at once (each holds a server instance; `subscriptions/listen` streams count). */
    max_requests: number
    /** On SIGTERM, how long `serve --http` waits for the tool calls in flight before it interrupts them (0: at once). */
    drain_ms: number
    /** How /mcp verifies bearer tokens (MCP authorization: an OAuth 2.1 resource server). Secrets are never here: `*_env` keys name the environment variables holding them. */
    auth: {
      /** Issuers of accepted tokens, named in the protected resource metadata; a JWT's `iss` must be one. */
      authorization_servers: string[]
      /** JWT access tokens verified against this JWKS ("" = not used). */
      jwks_url: string
      /** RFC 7662 token introspection endpoint ("" = not used), called with `client_id` and its secret. */
      introspection_url: string
      client_id: string
      client_secret_env: string
      /** An environment variable holding one shared token (simple set-ups; "" = not used). */
      static_token_env: string
      /** Scopes every request to /mcp needs (403 insufficient_scope without them). */
      scopes: string[]
      /** How long an introspection answer is reused (never past the token's `exp`). */
      cache_ms: number
    }
  }
  mcp_servers: Record<string, McpServerConfig>
  /** Where hosts sharing this workspace coordinate: `local` (its `.toolhost/store/`), `memory` (this process only), or a `redis://` URL. */
  store: string
}

/** One `mcp_servers` entry: a stdio server (`command`) or a Streamable HTTP one (`url`), whose tools join the registry as `mcp_<name>_<tool>`. */
export interface McpServerConfig {
  command?: string
  args?: string[]
  env?: Record<string, string>
  url?: string
  parallel_safe?: boolean
  /** Which MCP revision to speak: `auto` (probe with server/discover, else 2025), `legacy` (2025 only), or `2026-07-28` only. */
  protocol?: 'auto' | 'legacy' | '2026-07-28'
}

/** One `hooks.before_call` / `hooks.after_call` entry: a command (operator config, run with the shell in the workspace root) for the calls of the tools named; the call comes as JSON on its stdin. */
export interface HookConfig {
  /** A tool name or glob (`write_*`), or a list of them. */
  tools: string | string[]
  command: string
  /** How long the command may take (default 10000); past it the call is denied. */
  timeout_ms?: number
}

/** `permissions.mode`: which calls run without asking, which ask and which are denied (docs/permissions.md): `ask`, `accept-edits`, `auto`, `plan` or `bypass`. */
export type PermissionMode = 'ask' | 'accept-edits' | 'auto' | 'plan' | 'bypass'

/** Where `terminal` commands run: directly (`off`), in bubblewrap (`bwrap`), or in bubblewrap where it can run (`auto`). */
export type TerminalSandbox = 'off' | 'auto' | 'bwrap'

/** `processes.containment`: a PID namespace through bwrap where it can run (`auto`), or never (`off`). */
export type ProcessContainment = 'auto' | 'off'

/** One `rate_limits` entry. */
export interface RateLimitConfig {
  calls?: number
  per_ms?: number
  concurrency?: number
}

/** `dispatch.mode`: how a batch is scheduled (docs/scheduling.md): `graph`, `partition`, `batch` or `serial`. */
export type DispatchMode = 'graph' | 'partition' | 'batch' | 'serial'

/** A key a running host takes from a reloaded config.yaml (`x-live` in the schema). */
export type LiveKey = 'dispatch.max_workers' | 'dispatch.timeout_ms' | 'dispatch.interrupt_grace_ms' | 'rate_limits' | 'web_search.timeout_ms' | 'terminal.timeout_ms' | 'hooks'
