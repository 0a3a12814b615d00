/**
 * `toolhost/mcp`: the MCP server (stdio, Streamable HTTP) and client. A subpath of its own, so an
 * embedder that never serves MCP never loads the MCP SDK (`toolhost` itself does not import it).
 *
 * @example
 * import { createHost } from 'toolhost'
 * import { McpSessions, serveStdio } from 'toolhost/mcp'
 *
 * const host = await createHost({ root: '.' })
 * const served = await serveStdio(host, new McpSessions())
 * await served.closed
 */
export { createMcpServer, notifyOnToolChanges, serveConnection, serveStdio, SERVER_INFO } from './server.js'
export type { McpServerOptions } from './server.js'
export { MemoryApprovalLedger } from './approval-ledger.js'
export type { ApprovalLedger } from './approval-ledger.js'
export { callDigest, RequestStateSeal } from './request-state.js'
export type { InputState, StateBinding } from './request-state.js'
export type { McpClientSummary } from './sessions.js'
export { serveHttp } from './http.js'
export type { ExtraRoutes, HttpEndpoint } from './http.js'
export { McpSessions } from './sessions.js'
export { connectMcpServers } from '../mcp-client/connect-servers.js'
export type { McpClientConnection, McpClientHost, RemoteToolHost } from '../mcp-client/client-host.js'
export type { ElicitAnswer, InputQuestion, InputRound } from './input-round.js'
