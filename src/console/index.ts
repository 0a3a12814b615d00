/**
 * `toolhost/console`: the live web console of a host (calls on a timeline, approvals, processes,
 * tools, limits). `toolhost serve --http` serves it at `/`; an embedder attaches it with
 * `attachConsole`. See docs/console.md.
 */
export { attachConsole, createConsole } from './attach-console.js'
export type { AttachedConsole, ConsoleOptions, HostConsole } from './attach-console.js'
export { ConsoleApprovals } from './console-approvals.js'
export type { ConsoleDecision, PendingApproval } from './console-approvals.js'
export { ConsoleAuth, CSRF_HEADER } from './console-auth.js'
export { ConsoleHub } from './console-hub.js'
export type { ConsoleClient, LimitView, ProcessView, ToolView } from './console-views.js'
export { CallTimeline } from '../observe/call-timeline.js'
export type { CallDetailWriter, CallRecord, CallState, CallTimelineOptions, RecordedHook, RecordedWait } from '../observe/call-timeline.js'
export type { ConsoleHubOptions } from './console-hub.js'
export type { ConsoleCallAnswer, ConsoleCallProblem, ConsoleCalls } from './console-calls.js'
export type { ConsoleRoutes } from './console-routes.js'

// What the signatures above refer to that `toolhost` exports too: the same declarations, types only,
// so a type imported from this entry and from `toolhost` is one type.
export type {
  AnthropicImageType, AnthropicResultPart, AnthropicToolDefinition, AnthropicToolResultBlock,
  AnthropicToolResultMessage
} from '../adapters/anthropic.js'
export type { ModelFormat } from '../adapters/format.js'
export type { McpCallToolResult, McpToolAnnotations, McpToolDefinition } from '../adapters/mcp-definitions.js'
export type { ChatToolDefinition, ChatToolMessage } from '../adapters/openai-chat.js'
export type { NonStrictParametersSchema, StrictParametersSchema } from '../adapters/openai-parameters.js'
export type { FunctionCallOutputItem, ResponsesOutputPart, ResponsesToolDefinition } from '../adapters/openai-responses.js'
export type { DefinitionsOf, MessagesOf } from '../adapters/render.js'
export type {
  AnthropicAssistantMessage, ChatAssistantMessage, ModelStreamEvent, StreamedCall, StreamedTurn, StreamEnd,
  StreamFormat, StreamStop
} from '../adapters/stream-types.js'
export type { HookConfig, McpServerConfig, ProcessContainment, RateLimitConfig, TerminalSandbox } from '../config/generated-types.js'
export type { DispatchMode, PermissionMode, ToolhostConfig } from '../config/types.js'
export type { ERROR_CODES, ErrorCode } from '../contract/errors.js'
export type { CallHook, CallHooks, HookAnswer, HookCall, HookSpec, PluginHook } from '../contract/hook-types.js'
export type { HostContext, OffersContext } from '../contract/host-context.js'
export type { Audience } from '../contract/messages.js'
export type { LineRange, LogPage, NumberedLine, ProcessInfo, ProcessService, ProcessStatus, SpawnOptions, WaitOutcome } from '../contract/process-service.js'
export type {
  AnyPrompt, AnyResource, Completer, Completion, CompletionContext, ListedResource, Prompt, PromptContext,
  PromptHandlerResult, PromptMessage, ReadResult, RenderedPrompt, Resource, ResourceContents, ResourceContext,
  ResourcePart
} from '../contract/prompt-types.js'
export type {
  Access, AnyTool, AskAnswer, Asker, AskHandler, AskRequest, AskSchema, Availability, AvailabilityContext,
  BehaviourContext, CallInfo, CallReport, CheckOutcome, ContentBlock, ControlPlane, HandlerResult, JsonSchema,
  Logger, LogLevel, ObjectJsonSchema, OpenAIToolDefinition, PermissionResult, ScopeEntry, SessionState,
  SettingsContext, Tool, ToolCall, ToolContext, ToolError, ToolHandler, ToolResult, ToolServices, ToolSpec,
  WorkspaceContext
} from '../contract/types.js'
export type { Footprint, FootprintOrigin, Touch } from '../dispatch/admit/footprint.js'
export type { ExplainedCall, PlannedWait } from '../dispatch/schedule/explain-plan.js'
export type { RateLimit } from '../dispatch/schedule/rate-limits.js'
export type { SchedulerEvent, Wait } from '../dispatch/schedule/scheduler-types.js'
export type {
  AuthoriseDecision, AuthoriseItem, Authoriser, CallEvent, DefinitionsQuery, Host, HostEvent, HostServices,
  PlannedCall, RunOptions
} from '../host/host.js'
export type { PluginLoadError, PluginLoadReport } from '../loader/load-plugins.js'
export type { ConfigWatcher } from '../loader/watch-config.js'
export type { PluginWatcher } from '../loader/watch-plugins.js'
export type { WorkspaceCode } from '../loader/workspace-code.js'
export type { McpClientConnection } from '../mcp-client/client-host.js'
export type { ApprovalAnswer, ApprovalRequest, ApproveHandler, StandbyApprover } from '../permissions/approvals.js'
export type { AuditEntry } from '../permissions/audit.js'
export type { AuthoriseContext, DecidingFor } from '../permissions/authoriser.js'
export type { DecidedBy } from '../permissions/decide.js'
export type { ProcessCompletion } from '../processes/completions.js'
export type { LaunchDecision, ProcessEvent, ProcessRegistry, ProcessRegistryOptions } from '../processes/process-registry.js'
export type { SandboxPlan } from '../processes/sandbox.js'
export type { CompletionRef } from '../registry/complete-argument.js'
export type { KnownSchemas } from '../registry/known-schemas.js'
export type { ResourceListing } from '../registry/list-resources.js'
export type { UriMatch, UriTemplateMatcher } from '../registry/match-uri-template.js'
export type { PluginHookEntry, PluginHooks } from '../registry/plugin-hooks.js'
export type { ListChange, PromptEntry, PromptRequestOptions, ResourceEntry } from '../registry/prompt-entries.js'
export type { PromptsAndResources } from '../registry/prompts-and-resources.js'
export type { DefinitionQuery, RegistryEntry, ToolEntries, ToolRegistry } from '../registry/registry.js'
export type { AvailabilityOptions } from '../registry/tool-availability.js'
export type { Claim, ClaimTouch } from '../store/claims.js'
export type {
  AcquireOptions, CoordinationStore, ForeignWait, HeldClaim, Lease, LeaseRequest, RateOptions, RateTicket,
  SharedEstimate, SharedRateRule
} from '../store/coordination-store.js'
