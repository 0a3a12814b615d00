import { describeThrown } from '../contract/errors.js'
import { redactEnvValues } from './redact-env.js'
import type { AnyTool, Availability, AvailabilityContext } from '../contract/types.js'

/** How the registry runs the tools' `check`s when it lists them: the time each may take, the environment, whether a person can be asked. */
export interface AvailabilityOptions {
  /** Upper bound on one `check`; a slower check hides its tools. Default 2000 ms. */
  checkTimeoutMs?: number
  env?: NodeJS.ProcessEnv
  /** The host asking has an `ask` handler (passed to each `check`; default false, fail closed). */
  canAsk?: boolean
}

type Check = NonNullable<AnyTool['check']>

/** What availability is decided from: a tool, or a prompt's or resource's name, `check` and `requiresEnv`. */
export type Gated = Pick<AnyTool, 'name' | 'check' | 'requiresEnv'>

/**
 * Whether each tool is offered now, and if not, why: its `requiresEnv` variables first, then its
 * `check` (each distinct check runs once, within `checkTimeoutMs`; a throw or a timeout hides its
 * tools). Reasons never show the values of the tool's `requiresEnv` variables.
 *
 * @example
 * await toolAvailability([{ tool: webhook }], { env: {} })
 * // [{ name: 'notify_webhook', available: false, reason: 'missing env var TOOLHOST_WEBHOOK_URL' }]
 */
export async function toolAvailability(entries: readonly { tool: Gated }[], options: AvailabilityOptions): Promise<Availability[]> {
  const env = options.env ?? process.env
  const timeoutMs = options.checkTimeoutMs ?? 2000
  const checks = new Map<Check, Promise<string | undefined> | string | undefined>()
  const missing: (string | undefined)[] = entries.map((e) => missingEnvReason(e.tool, env))
  entries.forEach((e, i) => {
    const check = e.tool.check
    if (check && missing[i] === undefined && !checks.has(check)) checks.set(check, runCheck(check, timeoutMs, { canAsk: options.canAsk ?? false, env }))
  })
  const settled = new Map<Check, string | undefined>()
  for (const [check, outcome] of checks) settled.set(check, await outcome)
  return entries.map((e, i) => {
    const reason = missing[i] ?? (e.tool.check ? settled.get(e.tool.check) : undefined)
    // A check's words may quote what it read (a URL with its token): never show those values.
    return reason === undefined ? { name: e.tool.name, available: true } : { name: e.tool.name, available: false, reason: redactEnvValues(reason, e.tool.requiresEnv, env) }
  })
}

/**
 * Why `tool` is hidden for want of its `requiresEnv` variables in `env`, or undefined when they are
 * all set (synchronous: admission decides env-only tools without waiting).
 *
 * @example
 * missingEnvReason(webhookTool, {}) // 'missing env var TOOLHOST_WEBHOOK_URL'
 */
export function missingEnvReason(tool: Gated, env: NodeJS.ProcessEnv): string | undefined {
  if (tool.requiresEnv.length === 0) return undefined
  const absent = missingEnvVars(tool, env)
  return absent.length > 0 ? `missing env var${absent.length > 1 ? 's' : ''} ${absent.join(', ')}` : undefined
}

/**
 * The `requiresEnv` variables of `tool` that are unset or empty in `env`.
 *
 * @example
 * missingEnvVars(webhookTool, {}) // ['TOOLHOST_WEBHOOK_URL']
 */
export function missingEnvVars(tool: Gated, env: NodeJS.ProcessEnv): string[] {
  // Own keys only: a plain env object inherits `toString`, `constructor`, … from Object.prototype.
  return tool.requiresEnv.filter((name) => !(Object.hasOwn(env, name) && env[name]))
}

/** Runs one availability check; resolves with why it hides its tools, or undefined when it passes. */
function runCheck(check: Check, timeoutMs: number, context: AvailabilityContext): Promise<string | undefined> | string | undefined {
  let value: unknown
  try {
    value = check(context)
  } catch (error) {
    return `check threw: ${describeThrown(error)}`
  }
  try {
    if (!(value instanceof Promise) && (typeof value !== 'object' || value === null || typeof (value as { then?: unknown }).then !== 'function')) {
      return reasonOf(value)
    }
  } catch (error) {
    return unreadable(error) // a Proxy whose `then` throws
  }
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`check took longer than ${timeoutMs} ms`), timeoutMs)
  })
  const outcome = Promise.resolve(value).then(
    reasonOf,
    (error: unknown) => `check threw: ${describeThrown(error)}`,
  )
  return Promise.race([outcome, timeout]).finally(() => clearTimeout(timer))
}

// What a check's answer means: available (undefined), or the reason it hides its tools. Never
// throws: an answer whose getters or Proxy traps throw hides its tools like a throwing check.
function reasonOf(answer: unknown): string | undefined {
  try {
    return readReason(answer)
  } catch (error) {
    return unreadable(error)
  }
}

function unreadable(error: unknown): string {
  return `check returned a value that cannot be read (${describeThrown(error)})`
}

function readReason(answer: unknown): string | undefined {
  if (answer === true) return undefined
  if (typeof answer === 'object' && answer !== null && 'available' in answer) {
    const { available, reason } = answer as { available: unknown; reason?: unknown }
    if (available === true) return undefined
    if (available === false && typeof reason === 'string' && reason.trim() !== '') return reason
  }
  let shown: string
  try {
    shown = JSON.stringify(answer) ?? String(answer)
  } catch {
    shown = String(answer)
  }
  return `check returned ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown}`
}
