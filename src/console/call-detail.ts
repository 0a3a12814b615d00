// What the console shows of a call's arguments and result: bounded in size, secrets blanked out.
import type { ToolResult } from '../contract/types.js'
import type { Host } from '../host/host.js'
import type { CallDetailWriter } from '../observe/call-timeline.js'
import { canonicalJson } from '../permissions/canonical-json.js'
import { redactEnvValues } from '../registry/redact-env.js'

/** The most characters of a call's arguments, and of its result, a page is sent. */
export const DETAIL_CHARS = 4000

/**
 * Writes a call's arguments (canonical JSON) and result (the text its caller read) for the console:
 * the values of every registered tool's `requiresEnv` variables are blanked out first (as the host
 * blanks them out of availability reasons and error messages, `[value of NAME]`), then the text is
 * cut to `DETAIL_CHARS`, saying how much was left out. Which variables count is read per call, so a
 * tool loaded later is covered.
 *
 * @example
 * const timeline = new CallTimeline({ detail: callDetailWriter(host) })
 */
export function callDetailWriter(host: Host, maxChars = DETAIL_CHARS): CallDetailWriter {
  const secretNames = (): string[] => [...new Set(host.registry.list().flatMap((t) => t.requiresEnv))]
  const write = (text: string): string => bound(redactEnvValues(text, secretNames(), host.env), maxChars)
  return {
    arguments: (_tool, args) => write(canonicalJson(args)),
    result: (_tool, result) => write(resultText(result)),
  }
}

function resultText(result: ToolResult): string {
  if (result.ok || result.content !== '') return result.content
  return result.error ? `${result.error.code}: ${result.error.message}` : ''
}

function bound(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  return `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters not shown)`
}
