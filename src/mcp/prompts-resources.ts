import type { Server } from '@modelcontextprotocol/server'
import type { Host } from '../host/host.js'
import { serveResources } from './resources.js'
import type { McpSessions } from './sessions.js'

/**
 * Registers everything an instance offers besides tools, in one place: toolhost's own resources
 * (saved results, process logs: `serveResources`), and — once plugins can offer them — the
 * registry's prompts and resources (`definePrompt` / `defineResource`, with resource templates and
 * completions). Those are not wired yet: when the registry gains `prompts()` and `resources()`,
 * this is the file that lists, reads and completes them, declares the `prompts` and
 * `completions` capabilities, and publishes their list changes (`notifyPromptsChanged`).
 *
 * @example
 * servePromptsAndResources(server, host, sessions) // inside createMcpServer
 */
export function servePromptsAndResources(server: Server, host: Host, sessions: McpSessions): void {
  serveResources(server, host, sessions)
}
