import { describeThrown } from '../../contract/errors.js'
import { canonicalPath, comparablePath, isWithin, pathsOverlap, relativeToRoot } from '../../workspace/paths.js'
import type { Access, AnyTool, ScopeEntry } from '../../contract/types.js'
import type { NameSet } from './name-matcher.js'

/** One thing a call touches, in comparable canonical form. */
export interface Touch {
  /** Comparable canonical path, or `key:<name>` for a named resource. */
  target: string
  /** For messages: the path relative to the root, or the key. */
  label: string
  isKey: boolean
  access: Access
}

/**
 * What a call touches, computed from its validated arguments before it is scheduled:
 * `barrier` runs alone; `free` conflicts with no one but barriers; `scoped` conflicts through paths.
 */
export type Footprint =
  | { kind: 'barrier'; reason: string }
  | { kind: 'free' }
  | { kind: 'scoped'; touches: Touch[] }

/** The global behaviour sets from config (`dispatch.*`, names or globs); they win over what a tool declares. */
export interface BehaviourSets {
  parallelSafe: NameSet
  neverParallel: NameSet
  pathScoped: NameSet
}

export interface FootprintContext {
  root: string
  caseInsensitive: boolean
  sets: BehaviourSets
}

/**
 * Computes a call's footprint. Unknown means serial: a tool that is neither parallel-safe nor
 * path-scoped is a barrier, and so is a call whose paths cannot be worked out.
 *
 * The config sets win over what the tool declares (the person running the host knows their tools):
 * `never_parallel`, then `path_scoped`, then `parallel_safe`; only a tool named in none of them is
 * judged by its own declarations.
 *
 * @example
 * computeFootprint(readFile, { path: 'src/a.ts' }, { root: '/w', caseInsensitive: false, sets })
 * // { kind: 'scoped', touches: [{ target: '/w/src/a.ts', label: 'src/a.ts', isKey: false, access: 'read' }] }
 */
export function computeFootprint(tool: AnyTool, args: Record<string, unknown>, context: FootprintContext): Footprint {
  const { sets } = context
  if (sets.neverParallel.has(tool.name)) return { kind: 'barrier', reason: `${tool.name} is never-parallel (config dispatch.never_parallel)` }
  if (sets.pathScoped.has(tool.name)) return scopedFootprint(tool, args, context)
  if (sets.parallelSafe.has(tool.name)) return { kind: 'free' }
  if (tool.neverParallel) return { kind: 'barrier', reason: `${tool.name} is never-parallel` }
  if (tool.changesContext) return { kind: 'barrier', reason: `${tool.name} changes session context` }
  // A tool built without defineTool may declare `scope` alone: it is path-scoped all the same.
  if (tool.pathScoped || tool.scope !== undefined) return scopedFootprint(tool, args, context)
  if (tool.parallelSafe) return { kind: 'free' }
  return { kind: 'barrier', reason: `${tool.name} is neither parallel-safe nor path-scoped, so it runs alone` }
}

/** Who decided a tool's kind of footprint: the tool's own declarations, config `dispatch.*`, or the default. */
export interface FootprintOrigin {
  by: 'tool' | 'config' | 'default'
  /** The declaration or key that decided it, e.g. "scope(args)", "dispatch.parallel_safe". */
  detail: string
}

/**
 * Where a tool's footprint comes from, by the same precedence `computeFootprint` applies (for
 * `explain`, so an author sees whether their declarations were used).
 *
 * @example
 * footprintOrigin(patchTool, sets) // { by: 'tool', detail: 'scope(args)' }
 * footprintOrigin(shellTool, sets) // { by: 'default', detail: 'declares neither parallelSafe nor pathScoped: runs alone' }
 */
export function footprintOrigin(tool: AnyTool, sets: BehaviourSets): FootprintOrigin {
  if (sets.neverParallel.has(tool.name)) return { by: 'config', detail: 'dispatch.never_parallel' }
  if (sets.pathScoped.has(tool.name)) return { by: 'config', detail: `dispatch.path_scoped, ${tool.scope ? 'scope(args)' : 'args.path and args.paths'}` }
  if (sets.parallelSafe.has(tool.name)) return { by: 'config', detail: 'dispatch.parallel_safe' }
  if (tool.neverParallel) return { by: 'tool', detail: 'neverParallel' }
  if (tool.changesContext) return { by: 'tool', detail: 'changesContext' }
  if (tool.scope !== undefined) return { by: 'tool', detail: 'scope(args)' }
  if (tool.pathScoped) return { by: 'tool', detail: 'pathScoped: args.path and args.paths, read when readOnly(args) says so' }
  if (tool.parallelSafe) return { by: 'tool', detail: 'parallelSafe' }
  return { by: 'default', detail: 'declares neither parallelSafe nor pathScoped: runs alone' }
}

