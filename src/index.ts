/**
 * The public API of toolhost: what plugins import (`registry`, `defineTool`, types) and what an
 * embedding agent loop uses (`createHost`).
 */
export { defineTool, TOOL_NAME_PATTERN } from './contract/define-tool.js'
export type { ArgsOfSchema, ObjectSchema } from './contract/define-tool.js'
export { MODEL_FORMATS, isModelFormat } from './adapters/format.js'
export type { ModelFormat } from './adapters/format.js'
export { parseBatch, toCalls } from './adapters/parse-batch.js'
export type { DefinitionsOf, MessagesOf } from './adapters/render.js'
export type { ChatToolMessage } from './adapters/openai-chat.js'
export type { FunctionCallOutputItem, ResponsesOutputPart, ResponsesToolDefinition } from './adapters/openai-responses.js'
export type { OpenAIDefinitionOptions } from './adapters/openai-chat.js'
export type { AnthropicImageType, AnthropicResultPart, AnthropicToolDefinition, AnthropicToolResultBlock, AnthropicToolResultMessage } from './adapters/anthropic.js'
export type { McpCallToolResult, McpToolAnnotations, McpToolDefinition } from './adapters/mcp-definitions.js'
export { watchPlugins } from './loader/watch-plugins.js'
export type { PluginWatcher, ReloadEvent, WatchOptions } from './loader/watch-plugins.js'
// The MCP server and client load the MCP SDK, so they are not re-exported here (plugins import this
// file): use `toolhost serve`, or `mcp_servers` in config.
export type { McpClientConnection } from './mcp-client/client-host.js'
export { isCallToolResult, isContentBlock, renderBlocksAsText } from './contract/content-blocks.js'
export { DEFAULT_SCHEMA_DIALECT, schemaDialect } from './registry/schema.js'
export type { SchemaDialect } from './registry/schema.js'
export { registry, ToolRegistry } from './registry/registry.js'
export type { DefinitionQuery, RegistryEntry } from './registry/registry.js'
export type { AvailabilityOptions } from './registry/tool-availability.js'
export { ToolhostError, ERROR_CODES, isToolhostError } from './contract/errors.js'
export { guardStrayErrors } from './host/stray-errors.js'
export { createLogger, silentLogger } from './contract/logger.js'
export type { ErrorCode } from './contract/errors.js'
export { createHost } from './host/create-host.js'
export { Host } from './host/host.js'
export type { Authoriser, AuthoriseDecision, AuthoriseItem, CallEvent, DefinitionsQuery, HostEvent, HostOptions, HostServices, PlannedCall, RunOptions } from './host/host.js'
export type { Audience } from './contract/messages.js'
// The framework adapters load their framework, so they are subpath exports: 'toolhost/ai-sdk', 'toolhost/openai-agents'.
export { canonicalPath, pathsOverlap, isWithin } from './workspace/paths.js'
export { Workspace, workspaceFor } from './workspace/workspace.js'
export type { WorkspaceOptions } from './workspace/workspace.js'
export { resolveInRoot, isInsideRoot } from './workspace/resolve-in-root.js'
export type { ResolvedPath } from './workspace/resolve-in-root.js'
export { isTempFileName, writeFileAtomic } from './workspace/atomic-write.js'
export { compileLinearGlob, compileLinearRegex, LINEAR_REGEX_SYNTAX } from './patterns/linear-regex.js'
export type { LinearRegex, LinearRegexOptions } from './patterns/linear-regex.js'
export type { WriteOutcome } from './workspace/atomic-write.js'
export { compileDenyList } from './workspace/deny-list.js'
export type { DenyList } from './workspace/deny-list.js'
export { replaceExact } from './workspace/edit-text.js'
export { parseUnifiedDiff, applyHunks } from './workspace/unified-diff.js'
export type { FilePatch, Hunk } from './workspace/unified-diff.js'
export { PermissionGate } from './permissions/permission-gate.js'
export type { PermissionGateOptions, PermissionPreview } from './permissions/permission-gate.js'
export { approveEverything, withStandby } from './permissions/approvals.js'
export type { ApprovalAnswer, ApprovalRequest, ApproveHandler, StandbyApprover } from './permissions/approvals.js'
export type { AuditEntry } from './permissions/audit.js'
export type { DecidedBy, PermissionDecision } from './permissions/decide.js'
export { PERMISSION_MODES } from './permissions/modes.js'
export { createTerminalApprove } from './cli/terminal-approve.js'
export { ProcessRegistry } from './processes/process-registry.js'
export type { ProcessEvent, ProcessRegistryOptions } from './processes/process-registry.js'
export type { LineRange, LogPage, NumberedLine, ProcessInfo, ProcessStatus, SpawnOptions, WaitOutcome } from './contract/process-service.js'
export type { ProcessCompletion } from './processes/completions.js'
export { isDangerousCommand, isDangerousForOpenHosts } from './processes/dangerous-commands.js'
export { loadConfig, parseConfigText } from './config/load-config.js'
export type { ToolhostConfig, DispatchMode, PermissionMode } from './config/types.js'
export type {
  Access,
  AnyTool,
  AskAnswer,
  Asker,
  AskHandler,
  AskRequest,
  AskSchema,
  Availability,
  AvailabilityContext,
  BehaviourContext,
  CallToolResultValue,
  ContentBlock,
  CheckOutcome,
  JsonSchema,
  Logger,
  LogLevel,
  ObjectJsonSchema,
  OpenAIToolDefinition,
  PermissionResult,
  ScopeEntry,
  SessionState,
  Tool,
  ToolCall,
  ToolContext,
  ToolError,
  ToolHandler,
  ToolResult,
  ToolSpec,
} from './contract/types.js'
