import { ToolhostError, isToolhostError } from '../contract/errors.js'
import path from 'node:path'
import { canonicalPath, comparablePath, isCaseInsensitiveFs, relativeToRoot } from './paths.js'
import type { Access, ControlPlane, ToolContext } from '../contract/types.js'
import { refuseControlPlane } from './control-plane.js'
import { removeFileInRoot, writeFileAtomic, type WriteOutcome } from './atomic-write.js'
import { compileDenyList, type DenyList } from './deny-list.js'
import { readFileInRoot } from './read-in-root.js'
import { isInsideRoot, outsideRoot, type ResolvedPath } from './resolve-in-root.js'
import { isSavedResultName } from './save-result.js'

/** What a `Workspace` is built with besides its root (`workspaceFor(ctx)` fills them from the call's config and workspace). */
export interface WorkspaceOptions {
  /** `workspace.deny`: globs refused even inside the root. */
  deny?: readonly string[]
  /** `limits.results_dir`: saved full results; readable despite the deny list (never writable). */
  resultsDir?: string
  /** Override the probe of the root's file system. */
  caseInsensitive?: boolean
  /** Use the path-based fallback even where `/proc/self/fd` exists (to test it on Linux). */
  portable?: boolean
  /** What configures or programs the host: never changed through this workspace (`E_CONTROL_PLANE`). */
  controlPlane?: ControlPlane
}

/**
 * The workspace wall for one root: every file tool resolves the model's paths through it, and reads
 * and writes through it, so no path trick (absolute, `..`, `~`, sibling prefix, NUL, symlinks out,
 * symlinks swapped in mid-call) reaches outside the root or into a denied place.
 *
 * @example
 * const ws = workspaceFor(ctx)
 * const file = ws.resolve(args.path, 'write')
 * await ws.writeFile(file, 'hello\n')
 */
export class Workspace {
  readonly root: string
  readonly caseInsensitive: boolean
  readonly #deny: DenyList
  readonly #resultsDir: string | undefined
  readonly #portable: boolean
  readonly #controlPlane: ControlPlane | undefined

  /** `root` must be canonical (the host's `ctx.workspace.root` is). */
  constructor(root: string, options: WorkspaceOptions = {}) {
    this.root = root
    this.caseInsensitive = options.caseInsensitive ?? isCaseInsensitiveFs(root)
    this.#deny = compileDenyList(options.deny ?? [], this.caseInsensitive)
    this.#resultsDir = options.resultsDir
    this.#portable = options.portable ?? false
    this.#controlPlane = options.controlPlane
  }

  /**
   * The canonical path for a model's `input`, or a thrown `ToolhostError`: `E_ARGS_INVALID` (not a
   * string, empty, NUL) or `E_PATH_OUTSIDE_ROOT` (outside the root, or matching `workspace.deny`;
   * reads inside the results folder are exempt from the deny list).
   */
  resolve(input: unknown, access: Access): ResolvedPath {
    const canonical = canonicalWithRetry(input, this.root)
    const text = input as string
    this.recheck(canonical, access, text)
    return { path: canonical, relative: relativeToRoot(canonical, this.root), input: text }
  }

