import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type ClientCapabilities,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server'
import { MCP_LOG_LEVELS, type McpLogLevel } from './call-events.js'

/** Who sent one request, read the way its protocol revision says. */
export interface RequestClient {
  /** `modern`: a 2026-07-28 request (its `_meta` envelope says who it is); `legacy`: a 2025 session. */
  era: 'modern' | 'legacy'
  capabilities: ClientCapabilities | undefined
  info: { name: string; version: string } | undefined
  /** The lowest log level the client wants as notifications; undefined: none (2026 without `logLevel`). */
  logLevel: McpLogLevel | undefined
}

/**
 * The client of one request: on 2026-07-28 from the request's own `_meta` envelope (capabilities,
 * client info and log level travel with every request; the server's getters are not set on stdio);
 * on 2025 from the session's `initialize` and its `logging/setLevel` (`sessionLevel`).
 *
 * @example
 * const client = requestClient(server, ctx, sessionLevel)
 * if (client.era === 'modern') … // input_required instead of elicitation/create
 */
export function requestClient(server: Server, ctx: ServerContext, sessionLevel: McpLogLevel): RequestClient {
  // RequestMetaEnvelope is declared `{}` in the SDK's types; its keys are the reserved _meta names.
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  if (envelope !== undefined && typeof envelope[PROTOCOL_VERSION_META_KEY] === 'string') {
    const info = envelope[CLIENT_INFO_META_KEY] as { name?: unknown; version?: unknown } | undefined
    const level = envelope[LOG_LEVEL_META_KEY]
    return {
      era: 'modern',
      capabilities: envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined,
      info: info && typeof info.name === 'string' ? { name: info.name, version: typeof info.version === 'string' ? info.version : '' } : undefined,
      logLevel: (MCP_LOG_LEVELS as readonly unknown[]).includes(level) ? (level as McpLogLevel) : undefined,
    }
  }
  const info = server.getClientVersion()
  return { era: 'legacy', capabilities: server.getClientCapabilities(), info: info ? { name: info.name, version: info.version } : undefined, logLevel: sessionLevel }
}