/**
 * What a path-scoped call touches, as its tool declares it: `scope(args)`, else its `path` and
 * `paths` arguments (read when `isRead()` says so, else written); or why it cannot be said. The one
 * reading of a call's paths, for the scheduler (footprints) and the permission system (rule subjects)
 * alike, so a rule sees every path the scheduler reserves.
 *
 * @example
 * declaredScope(tool, { path: 'a', paths: ['b'] }, () => false) // [{ path: 'a', access: 'write' }, { path: 'b', access: 'write' }]
 */
export function declaredScope(tool: AnyTool, args: Record<string, unknown>, isRead: () => boolean): ScopeEntry[] | { unknown: string } {
  try {
    if (tool.scope) {
      const entries = tool.scope(args)
      return Array.isArray(entries) && entries.length > 0 ? entries : { unknown: 'declared no scope for this call' }
    }
    const paths = [args.path, ...(Array.isArray(args.paths) ? args.paths : [])].filter((p): p is string => typeof p === 'string' && p !== '')
    if (paths.length === 0) return { unknown: 'has no usable `path` or `paths`' }
    const access = isRead() ? 'read' : 'write'
    return paths.map((path) => ({ path, access }))
  } catch (error) {
    return { unknown: `scope could not be computed (${describeThrown(error)})` }
  }
}

function scopedFootprint(tool: AnyTool, args: Record<string, unknown>, context: FootprintContext): Footprint {
  const entries = declaredScope(tool, args, () => tool.readOnly(args))
  if (!Array.isArray(entries)) {
    return { kind: 'barrier', reason: `${tool.name} is path-scoped but ${entries.unknown}, so it runs alone` }
  }
  const touches: Touch[] = []
  for (const entry of entries) {
    const access: Access = entry.access === 'read' ? 'read' : 'write'
    if ('key' in entry) {
      touches.push({ target: `key:${entry.key}`, label: `resource ${entry.key}`, isKey: true, access })
      continue
    }
    try {
      const canonical = canonicalPath(entry.path, context.root)
      touches.push({ target: comparablePath(canonical, context.caseInsensitive), label: relativeToRoot(canonical, context.root), isKey: false, access })
    } catch (error) {
      return { kind: 'barrier', reason: `${tool.name}'s path could not be resolved (${describeThrown(error)}), so it runs alone` }
    }
  }
  return { kind: 'scoped', touches }
}

/**
 * Why `later` must wait for `earlier`, or undefined when they do not conflict. Barriers conflict
 * with everything; readers share; a writer excludes every overlapping reader and writer.
 *
 * @example
 * conflictReason(writeOfSrcA, readOfSrc, 'call_1') // 'reads src, which call_1 writes (src/a.ts)'
 * conflictReason(readOfSrc, readOfSrc, 'call_1')   // undefined: readers share
 */
export function conflictReason(earlier: Footprint, later: Footprint, earlierId: string): string | undefined {
  if (earlier.kind === 'barrier') return `${earlierId} runs alone (${earlier.reason})`
  if (later.kind === 'barrier') return `this call runs alone (${later.reason})`
  if (earlier.kind === 'free' || later.kind === 'free') return undefined
  for (const a of later.touches) {
    for (const b of earlier.touches) {
      if (a.access === 'read' && b.access === 'read') continue
      const overlap = a.isKey || b.isKey ? a.target === b.target : pathsOverlap(a.target, b.target)
      if (overlap) return `${verb(a.access)} ${a.label}, which ${earlierId} ${verb(b.access)} ${b.label === a.label ? 'too' : `(${b.label})`}`
    }
  }
  return undefined
}

/**
 * True when a call holding `reserved` may run with `actual` instead without conflicting with anything
 * `reserved` did not already conflict with: a barrier covers everything; `free` is covered by any
 * footprint; each path or key of `actual` must lie within one of `reserved` with at least its access.
 * (A call's place in the schedule is taken with its first footprint; a permission check that changes
 * its arguments may narrow what it touches, never widen it.)
 *
 * @example
 * footprintCovers(writeOfSrc, readOfSrcA) // true
 * footprintCovers(readOfSrcA, writeOfSrcA) // false
 */
export function footprintCovers(reserved: Footprint, actual: Footprint): boolean {
  if (reserved.kind === 'barrier' || actual.kind === 'free') return true
  if (actual.kind === 'barrier' || reserved.kind === 'free') return false
  return actual.touches.every((a) =>
    reserved.touches.some((r) => (r.access === 'write' || a.access === 'read') && (a.isKey || r.isKey ? a.target === r.target : isWithin(a.target, r.target))),
  )
}

/**
 * True when the call only reads (free, or scoped with reads only): "concurrency-safe" in partition mode.
 *
 * @example
 * isConcurrencySafe({ kind: 'free' }) // true
 */
export function isConcurrencySafe(footprint: Footprint): boolean {
  return footprint.kind === 'free' || (footprint.kind === 'scoped' && footprint.touches.every((t) => t.access === 'read'))
}

function verb(access: Access): string {
  return access === 'read' ? 'reads' : 'writes'
}
