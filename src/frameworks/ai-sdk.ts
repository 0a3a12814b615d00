/**
 * `toolhost/ai-sdk`: a host's tools as a Vercel AI SDK `ToolSet`, in one call. Needs the optional
 * peer dependency `ai`: version 6 (the newest line that runs on Node 20) or 7 (which needs Node 22).
 */
import { jsonSchema, tool, type Tool, type ToolSet } from 'ai'
import { blockAsText } from '../contract/content-blocks.js'
import type { Host } from '../host/host.js'
import type { DefinitionsQuery } from '../host/host-types.js'
import type { ContentBlock, ToolResult } from '../contract/types.js'
import { CallBatcher } from './call-batcher.js'

/** Which tools become AI SDK tools (default: every tool available now). */
export type AiSdkToolsOptions = Pick<DefinitionsQuery, 'names' | 'toolsets'>

/** What the AI SDK passes to the model for a tool's output (its `ToolResultOutput`, not exported by `ai`). */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>

type ContentPart = Extract<ToolResultOutput, { type: 'content' }>['value'][number]

/**
 * The tools available now as an AI SDK `ToolSet`. Every `execute` goes through the host: calls the
 * model makes in one step are run as one batch (authorised together, scheduled by toolhost, so a read
 * beside a write of the same file waits for it), under the host's permissions and limits. The
 * `execute` output is toolhost's `ToolResult`; the model reads it through `toModelOutput`: text, a
 * failure as `error-text` (`E_CODE: message`), or content parts (text, images, PDFs) for a rich result.
 *
 * @example
 * import { generateText, stepCountIs } from 'ai'
 * import { aiSdkTools } from 'toolhost/ai-sdk'
 * const host = await createHost({ root: '.' })
 * const { text } = await generateText({ model, tools: await aiSdkTools(host), stopWhen: stepCountIs(8), prompt: 'Summarise notes.md' })
 */
export async function aiSdkTools(host: Host, options: AiSdkToolsOptions = {}): Promise<ToolSet> {
  const definitions = await host.definitions('openai-chat', { ...options, strict: false })
  const batcher = new CallBatcher(host)
  const tools: ToolSet = {}
  for (const { function: fn } of definitions) {
    tools[fn.name] = tool<Record<string, unknown>, ToolResult>({
      description: fn.description,
      // toolhost validates the arguments itself (its own ajv set-up and messages), so the schema is
      // only described to the model here, not checked twice.
      inputSchema: jsonSchema<Record<string, unknown>>(fn.parameters as Parameters<typeof jsonSchema>[0]),
      execute: (input, { toolCallId, abortSignal }) => batcher.call({ id: toolCallId, name: fn.name, arguments: input }, abortSignal),
      toModelOutput: ({ output }) => toAiSdkOutput(output),
    })
  }
  return tools
}

/**
 * A toolhost result as the AI SDK's model output: text, `error-text` for a failure, or `content`
 * parts for a result with blocks (what the SDK cannot carry becomes a text note).
 *
 * @example
 * toAiSdkOutput({ id: 'c', name: 'echo', ok: true, content: 'hi' }) // { type: 'text', value: 'hi' }
 */
export function toAiSdkOutput(result: ToolResult): ToolResultOutput {
  if (!result.ok) return { type: 'error-text', value: result.error ? `${result.error.code}: ${result.error.message}` : result.content }
  if (!result.blocks) return { type: 'text', value: result.content }
  return { type: 'content', value: result.blocks.map(toPart) }
}

function toPart(block: ContentBlock): ContentPart {
  if (block.type === 'image') return { type: 'image-data', data: block.data, mediaType: block.mimeType }
  if (block.type === 'resource' && 'blob' in block.resource) {
    const { uri, mimeType, blob } = block.resource
    if (mimeType?.startsWith('image/')) return { type: 'image-data', data: blob, mediaType: mimeType }
    if (mimeType === 'application/pdf') return { type: 'file-data', data: blob, mediaType: mimeType, filename: uri.split('/').pop() || 'document.pdf' }
  }
  return { type: 'text', text: block.type === 'text' ? block.text : blockAsText(block) }
}

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
