import type { ResolvedPath } from '../workspace/resolve-in-root.js'

/** One search of the workspace, its arguments checked (`start` resolved through the wall). */
export interface SearchRequest {
  /** The folder (or file) to search, resolved for reading. */
  readonly start: ResolvedPath
  /** The model's pattern, in the RE2 syntax the schema describes. */
  readonly pattern: string
  /** Letters match regardless of case (`ignore_case`). */
  readonly ignoreCase: boolean
  /** `content` matches lines of files; `files` matches root-relative file paths. */
  readonly target: 'content' | 'files'
  /** Only files whose path relative to `start` (or whose name, for a glob without "/") matches. */
  readonly glob: string | undefined
  /** At most this many lines; one more found makes `more` true and stops the search. */
  readonly maxResults: number
  /** Ends the search at once (timeout, interrupt); the search then rejects with E_INTERRUPTED. */
  readonly signal: AbortSignal
}

/** What a search found, in walk order (names sorted in each folder, depth first; lines in order). */
export interface SearchOutcome {
  /** `file:line: text` (content) or `file` (files), paths relative to the root. */
  readonly lines: string[]
  /** At least one match beyond `maxResults` exists. */
  readonly more: boolean
  /** Files the search looked at, when the engine says. */
  readonly filesSearched: number | undefined
  /** The engine that answered. */
  readonly engine: SearchEngineKind
}

/** Which engine answered a search. */
export type SearchEngineKind = 'ripgrep' | 'javascript'

/** The engine `search_files` runs (see `chooseSearchEngine`), as `doctor` reports it. */
export type SearchEngine =
  | { readonly kind: 'ripgrep'; readonly binary: string; readonly source: '@vscode/ripgrep' | 'PATH'; readonly version: string }
  | { readonly kind: 'javascript'; readonly reason: string }
