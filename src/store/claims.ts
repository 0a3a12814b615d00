import type { Access } from '../contract/types.js'
import { pathsOverlap } from '../workspace/paths.js'

/** One thing a claim touches (the scheduler's `Touch`): a comparable canonical path, or `key:<name>`. */
export interface ClaimTouch {
  readonly target: string
  /** For messages: the path relative to the root, or `resource <key>`. */
  readonly label: string
  readonly isKey: boolean
  readonly access: Access
}

/**
 * What a call reserves across hosts: everything (a barrier: a never-parallel tool, or a footprint
 * that cannot be known), nothing but the absence of barriers (free), or paths and keys (scoped).
 * The scheduler's `Footprint` is one, as it is.
 */
export type Claim =
  | { readonly kind: 'barrier'; readonly reason: string }
  | { readonly kind: 'free' }
  | { readonly kind: 'scoped'; readonly touches: readonly ClaimTouch[] }

/**
 * Why a claim must wait for another host's claim `held` (its call `heldCall` on host `host`), or
 * undefined when they do not conflict: the scheduler's conflict rule, across hosts (barriers conflict
 * with everything; readers share; a writer excludes every overlapping reader and writer).
 *
 * @example
 * claimConflict(writeOfSrc, writeOfSrcA, 'call_3', 'host 4242') // 'writes src/a.ts, which call_3 on host 4242 writes (src)'
 */
export function claimConflict(held: Claim, wanted: Claim, heldCall: string, host: string): string | undefined {
  if (held.kind === 'barrier') return `${heldCall} on ${host} runs alone (${held.reason})`
  if (wanted.kind === 'barrier') return `this call runs alone (${wanted.reason}) and ${heldCall} on ${host} is running`
  if (held.kind === 'free' || wanted.kind === 'free') return undefined
  for (const a of wanted.touches) {
    for (const b of held.touches) {
      if (a.access === 'read' && b.access === 'read') continue
      const overlap = a.isKey || b.isKey ? a.target === b.target : pathsOverlap(a.target, b.target)
      if (overlap) return `${verb(a.access)} ${a.label}, which ${heldCall} on ${host} ${verb(b.access)}${b.label === a.label ? ' too' : ` (${b.label})`}`
    }
  }
  return undefined
}

function verb(access: Access): string {
  return access === 'read' ? 'reads' : 'writes'
}

/**
 * Marks a tool whose calls delegate to another server (an MCP server's tools): such a call claims
 * nothing across hosts. The server claims what it touches itself when it is a host of the same root,
 * and a call of this host waiting on its own call there would wait for good.
 */
export const DELEGATES = Symbol.for('toolhost.delegates')

/**
 * True unless the tool delegates its calls to another server (`DELEGATES`).
 *
 * @example
 * claimsAcrossHosts(registry.get('mcp_files_read')!) // false
 */
export function claimsAcrossHosts(tool: object): boolean {
  return (tool as Record<symbol, unknown>)[DELEGATES] !== true
}
