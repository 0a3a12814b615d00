import { inputRequired, ProtocolError, ProtocolErrorCode, type CallToolRequest, type InputRequiredResult, type Server, type ServerContext } from '@modelcontextprotocol/server'
import { toMcpCallResult, type McpCallToolResult } from '../adapters/mcp-definitions.js'
import { isToolhostError } from '../contract/errors.js'
import type { ToolResult } from '../contract/types.js'
import { unknownToolError } from '../dispatch/admit/prepare.js'
import { suggestNames } from '../dispatch/admit/suggest.js'
import type { Host } from '../host/host.js'
import { isOpenTelemetryRegistered } from '../otel/detect.js'
import { isLevelShown, listenToCall, mcpLevelOf, progressCounter } from './call-events.js'
import { INPUT_REQUIRED_NOTE } from './client-questions.js'
import { InputRound } from './input-round.js'
import type { RequestClient } from './request-client.js'
import { callDigest, type RequestStateSeal, type StateBinding } from './request-state.js'
import { canElicit, PERSON_TOOLS, type McpSessions } from './sessions.js'

/** What a served instance needs to run calls: the host, the clients, and how it seals `requestState`. */
export interface ToolCallContext {
  host: Host
  sessions: McpSessions
  seal: RequestStateSeal
  /** Who the transport says the client is when it carries no authenticated id (`stdio:<connection>`, `http`). */
  principal: string
  /** The tools this client is offered (for the names suggested for an unknown tool). */
  listedNames(client: RequestClient): Promise<string[]>
}

let callSeq = 0

/**
 * Answers one `tools/call` through `host.run` (all clients share one scheduler). Progress and
 * `ctx.report.log` lines go to the client as notifications; a failed call is a result with `isError`; an
 * unknown tool is refused by the host (so the console and the audit log see it) and answered with one
 * `InvalidParams` protocol error, `data.code` `E_TOOL_UNKNOWN`, naming the closest tools. A 2025 session is
 * asked its questions with `elicitation/create`. A 2026-07-28 request is a multi round-trip
 * request: the call runs with the answers its `requestState` and `inputResponses` carry; when it
 * asks something not answered yet, it is stopped and the client gets `input_required` with the
 * question and a newly sealed `requestState`, and the call runs again from the start on the retry.
 * A state that is not this host's, expired, for another call, or used before is refused with an
 * `InvalidParams` error whose `data.code` is `E_REQUEST_STATE_…`.
 */
export async function answerToolCall(
  tc: ToolCallContext, server: Server, request: CallToolRequest, ctx: ServerContext, client: RequestClient,
): Promise<McpCallToolResult | InputRequiredResult> {
  const { host, sessions } = tc
  const { name } = request.params
  const args = request.params.arguments ?? {}
  // The authenticated client and user (a bearer token's client id and subject) or the connection
  // (a 2025 session's own): its calls' principal, what a sealed state and "allow for the session" are bound to.
  const who = authenticatedWho(ctx.http?.authInfo) ?? tc.principal
  const principal = callerOf(who, client)
  if (!host.registry.has(name)) {
    // Through the host first, so it is refused like any call (its event, the console's timeline,
    // the audit log); then the protocol error MCP asks for, worded once, with the closest names
    // this client is offered. The SDK's clients put "MCP error -32602:" before it themselves.
    await host.run([{ id: `mcp-${++callSeq}`, name, arguments: args }], { signal: ctx.mcpReq.signal, principal })
    const error = unknownToolError(name, suggestNames(name, await tc.listedNames(client)))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${error.code}: ${error.message}`, { code: error.code })
  }
  const elicits = canElicit(client.capabilities)
  if (PERSON_TOOLS.has(name) && !elicits) {
    return toMcpCallResult({
      id: String(ctx.mcpReq.id), name, ok: false, content: '',
      error: { code: 'E_TOOL_UNAVAILABLE', message: `${name} is not available: this MCP client cannot ask the person (no elicitation capability); decide without asking` },
    })
  }
  const id = `mcp-${++callSeq}`
  if (client.era === 'legacy') {
    const unbind = sessions.bindCall(id, server, ctx.mcpReq.id)
    try {
      return toMcpCallResult(await runCall(host, sessions, id, request, ctx, client, ctx.mcpReq.signal, principal))
    } finally {
      unbind()
    }
  }

  sessions.noteClient(client.info, elicits)
  const binding: StateBinding = {
    principal: `${who}|${client.info?.name ?? ''}`,
    method: ctx.mcpReq.method,
    call: callDigest(name, args),
  }
  const answers = await answersSoFar(tc.seal, binding, ctx)
  // The call's own signal: the round ends (and the call is stopped) when it asks what is not answered yet.
  const stop = new AbortController()
  const cancel = (): void => stop.abort(ctx.mcpReq.signal.reason)
  if (ctx.mcpReq.signal.aborted) cancel()
  else ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true })
  const round = new InputRound({ answers, canElicit: elicits, onPending: () => stop.abort(new Error(INPUT_REQUIRED_NOTE)) })
  const unbind = sessions.bindRound(id, round, client.info)
  try {
    const result = await runCall(host, sessions, id, request, ctx, client, stop.signal, principal)
    const pending = round.pending
    if (pending === undefined) return toMcpCallResult(result)
    return inputRequired({
      inputRequests: { [pending.key]: inputRequired.elicit(pending.question as Parameters<typeof inputRequired.elicit>[0]) },
      requestState: tc.seal.seal({ ...binding, asked: pending.key, answers }),
    })
  } finally {
    unbind()
    ctx.mcpReq.signal.removeEventListener('abort', cancel)
  }
}

/** The answers of earlier rounds (from the verified state) plus the one this retry brings. */
async function answersSoFar(seal: RequestStateSeal, binding: StateBinding, ctx: ServerContext): Promise<Record<string, unknown>> {
  const raw = ctx.mcpReq.requestState<unknown>()
  if (raw === undefined) return {}
  let state
  try {
    state = await seal.open(raw, binding)
  } catch (error) {
    if (!isToolhostError(error)) throw error
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${error.code}: ${error.message}`, { code: error.code })
  }
  const answers = { ...state.answers }
  const response = ctx.mcpReq.inputResponses?.[state.asked]
  if (response !== undefined) answers[state.asked] = response
  return answers
}

