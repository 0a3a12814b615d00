import type { ToolhostConfig } from './types.js'

/** Commands `terminal` treats as destructive (asked for even in `auto` permission mode). */
export const DEFAULT_DANGEROUS_PATTERNS = [
  String.raw`\brm\s+(-[a-zA-Z]*[rRf][a-zA-Z]*\s+)+`,
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
    workspace: { root: '.', deny: ['.env', '.env.*', '.git/**', '.toolhost/**'] },
    env_file: '.env',
    plugins: { dirs: ['plugins'], watch: false },
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
      max_read_chars: 100_000,
      max_argument_chars: 1_000_000,
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
    },
    terminal: { timeout_ms: 180_000, dangerous_patterns: [...DEFAULT_DANGEROUS_PATTERNS] },
    permissions: { mode: 'ask', allow: [], ask: [], deny: [], audit_log: '.toolhost/audit.jsonl' },
    serve: { host: '127.0.0.1' },
    mcp_servers: {},
  }
}
