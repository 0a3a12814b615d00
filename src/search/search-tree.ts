// search_files' engine, whichever runs: the pattern and glob checked on the linear-time engine
// first (the errors the model reads, the complexity bound), then ripgrep when there is one (a single
// file, or no ripgrep, goes to the JavaScript engine). Both give the same lines in the same order.
import type { Workspace } from '../workspace/workspace.js'
import { compileSearch } from './compile-search.js'
import { chooseSearchEngine, markRipgrepBroken } from './find-ripgrep.js'
import { searchWithJs } from './search-js.js'
import { searchWithRipgrep } from './search-ripgrep.js'
import { RipgrepUnavailable } from './run-ripgrep.js'
import type { SearchEngine, SearchOutcome, SearchRequest } from './search-types.js'
import { kindOf } from './walk-tree.js'

/** What `searchTree` needs besides the request. */
export interface SearchTreeOptions {
  /** `workspace.deny` as configured (the wall applies it either way; ripgrep skips plain patterns itself). */
  readonly deny: readonly string[]
  /** The engine to use; default `chooseSearchEngine()`'s. */
  readonly engine?: SearchEngine
}

/**
 * Searches the workspace for `request`'s pattern: lines of files (`file:line: text`) or file
 * paths, in walk order (names sorted in each folder, depth first), at most `maxResults` of them.
 * Throws E_ARGS_INVALID for a pattern or glob it does not accept, E_NOT_FOUND for a missing start,
 * E_INTERRUPTED when the signal aborts (ripgrep ended, nothing left running).
 *
 * @example
 * const ws = workspaceFor(ctx)
 * const found = await searchTree(ws, { start: ws.resolve('src', 'read'), pattern: 'TODO', ignoreCase: false, target: 'content', glob: undefined, maxResults: 200, signal: ctx.call.signal }, { deny: ctx.settings.config.workspace.deny })
 */
export async function searchTree(ws: Workspace, request: SearchRequest, options: SearchTreeOptions): Promise<SearchOutcome> {
  const compiled = compileSearch(request, ws.caseInsensitive)
  // A single file: ripgrep would search it even if binary (it searches named files whole).
  if ((await kindOf(request.start)) === 'file') return searchWithJs(ws, request, compiled)
  const engine = options.engine ?? (await chooseSearchEngine())
  if (engine.kind === 'javascript') return searchWithJs(ws, request, compiled)
  try {
    return await searchWithRipgrep(ws, request, compiled, { binary: engine.binary, deny: options.deny })
  } catch (error) {
    if (!(error instanceof RipgrepUnavailable)) throw error
    markRipgrepBroken(error.message)
    return searchWithJs(ws, request, compiled)
  }
}
