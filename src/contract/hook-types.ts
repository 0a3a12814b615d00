/** Hooks: code or commands run before a call (allow, deny, ask, rewrite its arguments) and after it (rewrite or withhold its result). Types only. */
import type { ToolError } from './types.js'

/** What a hook is told about a call: what a `hooks.*` command reads as JSON on its stdin. */
export interface HookCall {
  /** `before_call` or `after_call`. */
  event: 'before_call' | 'after_call'
  id: string
  tool: string
  /** The validated arguments (for a later before-hook, as the earlier one rewrote them). */
  arguments: Record<string, unknown>
  /** For `after_call`: the call's result as the model would read it. */
  result?: { ok: boolean; content: string; error?: ToolError }
}

/**
 * A hook's answer. Nothing (or `{}`) lets the call go on as it is. A before-hook may rewrite the
 * arguments (`arguments`, checked against the tool's schema like the model's), deny the call
 * (`decision: 'deny'`, the `reason` is what the model reads) or ask a person first (`'ask'`). An
 * after-hook may rewrite the result's text (`content`) or withhold the result (`'deny'`).
 */
export interface HookAnswer {
  decision?: 'allow' | 'deny' | 'ask'
  reason?: string
  arguments?: Record<string, unknown>
  content?: string
}

/**
 * A hook in code (`createHost({ hooks })`): the tools it is for and what it does. It may be async;
 * past `timeoutMs` (default 10000), or when it throws, the call is denied and the reason says so.
 *
 * @example
 * const noSecrets: CallHook = { tools: 'write_*', run: (call) => (JSON.stringify(call.arguments).includes('API_KEY') ? { decision: 'deny', reason: 'do not write keys to files' } : undefined) }
 */
export interface CallHook {
  /** A tool name or glob (`write_*`), or a list of them. */
  tools: string | readonly string[]
  run(call: HookCall, signal: AbortSignal): HookAnswer | undefined | void | Promise<HookAnswer | undefined | void>
  /** How it is named in denials and the audit log (default `hooks.before_call[i]` of the code hooks). */
  name?: string
  timeoutMs?: number
}

/** Hooks given in code: run after config.yaml's hooks of the same kind, in order. */
export interface CallHooks {
  beforeCall?: readonly CallHook[]
  afterCall?: readonly CallHook[]
}

/** What `defineHook` takes: a `CallHook` with the event it runs on and a name (how denials and the audit log say it). */
export interface HookSpec extends CallHook {
  event: 'before_call' | 'after_call'
  name: string
}

/** A hook a plugin registers (`registry.register(defineHook({ … }))`), reloaded and removed with its file. */
export interface PluginHook extends HookSpec {
  readonly kind: 'hook'
}
