/**
 * `toolhost`: the public API. What a plugin imports (`defineTool`, `definePrompt`, `defineResource`,
 * `registry`, `ToolhostError`, the tool contract's types) and what an embedding agent loop uses
 * (`createHost`, approvers, loggers, the host's types). The rest is in subpath entries: `toolhost/workspace` (file tools' helpers),
 * `toolhost/processes`, `toolhost/mcp`, `toolhost/console`, `toolhost/otel`, `toolhost/ai-sdk`,
 * `toolhost/openai-agents`. Every export here is used by README.md or docs/; api/toolhost.api.md is
 * the committed report of this surface (npm run api).
 */

// Writing a tool.
export { defineTool } from './contract/define-tool.js'
export type { ArgsOfSchema, ObjectSchema, StandardToolSpec } from './contract/define-tool.js'
export type { StandardInput, StandardIssue, StandardJsonSchema, StandardOutput, StandardResult } from './contract/standard-schema-types.js'
export { registry, ToolRegistry } from './registry/registry.js'
export type { DefinitionQuery, RegistryEntry } from './registry/registry.js'
export type { AvailabilityOptions } from './registry/tool-availability.js'
export { ERROR_CODES, ToolhostError, isToolhostError } from './contract/errors.js'
export type { ErrorCode } from './contract/errors.js'
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
  CallInfo,
  CallReport,
  CallToolResultValue,
  CheckOutcome,
  ContentBlock,
  ControlPlane,
  HandlerResult,
  JsonSchema,
  Logger,
  LogLevel,
  ObjectJsonSchema,
  OpenAIToolDefinition,
  PermissionResult,
  ScopeEntry,
  SessionState,
  SettingsContext,
  Tool,
  ToolCall,
  ToolContext,
  ToolError,
  ToolHandler,
  ToolResult,
  ToolServices,
  ToolSpec,
  WorkspaceContext,
} from './contract/types.js'

// Offering prompts and resources (MCP), registered like tools.
export { definePrompt } from './contract/define-prompt.js'
export type { ArgsOfPromptSchema } from './contract/define-prompt.js'
export { defineResource } from './contract/define-resource.js'
export type {
  AnyPrompt,
  AnyResource,
  Completer,
  Completion,
  CompletionContext,
  ListedResource,
  Prompt,
  PromptContext,
  PromptHandlerResult,
  PromptMessage,
  PromptSpec,
  ReadResult,
  RenderedPrompt,
  Resource,
  ResourceContents,
  ResourceContext,
  ResourcePart,
  ResourceSpec,
  TemplateVariables,
  VarsOfTemplate,
} from './contract/prompt-types.js'
export type { PromptsAndResources } from './registry/prompts-and-resources.js'
export type { ListChange, PromptEntry, PromptRequestOptions, ResourceEntry } from './registry/prompt-entries.js'
export type { UriMatch, UriTemplateMatcher } from './registry/match-uri-template.js'
export type { CompletionRef } from './registry/complete-argument.js'
export type { ResourceListing } from './registry/list-resources.js'