/** `<client id>` or, for a user of it, `<client id>/<subject>` (two users of one OAuth client are two principals). */
function authenticatedWho(auth: { clientId: string; extra?: Record<string, unknown> } | undefined): string | undefined {
  if (auth === undefined) return undefined
  const subject = auth.extra?.subject
  return typeof subject === 'string' && subject !== '' && subject !== auth.clientId ? `${auth.clientId}/${subject}` : auth.clientId
}

/**
 * Who sent a call, for its audit lines (`principal`): `mcp:` and the authenticated client id and
 * subject (a bearer token's) or the connection (`http:<session>` for a 2025 session, `http` for
 * 2026 requests, `stdio:<id>`), and the client's name as it gave it.
 */
function callerOf(who: string, client: RequestClient): string {
  const name = client.info?.name
  return `mcp:${who}${name === undefined || name === '' ? '' : ` (${name.slice(0, 100)})`}`
}

async function runCall(host: Host, sessions: McpSessions, id: string, request: CallToolRequest, ctx: ServerContext, client: RequestClient, signal: AbortSignal, principal: string): Promise<ToolResult> {
  const { name } = request.params
  const token = ctx.mcpReq._meta?.progressToken
  const nextProgress = progressCounter()
  const send = (notification: Parameters<ServerContext['mcpReq']['notify']>[0]): void => void ctx.mcpReq.notify(notification).catch(() => {})
  const stopListening = listenToCall(host, id, (event) => {
    if (event.type === 'progress') {
      if (token === undefined) return
      const progress = nextProgress(event.progress)
      send({ method: 'notifications/progress', params: { progressToken: token, progress, ...(event.total === undefined ? {} : { total: event.total }), message: event.message } })
      return
    }
    const level = mcpLevelOf(event.level)
    if (client.logLevel === undefined || !isLevelShown(level, client.logLevel)) return
    send({ method: 'notifications/message', params: { level, logger: name, data: event.fields === undefined ? event.message : { message: event.message, ...event.fields } } })
  })
  try {
    const run = () => host.run([{ id, name, arguments: request.params.arguments ?? {} }], { signal, principal })
    // A client's trace context (W3C `traceparent` in `_meta`) parents the call's span; the
    // OpenTelemetry API is loaded only when a client sends one and an SDK is registered.
    const meta = ctx.mcpReq._meta
    const [result] = typeof meta?.traceparent === 'string' && isOpenTelemetryRegistered()
      ? await (await import('../otel/remote-parent.js')).withRemoteParent(meta, run)
      : await run()
    sessions.noteResult(result!)
    return result!
  } finally {
    stopListening()
  }
}
