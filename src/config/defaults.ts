import type { ToolhostConfig } from './types.js'

/**
 * Commands `terminal` treats as destructive (asked for even in `auto` permission mode). Each is
 * matched against the command line as written and against every command it runs as the shell parse
 * resolves it (`'rm' -rf`, `/bin/rm -rf`, `env rm -rf`, `sh -c "rm -rf …"` all become `rm -rf …`).
 */
export const DEFAULT_DANGEROUS_PATTERNS = [
  // rm with a recursive or forcing option anywhere (GNU rm takes options after operands too), or with
  // an argument known only at run time (`rm $FLAGS dir`).
  String.raw`\brm\s+(\S+\s+)*?(-[a-zA-Z]*[rRfd][a-zA-Z]*|--recursive|--force|--dir|\S*\$\S*)(\s|$)`,
  String.raw`\bfind\b.*\s-delete\b`,
  String.raw`\brsync\b.*\s--(delete|remove-source-files)`,
  String.raw`\bshred\b`,
  String.raw`\bgit\s+push\b.*(\s--force\b|\s-f\b|\s--force-with-lease\b)`,
  String.raw`\bgit\s+(reset\s+--hard|clean\s+-[a-zA-Z]*f)`,
  String.raw`\bmkfs(\.\w+)?\b`,
  String.raw`\bdd\b.*\bof=/dev/`,
  String.raw`>\s*/dev/(sd|nvme|hd|vd)`,
  String.raw`\b(shutdown|reboot|halt|poweroff)\b`,
  String.raw`\bchmod\s+(-R\s+)?0?777\b`,
  String.raw`:\(\)\s*\{\s*:\|:&\s*\};:`,
]

/** Every key the host reads, with its default. */
export function defaultConfig(): ToolhostConfig {
  return {
    workspace: { root: '.', deny: ['.env', '.env.*', '!.env.example', '!.env.sample', '!.env.template', '.git/**', '.toolhost/**'] },
    env_file: '.env',
    plugins: { dirs: ['plugins'], builtins: true, watch: false, import_timeout_ms: 15_000 },
    availability: { check_timeout_ms: 2000 },
    dispatch: {
      mode: 'graph',
      max_workers: 8,
      timeout_ms: 120_000,
      interrupt_grace_ms: 2000,
      parallel_safe: [],
      never_parallel: [],
      path_scoped: [],
      priority: 'critical-path',
      duration_estimates: '.toolhost/durations.json',
    },
    rate_limits: {},
    limits: {
      max_result_chars: 100_000,
      // 5 MiB: Anthropic's limit for one image, and well inside each API's request size.
      max_result_bytes: 5_242_880,
      max_read_chars: 100_000,
      max_argument_chars: 1_000_000,
      max_argument_depth: 64,
      results_dir: '.toolhost/results',
    },
    read_file: { on_overflow: 'truncate' },
    search_files: { max_results: 200 },
    web_search: { timeout_ms: 15_000, max_results: 8 },
    processes: {
      dir: '.toolhost/processes',
      checkpoint: '.toolhost/processes.json',
      buffer_chars: 200_000,
      kill_grace_ms: 3000,
      max_running: 16,
      retention_ms: 3_600_000,
      containment: 'auto',
    },
    terminal: { timeout_ms: 180_000, dangerous_patterns: [...DEFAULT_DANGEROUS_PATTERNS], sandbox: 'off', network: false },
    permissions: {
      mode: 'ask',
      allow: [],
      ask: [],
      deny: [],
      audit_log: '.toolhost/audit.jsonl',
      check_timeout_ms: 10_000,
      console_approvals: { enabled: true, timeout_ms: 120_000 },
    },
    hooks: { before_call: [], after_call: [] },
    openai: { strict: false },
    serve: {
      host: '127.0.0.1',
      public_url: '',
      console: 'loopback',
      max_message_bytes: 16 * 1024 * 1024,
      max_sessions: 1000,
      max_requests: 1000,
      drain_ms: 10_000,
      auth: { authorization_servers: [], jwks_url: '', introspection_url: '', client_id: '', client_secret_env: '', static_token_env: '', scopes: [], cache_ms: 60_000 },
    },
    mcp_servers: {},
    store: 'local',
  }
}