// Embedding: a host (hosts come from createHost; Host is the type of one), its options and events.
export { createHost } from './host/create-host.js'
export type { Host } from './host/host.js'
export type { Authoriser, AuthoriseDecision, AuthoriseItem, CallEvent, DefinitionsQuery, HostEvent, HostOptions, HostServices, PlannedCall, RunOptions } from './host/host.js'
export type { SchedulerEvent, Wait } from './dispatch/schedule/scheduler-types.js'
// What the types above refer to: each is a type only (the values behind them are internal or in a subpath entry).
export type { AuthoriseContext, DecidingFor } from './permissions/authoriser.js'
export type { ConfigSource } from './host/setup.js'
export type { ConfigWatcher } from './loader/watch-config.js'
export type { CoordinationStore } from './store/coordination-store.js'
export type { ExplainedCall } from './dispatch/schedule/explain-plan.js'
export type { Footprint, FootprintOrigin } from './dispatch/admit/footprint.js'
export type { HookConfig, McpServerConfig, ProcessContainment, RateLimitConfig, TerminalSandbox } from './config/generated-types.js'
export type { KnownSchemas } from './registry/known-schemas.js'
export type { McpClientConnection } from './mcp-client/client-host.js'
export type { PluginLoadOptions, PluginLoadReport } from './loader/load-plugins.js'
export type { ProcessRegistry } from './processes/process-registry.js'
export type { RateLimit } from './dispatch/schedule/rate-limits.js'
export type { ClaimTouch } from './store/claims.js'
export type { OffersContext } from './contract/host-context.js'
export type { LineRange, NumberedLine, ProcessStatus } from './contract/process-service.js'
export type { LaunchDecision } from './processes/process-registry.js'
export type { SandboxPlan } from './processes/sandbox.js'
export type { Claim } from './store/claims.js'
export type { ForeignWait } from './store/coordination-store.js'
export type { HostContext } from './contract/host-context.js'
export type { LogPage, ProcessInfo, ProcessService, SpawnOptions, WaitOutcome } from './contract/process-service.js'
export type { Touch } from './dispatch/admit/footprint.js'
export type { PlannedWait } from './dispatch/schedule/explain-plan.js'
export type { PluginLoadError } from './loader/load-plugins.js'
export type { ProcessCompletion } from './processes/completions.js'
export type { ProcessEvent, ProcessRegistryOptions } from './processes/process-registry.js'
export type { ToolEntries } from './registry/registry.js'
export type { AcquireOptions, HeldClaim, Lease, LeaseRequest, RateOptions, RateTicket, SharedEstimate, SharedRateRule } from './store/coordination-store.js'
export type { Audience } from './contract/messages.js'
export type { ToolhostConfig, DispatchMode, PermissionMode } from './config/types.js'
export { approveEverything, withStandby } from './permissions/approvals.js'
export type { ApprovalAnswer, ApprovalRequest, ApproveHandler, StandbyApprover } from './permissions/approvals.js'
export { createTerminalApprove } from './cli/terminal-approve.js'
export type { AuditEntry } from './permissions/audit.js'
export { defineHook } from './contract/define-hook.js'
export type { CallHook, CallHooks, HookAnswer, HookCall, HookSpec, PluginHook } from './contract/hook-types.js'
export type { PluginHookEntry, PluginHooks } from './registry/plugin-hooks.js'
export type { DecidedBy } from './permissions/decide.js'
export { createLogger, silentLogger } from './contract/logger.js'
export { guardStrayErrors } from './host/stray-errors.js'
export { watchPlugins } from './loader/watch-plugins.js'
export type { PluginWatcher, ReloadEvent, WatchOptions } from './loader/watch-plugins.js'
export type { WorkspaceCode } from './loader/workspace-code.js'

// The shapes of host.definitions(format) and host.toMessages(results, format) for each model API.
export type { ModelFormat } from './adapters/format.js'
export type { DefinitionsOf, MessagesOf } from './adapters/render.js'
export type { ChatToolDefinition, ChatToolMessage, OpenAIDefinitionOptions } from './adapters/openai-chat.js'
export type { NonStrictParametersSchema, StrictParametersSchema } from './adapters/openai-parameters.js'
export type { FunctionCallOutputItem, ResponsesOutputPart, ResponsesToolDefinition } from './adapters/openai-responses.js'
export type { AnthropicImageType, AnthropicResultPart, AnthropicToolDefinition, AnthropicToolResultBlock, AnthropicToolResultMessage } from './adapters/anthropic.js'
export type { McpCallToolResult, McpToolAnnotations, McpToolDefinition } from './adapters/mcp-definitions.js'

// A model's streaming reply read as it arrives: each call as its block closes, then the whole turn.
export { isModelStream, readModelStream } from './adapters/model-stream.js'
export type { AnthropicAssistantMessage, ChatAssistantMessage, ModelStreamEvent, ReadModelStreamOptions, StreamEnd, StreamedCall, StreamedTurn, StreamFormat, StreamStop } from './adapters/stream-types.js'
