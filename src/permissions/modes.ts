import { planModeMessage as planModeFor } from '../contract/messages.js'
import type { PermissionMode } from '../config/types.js'
import type { CallSubject } from './subjects.js'

/**
 * What each permission mode lets run without asking (the demo prints it; docs/permissions.md has the table).
 *
 * @example
 * PERMISSION_MODES['accept-edits'] // 'read-only calls and file edits inside the workspace run; every other call asks'
 */
export const PERMISSION_MODES: Readonly<Record<PermissionMode, string>> = {
  ask: 'read-only calls run; every other call asks',
  'accept-edits': 'read-only calls and file edits inside the workspace run; every other call asks',
  auto: 'every call runs except destructive ones, which ask',
  plan: 'only read-only calls run; every other call is denied',
  bypass: 'every call runs without asking (deny rules and tools that refuse still apply)',
}

/** What the decision needs to know about a call, worked out once from its final arguments. */
export interface CallFacts {
  readOnly: boolean
  destructive: boolean
  /** A file edit inside the root (see `isEditCall`). */
  edit: boolean
}

/**
 * A file edit, for `accept-edits`: a call of a path-scoped tool (not the terminal) that is not
 * destructive, whose paths could all be worked out, which writes at least one path, and every path of
 * which lies inside the workspace root. Named resource keys (processes, services) are not edits.
 *
 * @example
 * isEditCall('write_file', { kind: 'paths', paths: [{ relative: 'src/a.ts', absolute: '/w/src/a.ts', access: 'write' }], keys: [], unresolved: undefined }, false) // true
 */
export function isEditCall(toolName: string, subject: CallSubject, destructive: boolean): boolean {
  if (toolName === 'terminal' || destructive || subject.kind !== 'paths') return false
  if (subject.unresolved !== undefined || subject.keys.length > 0 || subject.paths.length === 0) return false
  return subject.paths.some((p) => p.access === 'write') && subject.paths.every((p) => p.relative !== undefined)
}

/** The mode's answer for a call no rule, session approval or tool has settled. */
export function modeDefault(mode: PermissionMode, facts: CallFacts, toolName: string): { outcome: 'allow' | 'ask' | 'deny'; reason: string } {
  if (facts.readOnly) return { outcome: 'allow', reason: `${toolName} is read-only for these arguments (mode ${mode})` }
  switch (mode) {
    case 'bypass':
      return { outcome: 'allow', reason: 'permission mode bypass runs every call' }
    case 'auto':
      return { outcome: 'allow', reason: 'permission mode auto runs every call that is not destructive' }
    case 'accept-edits':
      return facts.edit
        ? { outcome: 'allow', reason: 'a file edit inside the workspace (mode accept-edits)' }
        : { outcome: 'ask', reason: `${toolName} is not read-only and not a file edit inside the workspace (mode accept-edits)` }
    case 'plan':
      return { outcome: 'deny', reason: planModeMessage(toolName) }
    case 'ask':
      return { outcome: 'ask', reason: `${toolName} is not read-only for these arguments (mode ask)` }
  }
}

/** Why a call that is not read-only does not run in plan mode, and what to do instead (for the CLI's reader). */
export function planModeMessage(toolName: string): string {
  return planModeFor(toolName, 'person')
}