  /** Throws unless the canonical path `canonical` may be accessed (inside the root, not denied). */
  recheck(canonical: string, access: Access, input: string = canonical): void {
    if (!isInsideRoot(canonical, this.root, this.caseInsensitive)) throw outsideRoot(input, this.root)
    if (access === 'read' && this.#isInResults(canonical)) return
    // Before the deny list, so the answer names why whatever workspace.deny says.
    if (access !== 'read') refuseControlPlane(this.#controlPlane, canonical, input, this.caseInsensitive)
    const pattern = this.#deny.match(relativeToRoot(canonical, this.root))
    if (pattern !== undefined) {
      throw new ToolhostError('E_PATH_OUTSIDE_ROOT', `"${input}" is on the workspace deny list (pattern "${pattern}" in workspace.deny); file tools may not ${access === 'read' ? 'read' : 'change'} it`)
    }
  }

  /** True when `relative` (root-relative, `/`-separated) matches `workspace.deny`. */
  isDenied(relative: string): boolean {
    return this.#deny.match(relative) !== undefined
  }

  /** The bytes of a resolved file, proving the opened file is the checked one. */
  readFile(target: ResolvedPath): Promise<Buffer> {
    return readFileInRoot(target, (real) => this.recheck(real, 'read', target.input), this.caseInsensitive, this.#portable)
  }

  /** Writes atomically (temp file + rename), creating folders inside the root. */
  writeFile(target: ResolvedPath, content: string | Uint8Array): Promise<WriteOutcome> {
    this.recheck(target.path, 'write', target.input)
    return writeFileAtomic(this.root, target, content, this.caseInsensitive, this.#portable)
  }

  /** Removes a file (never a folder, never through a symlink). */
  removeFile(target: ResolvedPath): Promise<void> {
    this.recheck(target.path, 'write', target.input)
    return removeFileInRoot(this.root, target, this.caseInsensitive, this.#portable)
  }

  // The exemption covers only files the host saved there (by their names), directly in a results
  // folder that lies inside the root and is reached without any symbolic link: a cloned repository
  // that ships `.toolhost/results` as a link to `../.git`, to the root, or out of it, or a `.env`
  // inside a real one, gets no way past `workspace.deny`.
  #isInResults(canonical: string): boolean {
    if (this.#resultsDir === undefined) return false
    const lexical = path.resolve(this.root, this.#resultsDir)
    let dir: string
    try {
      dir = canonicalPath(this.#resultsDir, this.root)
    } catch {
      return false
    }
    if (comparablePath(dir, this.caseInsensitive) !== comparablePath(lexical, this.caseInsensitive)) return false
    if (!isInsideRoot(dir, this.root, this.caseInsensitive) || dir === this.root) return false
    return comparablePath(path.dirname(canonical), this.caseInsensitive) === comparablePath(dir, this.caseInsensitive) && isSavedResultName(path.basename(canonical))
  }
}

// canonicalPath reads links one at a time; another process changing the tree in between can make
// a step fail (a link gone before it was read). Try again a few times, then give up cleanly.
function canonicalWithRetry(input: unknown, root: string): string {
  for (let attempt = 1; ; attempt++) {
    try {
      return canonicalPath(input, root)
    } catch (error) {
      if (isToolhostError(error)) throw new ToolhostError(error.code, `path: ${error.message}`)
      if (attempt >= 3) {
        throw new ToolhostError('E_NOT_FOUND', `the path "${String(input)}" kept changing while it was being resolved (${(error as Error).message}); try again`)
      }
    }
  }
}

const cache = new WeakMap<object, Map<string, Workspace>>()

/**
 * The `Workspace` of a handler's context (`ctx.workspace`'s root and control plane, `ctx.settings`'
 * `workspace.deny` and `limits.results_dir`), built once per host config and root.
 *
 * @example
 * const readText = defineTool({
 *   name: 'read_text', description: 'Reads a text file of the workspace.',
 *   parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
 *   readOnly: () => true,
 *   handler: async (args, ctx) => {
 *     const ws = workspaceFor(ctx)
 *     return (await ws.readFile(ws.resolve(args.path, 'read'))).toString('utf8')
 *   },
 * })
 */
export function workspaceFor(ctx: { readonly workspace: Pick<ToolContext['workspace'], 'root' | 'controlPlane'>; readonly settings: Pick<ToolContext['settings'], 'config'> }): Workspace {
  // A context made by hand in the old flat shape ({ root, config }) gets a clear error, not a TypeError.
  if (typeof ctx?.workspace?.root !== 'string' || typeof ctx.settings?.config !== 'object') {
    throw new ToolhostError('E_USAGE', 'workspaceFor takes the tool\'s context (or { workspace: { root }, settings: { config } }): the flat { root, config } form is gone; pass ctx itself')
  }
  const { root, controlPlane } = ctx.workspace
  const config = ctx.settings.config
  // Per config object, root and control plane (a host's are fixed for its life).
  let byRoot = cache.get(config)
  if (!byRoot) cache.set(config, (byRoot = new Map()))
  const key = controlPlane === undefined ? root : `${root}\0${controlPlane.paths.join('\0')}\0\0${controlPlane.opened.join('\0')}`
  let workspace = byRoot.get(key)
  if (!workspace) {
    workspace = new Workspace(root, { deny: config.workspace.deny, resultsDir: config.limits.results_dir, ...(controlPlane ? { controlPlane } : {}) })
    byRoot.set(key, workspace)
  }
  return workspace
}
