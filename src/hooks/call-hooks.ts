import type { HookConfig, ToolhostConfig } from '../config/types.js'
import { describeThrown } from '../contract/errors.js'
import { nameMatcher, type NameSet } from '../dispatch/admit/name-matcher.js'
import { readHookAnswer } from './hook-answer.js'
import type { CallHook, CallHooks, HookCall, PluginHook } from '../contract/hook-types.js'
import { runHookCommand, type HookVerdict } from './run-hook-command.js'

/** A hook's time limit when config or code gives none. */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000

/** Where hooks run and what they are given besides the call. */
export interface HookRunContext {
  /** The workspace root: a command hook's working folder. */
  root: string
  env: NodeJS.ProcessEnv
  /** The run's interrupt: a hook still running is stopped (a command's process group killed). */
  signal?: AbortSignal | undefined
}

/** One hook, ready to run: its name (as denials and the audit log say it), the tools it is for, and how it runs. */
export interface ReadyHook {
  readonly name: string
  readonly tools: NameSet
  run(call: HookCall, context: HookRunContext): Promise<HookVerdict>
}

/**
 * The hooks in force for a host, each kind in this order: config.yaml's (`hooks.before_call`,
 * `hooks.after_call`, read again when a reloaded file changes them), then the embedding's code hooks
 * (`createHost({ hooks })`), then the plugins' (`defineHook`, in the order their files loaded).
 *
 * @example
 * const hooks = CallHookSet.from(config.hooks, createHostOptions.hooks, registry.hooks.list())
 * hooks.beforeFor('write_file') // the hooks a write_file call goes through before it is authorised
 */
export class CallHookSet {
  readonly before: readonly ReadyHook[]
  readonly after: readonly ReadyHook[]

  constructor(before: readonly ReadyHook[], after: readonly ReadyHook[]) {
    this.before = before
    this.after = after
  }

  static from(config: ToolhostConfig['hooks'], code: CallHooks | undefined, plugins: readonly { hook: PluginHook }[] = []): CallHookSet {
    const pluginHooks = (event: PluginHook['event']): ReadyHook[] => plugins.filter((p) => p.hook.event === event).map((p) => codeHook(p.hook, JSON.stringify(p.hook.name)))
    return new CallHookSet(
      [...config.before_call.map((h, i) => commandHook(h, `hooks.before_call[${i}]`)), ...(code?.beforeCall ?? []).map((h, i) => codeHook(h, h.name ?? `the code hook beforeCall[${i}]`)), ...pluginHooks('before_call')],
      [...config.after_call.map((h, i) => commandHook(h, `hooks.after_call[${i}]`)), ...(code?.afterCall ?? []).map((h, i) => codeHook(h, h.name ?? `the code hook afterCall[${i}]`)), ...pluginHooks('after_call')],
    )
  }

  get isEmpty(): boolean {
    return this.before.length === 0 && this.after.length === 0
  }

  beforeFor(tool: string): ReadyHook[] {
    return this.before.filter((h) => h.tools.has(tool))
  }

  afterFor(tool: string): ReadyHook[] {
    return this.after.filter((h) => h.tools.has(tool))
  }
}

function commandHook(config: HookConfig, name: string): ReadyHook {
  const timeoutMs = config.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS
  return {
    name,
    tools: nameMatcher(toolList(config.tools)),
    run: (call, context) => runHookCommand(config.command, call, { cwd: context.root, env: context.env, timeoutMs, signal: context.signal }),
  }
}

function codeHook(hook: CallHook, name: string): ReadyHook {
  const timeoutMs = hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  return { name, tools: nameMatcher(toolList(hook.tools)), run: (call, context) => runCodeHook(hook, call, timeoutMs, context.signal) }
}

function toolList(tools: string | readonly string[]): string[] {
  return typeof tools === 'string' ? [tools] : [...tools]
}

// A code hook gets a copy of the call (it cannot change what the others see), its own signal, and
// the same time limit a command has; a throw or a malformed answer fails closed like a command's.
async function runCodeHook(hook: CallHook, call: HookCall, timeoutMs: number, signal: AbortSignal | undefined): Promise<HookVerdict> {
  if (signal?.aborted) return { kind: 'aborted' }
  const own = new AbortController()
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const stopped = new Promise<HookVerdict>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'failed', why: `did not answer within ${timeoutMs} ms` }), timeoutMs)
    onAbort = () => resolve({ kind: 'aborted' })
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  const answered = (async (): Promise<HookVerdict> => {
    try {
      const answer = readHookAnswer(await hook.run(structuredClone(call), own.signal), call.event)
      return typeof answer === 'string' ? { kind: 'failed', why: answer } : { kind: 'answer', answer }
    } catch (error) {
      return { kind: 'failed', why: `threw (${describeThrown(error)})` }
    }
  })()
  try {
    return await Promise.race([answered, stopped])
  } finally {
    clearTimeout(timer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
    own.abort(new Error('the hook was stopped'))
  }
}
