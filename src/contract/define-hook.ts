import { ToolhostError } from './errors.js'
import type { HookSpec, PluginHook } from './hook-types.js'
import { describeValue } from './spec-checks.js'

/** Hook names: 1 to 128 characters, no control characters (they appear in denials the model reads and in the audit log). */
const HOOK_NAME_PATTERN = /^[^\p{Cc}]{1,128}$/u

/**
 * Checks a plugin's hook: registered with `registry.register` like a tool, it runs on every call of
 * the tools it names (a name or glob, or a list of them), after config.yaml's hooks and the
 * embedding's, and it is replaced or removed when its plugin file changes or goes. It gets the same
 * `HookCall` and answers the same `HookAnswer` as any hook (docs/hooks.md). A spec that breaks a
 * rule throws `E_SCHEMA_INVALID` saying which.
 *
 * @example
 * registry.register(defineHook({
 *   event: 'before_call', tools: 'write_*', name: 'no-vendor',
 *   run: (call) => (String(call.arguments.path).startsWith('vendor/') ? { decision: 'deny', reason: 'nothing is written under vendor/' } : undefined),
 * }))
 */
export function defineHook(spec: HookSpec): PluginHook {
  const fail = (what: string, got: unknown): never => {
    throw new ToolhostError('E_SCHEMA_INVALID', `defineHook: ${what}; got ${describeValue(got)}`)
  }
  if (typeof spec !== 'object' || spec === null) fail('expected a hook spec object', spec)
  if (typeof spec.name !== 'string' || !HOOK_NAME_PATTERN.test(spec.name)) fail('`name` must be 1 to 128 characters without control characters (denials and the audit log name the hook by it)', spec.name)
  const at = `hook "${spec.name}"`
  if (spec.event !== 'before_call' && spec.event !== 'after_call') fail(`${at}: \`event\` must be "before_call" or "after_call"`, spec.event)
  const tools: unknown = spec.tools
  const isName = (v: unknown): boolean => typeof v === 'string' && v !== ''
  if (!(isName(tools) || (Array.isArray(tools) && tools.length > 0 && tools.every(isName)))) fail(`${at}: \`tools\` must be a tool name or glob, or a non-empty list of them`, tools)
  if (typeof spec.run !== 'function') fail(`${at}: \`run\` must be a function`, spec.run)
  if (spec.timeoutMs !== undefined && !(Number.isInteger(spec.timeoutMs) && spec.timeoutMs >= 1)) fail(`${at}: \`timeoutMs\` must be an integer ≥ 1`, spec.timeoutMs)
  return {
    kind: 'hook',
    event: spec.event,
    name: spec.name,
    tools: typeof spec.tools === 'string' ? spec.tools : [...spec.tools],
    run: spec.run,
    ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
  }
}
