import path from 'node:path'
import { declaredScope } from '../dispatch/admit/footprint.js'
import { describeThrown } from '../contract/errors.js'
import { canonicalPath, comparablePath, isWithin, relativeToRoot } from '../workspace/paths.js'
import { analyseCommand } from '../shell/analyse-command.js'
import type { Deletion } from '../shell/deleting-commands.js'
import type { Access, AnyTool, BehaviourContext } from '../contract/types.js'
import { canonicalJson } from './canonical-json.js'

/** One path a call touches, in the forms rules are matched against. */
export interface PathSubject {
  /** Root-relative with `/` separators (`.env`, `src/a.ts`); undefined when outside the root. */
  relative: string | undefined
  /** The canonical absolute path with `/` separators. */
  absolute: string
  access: Access
}

/**
 * What a call's rule patterns are matched against:
 * - `paths`: a path-scoped tool — every path it touches (from `scope(args)`, else `args.path`), canonical;
 * - `command`: a tool with a string `command` argument (the terminal) — the command and every command a
 *   shell parse says it runs;
 * - `value`: any other tool — its single string argument, else the canonical JSON of its arguments.
 */
export type CallSubject =
  | { kind: 'paths'; paths: PathSubject[]; keys: { key: string; access: Access }[]; unresolved: string | undefined }
  | {
      kind: 'command'
      /** The command line, whitespace squeezed. */
      command: string
      /** Every command it runs, from a shell parse (`analyseCommand`): quotes, paths and wrappers resolved. */
      segments: string[]
      /** The line split at `;`, `&&`, `|`, … as written: deny and ask rules also match these (defence in depth). */
      written: string[]
      /** Substitution or a redirection into a file: an allow pattern never covers it. */
      hasSubstitution: boolean
      /** The commands it runs that delete files: a deny or ask rule written as an `rm` command names them all. */
      deletions: Deletion[]
      /** Why it cannot be judged before it runs: then every deny/ask pattern of the tool matches it, no allow pattern does. */
      unresolved: string | undefined
    }
  | { kind: 'value'; value: string }

export interface SubjectContext {
  root: string
  caseInsensitive: boolean
  /** The tool is path-scoped (declared, or named in `dispatch.path_scoped`). */
  pathScoped: boolean
}

/**
 * Works out a call's rule subject from its validated arguments. Paths go through `canonicalPath`, so
 * `src/../.env`, `./.env`, an absolute path to it and a symlink to it are all `.env`.
 *
 * @example
 * subjectOf(writeFile, { path: 'src/../.env' }, { root, caseInsensitive: false, pathScoped: true })
 * // { kind: 'paths', paths: [{ relative: '.env', absolute: `${root}/.env`, access: 'write' }], … }
 * `sorted`: `args` is a snapshot (`snapshotArgs`), so its JSON is canonical as it is.
 */
export function subjectOf(tool: AnyTool, args: Record<string, unknown>, context: SubjectContext, sorted = false): CallSubject {
  if (context.pathScoped) return pathSubject(tool, args, context)
  if (typeof args.command === 'string') return commandSubject(args.command)
  const keys = Object.keys(args)
  if (keys.length === 1 && typeof args[keys[0]!] === 'string') return { kind: 'value', value: args[keys[0]!] as string }
  // `sorted`: the arguments are a snapshot (keys sorted at every depth), already canonical.
  return { kind: 'value', value: sorted ? (JSON.stringify(args) ?? 'null') : canonicalJson(args) }
}

/** The strings that identify a subject (a session approval remembers these). */
export function subjectKeys(subject: CallSubject): string[] {
  switch (subject.kind) {
    case 'paths':
      return [...subject.paths.map((p) => `path:${p.absolute}`), ...subject.keys.map((k) => `key:${k.key}`), ...(subject.unresolved ? [`unresolved:${subject.unresolved}`] : [])]
    case 'command':
      return [`command:${subject.command}`]
    case 'value':
      return [`value:${subject.value}`]
  }
}

/** A short form for prompts and the audit log: the paths, the command, or the value. */
export function describeSubject(subject: CallSubject): string {
  switch (subject.kind) {
    case 'paths':
      if (subject.unresolved) return `(paths unknown: ${subject.unresolved})`
      return [...subject.paths.map((p) => p.relative ?? p.absolute), ...subject.keys.map((k) => `resource ${k.key}`)].join(', ')
    case 'command':
      return subject.command
    case 'value':
      return subject.value
  }
}

function pathSubject(tool: AnyTool, args: Record<string, unknown>, context: SubjectContext): CallSubject {
  const unresolved = (why: string): CallSubject => ({ kind: 'paths', paths: [], keys: [], unresolved: why })
  // The same reading of the call's paths as the scheduler's (scope, else path and paths).
  const entries = declaredScope(tool, args, () => safeReadOnly(tool, args, { root: context.root }))
  if (!Array.isArray(entries)) return unresolved(`the call ${entries.unknown}`)
  const root = comparablePath(context.root, context.caseInsensitive)
  const paths: PathSubject[] = []
  const keys: { key: string; access: Access }[] = []
  for (const entry of entries) {
    const access: Access = entry.access === 'read' ? 'read' : 'write'
    if ('key' in entry) {
      keys.push({ key: String(entry.key), access })
      continue
    }
    let canonical: string
    try {
      canonical = canonicalPath(entry.path, context.root)
    } catch (error) {
      return unresolved(`a path could not be resolved: ${describeThrown(error)}`)
    }
    const inside = isWithin(comparablePath(canonical, context.caseInsensitive), root)
    paths.push({ relative: inside ? relativeToRoot(canonical, context.root) : undefined, absolute: canonical.split(path.sep).join('/'), access })
  }
  return { kind: 'paths', paths, keys, unresolved: undefined }
}

// Shell operators that chain commands, as written.
const CHAIN = /&&|\|\||[;|&\n]/

function commandSubject(raw: string): CallSubject {
  const analysis = analyseCommand(raw)
  const written = raw.split(CHAIN).map(squash).filter((s) => s !== '')
  return { kind: 'command', command: squash(raw), segments: analysis.commands.map(squash), written, hasSubstitution: analysis.opaque, deletions: analysis.deletions, unresolved: analysis.unresolved }
}

function squash(text: string): string {
  return text.trim().replace(/\s+/g, ' ')
}

/** `readOnly(args, { root })` that fails safe: a throw means "not read-only". */
export function safeReadOnly(tool: AnyTool, args: Record<string, unknown>, context: BehaviourContext): boolean {
  try {
    return tool.readOnly(args, context) === true
  } catch {
    return false
  }
}

/** `destructive(args, { root })` that fails safe: a throw means "destructive". */
export function safeDestructive(tool: AnyTool, args: Record<string, unknown>, context: BehaviourContext): boolean {
  try {
    return tool.destructive(args, context) === true
  } catch {
    return true
  }
}
