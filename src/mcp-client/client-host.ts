// The part of a host the MCP client uses, and what it reports per server: types only, with nothing
// of the MCP SDK in them (the host's types name McpClientConnection, and the package's root entry
// must not reach the SDK's declarations).
import type { ToolhostConfig } from '../config/types.js'
import type { AskHandler, Logger } from '../contract/types.js'
import type { ToolRegistry } from '../registry/registry.js'

/** The part of a host a remote tool uses: its registry and log, and the config in force (call time limit). */
export interface RemoteToolHost {
  readonly config: ToolhostConfig
  readonly log: Logger
  readonly registry: ToolRegistry
}

/** One configured MCP server as the host sees it. */
export interface McpClientConnection {
  /** The key under `mcp_servers`. */
  server: string
  connected: boolean
  /** The MCP revision agreed with the server (`2026-07-28`, `2025-11-25`, …); undefined until connected. */
  protocol?: string
  /** Registry names of its tools (`mcp_<server>_<tool>`). */
  tools: string[]
  /** Why it is not connected, or a tool that could not be registered as-is. */
  problems: string[]
}

/** The part of a host the MCP client uses (the host satisfies it as it is; the client never imports it). */
export interface McpClientHost extends RemoteToolHost {
  readonly configFile: string | undefined
  /** The workspace root, offered to servers as the client's one root. */
  readonly root: string
  /** How the host asks a person: a server's elicitation goes there. */
  readonly ask: AskHandler | undefined
  onClose(closer: () => void | Promise<void>): void
}
