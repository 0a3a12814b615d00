/**
 * `toolhost/openai-agents`: a host's tools as OpenAI Agents JS function tools, in one call. Needs
 * the optional peer dependencies `@openai/agents` (0.20, tested; 0.14.3, the line on `openai@6`, also
 * fits) and `zod@4` (the Agents SDK's peer).
 */
import { tool, type Tool, type ToolOutputFileContent, type ToolOutputImage, type ToolOutputText } from '@openai/agents'
import { blockAsText } from '../contract/content-blocks.js'
import { resultText } from '../adapters/format.js'
import type { Host } from '../host/host.js'
import type { DefinitionsQuery } from '../host/host-types.js'
import type { ContentBlock, ToolResult } from '../contract/types.js'
import { CallBatcher } from './call-batcher.js'

/** Which tools become function tools (default: every tool available now), and OpenAI strict mode. */
export type AgentsToolsOptions = Pick<DefinitionsQuery, 'names' | 'toolsets' | 'strict'>

/** What a function tool hands the Agents SDK: text, or output items for a rich result. */
export type AgentsToolOutput = string | Array<ToolOutputText | ToolOutputImage | ToolOutputFileContent>

/**
 * The tools available now as Agents SDK function tools. Every call goes through the host: calls the
 * model makes in one turn are run as one batch (authorised together, scheduled by toolhost, so a
 * read beside a write of the same file waits for it), under the host's permissions and limits.
 * Definitions are `strict: false` by default (optional arguments stay optional); `{ strict: true }`
 * (or `openai.strict`) sends toolhost's strict rewrite, and the host removes the nulls it makes the
 * model send. A failure reaches the model as `error E_CODE: message`; a rich result as text, image and
 * file items.
 *
 * @example
 * import { Agent, run } from '@openai/agents'
 * import { agentsTools } from 'toolhost/openai-agents'
 * const agent = new Agent({ name: 'helper', instructions: 'Use the tools.', tools: await agentsTools(host) })
 * const result = await run(agent, 'Summarise notes.md')
 */
export async function agentsTools(host: Host, options: AgentsToolsOptions = {}): Promise<Tool[]> {
  const definitions = await host.definitions('openai-responses', options)
  const batcher = new CallBatcher(host)
  return definitions.map((d) => {
    let calls = 0
    const execute = async (input: unknown, _context: unknown, details?: { toolCall?: { callId: string }; signal?: AbortSignal }): Promise<AgentsToolOutput> => {
      const id = details?.toolCall?.callId ?? `${d.name}_${++calls}`
      const args = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {}
      return toAgentsOutput(await batcher.call({ id, name: d.name, arguments: args }, details?.signal))
    }
    // toolhost's schemas are sent as they are (non-strict) or as its own strict rewrite (strict):
    // narrowed by `strict`, each definition's parameters are the SDK's type for it.
    return d.strict
      ? tool({ name: d.name, description: d.description, parameters: d.parameters, strict: true, execute })
      : tool({ name: d.name, description: d.description, parameters: d.parameters, strict: false, execute })
  })
}

/**
 * A toolhost result as a function tool's output: its text (a failure reads `error E_CODE: message`),
 * or for a result with blocks, text, image and file items (what the SDK cannot carry as a text note).
 *
 * @example
 * toAgentsOutput({ id: 'c', name: 'echo', ok: true, content: 'hi' }) // 'hi'
 */
export function toAgentsOutput(result: ToolResult): AgentsToolOutput {
  if (!result.ok || !result.blocks) return resultText(result)
  return result.blocks.map(toItem)
}

function toItem(block: ContentBlock): ToolOutputText | ToolOutputImage | ToolOutputFileContent {
  if (block.type === 'image') return { type: 'image', image: { data: block.data, mediaType: block.mimeType } }
  if (block.type === 'resource' && 'blob' in block.resource) {
    const { uri, mimeType, blob } = block.resource
    if (mimeType?.startsWith('image/')) return { type: 'image', image: { data: blob, mediaType: mimeType } }
    if (mimeType === 'application/pdf') return { type: 'file', file: { data: blob, mediaType: mimeType, filename: uri.split('/').pop() || 'document.pdf' } }
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
