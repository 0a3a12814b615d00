/**
 * `toolhost/workspace`: what a file tool needs beyond the plugin API, the helpers the built-in
 * `read_file`, `write_file`, `patch` and `search_files` use. The wall of a handler's root
 * (`workspaceFor(ctx)`: resolve, read and write inside the root, off the deny list), the path form
 * footprints use, the text edits of `patch`, linear-time patterns for input from the model, and the
 * engine of `search_files` (`searchTree`: ripgrep when there is one, else JavaScript).
 *
 * @example
 * import { defineTool, registry } from 'toolhost'
 * import { workspaceFor } from 'toolhost/workspace'
 *
 * registry.register(defineTool<{ path: string }>({
 *   name: 'line_count', description: 'Count the lines of a text file.',
 *   parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
 *   handler: async (args, ctx) => {
 *     const ws = workspaceFor(ctx)
 *     return String((await ws.readFile(ws.resolve(args.path, 'read'))).toString('utf8').split('\n').length)
 *   },
 * }))
 */
export { workspaceFor } from './workspace.js'
export type { Workspace, WorkspaceOptions } from './workspace.js'
export type { ResolvedPath } from './resolve-in-root.js'
export type { WriteOutcome } from './atomic-write.js'
export { canonicalPath } from './paths.js'
export { isTempFileName } from './temp-file-names.js'
export { replaceExact } from './edit-text.js'
export type { Replacement } from './edit-text.js'
export { applyHunks, parseUnifiedDiff } from './unified-diff.js'
export type { FilePatch, Hunk, HunkLine } from './unified-diff.js'
export { compileLinearGlob, compileLinearRegex, LINEAR_REGEX_SYNTAX } from '../patterns/linear-regex.js'
export type { LinearRegex, LinearRegexOptions } from '../patterns/linear-regex.js'
export { searchTree } from '../search/search-tree.js'
export type { SearchTreeOptions } from '../search/search-tree.js'
export { chooseSearchEngine } from '../search/find-ripgrep.js'
export type { SearchEngine, SearchEngineKind, SearchOutcome, SearchRequest } from '../search/search-types.js'
