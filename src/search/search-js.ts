// The JavaScript engine: the walk of walk-tree.ts, each file read through the wall, lines matched on
// the linear-time engine. Fast where it can be: a file without the pattern's literal is passed over
// on its bytes, a chunk of lines without a match is passed over at once, and a long search yields to
// the event loop every few ms so other calls run (an aborted call stops there).
import path from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { ToolhostError } from '../contract/errors.js'
import type { ResolvedPath } from '../workspace/resolve-in-root.js'
import type { Workspace } from '../workspace/workspace.js'
import { passesGlob, type CompiledSearch } from './compile-search.js'
import { MAX_FILE_BYTES } from './search-limits.js'
import { Findings } from './findings.js'
import type { SearchOutcome, SearchRequest } from './search-types.js'
import { walkTree } from './walk-tree.js'

// Lines tested at once by the whole-chunk test, and work between two turns of the event loop.
const CHUNK_LINES = 256
const SLICE_MS = 10
// Files being read ahead of the one searched (each at most MAX_FILE_BYTES in memory).
const PREFETCH = 8

/**
 * Searches with the JavaScript engine.
 *
 * @example
 * await searchWithJs(ws, request, compileSearch(request, ws.caseInsensitive))
 */
export async function searchWithJs(ws: Workspace, request: SearchRequest, compiled: CompiledSearch): Promise<SearchOutcome> {
  const pace = pacer(request.signal)
  const found = new Findings(request.maxResults)
  let filesSearched = 0
  // Reads started ahead of the search, in walk order: a read through the wall is several round
  // trips to the thread pool, so files are read PREFETCH at a time and searched one by one.
  const reads: { file: ResolvedPath; bytes: Promise<Buffer | undefined> }[] = []
  let going = true
  const searchNext = async (): Promise<void> => {
    const next = reads.shift()!
    const bytes = await next.bytes
    if (going && bytes !== undefined) going = await searchContent(next.file, bytes, compiled, found, pace)
  }
  const visit = async (file: ResolvedPath): Promise<boolean> => {
    const fromStart = path.relative(request.start.path, file.path).split(path.sep).join('/') || path.basename(file.path)
    if (!passesGlob(compiled, fromStart)) return true
    filesSearched++
    await pace()
    if (request.target === 'files') return compiled.line.test(file.relative) ? found.add(file.relative) : true
    // Vanished, swapped or unreadable since it was listed: skipped.
    reads.push({ file, bytes: ws.readFile(file).catch(() => undefined) })
    if (reads.length >= PREFETCH) await searchNext()
    return going
  }
  await walkTree(ws, request.start, visit, request.signal)
  while (going && reads.length > 0) await searchNext()
  return { lines: found.lines, more: found.more, filesSearched, engine: 'javascript' }
}

async function searchContent(file: ResolvedPath, bytes: Buffer, compiled: CompiledSearch, found: Findings, pace: () => Promise<void>): Promise<boolean> {
  if (bytes.length > MAX_FILE_BYTES || bytes.subarray(0, 8192).includes(0)) return true
  if (compiled.literal !== undefined && !bytes.includes(compiled.literal.bytes)) return true
  const text = bytes.toString('utf8')
  const lines = text.split('\n')
  if (text.includes('\r')) for (let i = 0; i < lines.length; i++) if (lines[i]!.endsWith('\r')) lines[i] = lines[i]!.slice(0, -1)
  const literal = compiled.literal?.text
  for (let from = 0; from < lines.length; from += CHUNK_LINES) {
    const to = Math.min(lines.length, from + CHUNK_LINES)
    await pace()
    if (literal === undefined && compiled.chunk !== undefined && !compiled.chunk.test(lines.slice(from, to).join('\n'))) continue
    for (let i = from; i < to; i++) {
      const line = lines[i]!
      if (literal !== undefined && !line.includes(literal)) continue
      if (!compiled.line.test(line)) continue
      if (!found.addLine(file.relative, i + 1, line)) return false
    }
  }
  return true
}

// Yields to the event loop once SLICE_MS of work has passed since the last turn; an aborted call
// (timeout, interrupt) stops here.
function pacer(signal: AbortSignal): () => Promise<void> {
  let since = performance.now()
  return async () => {
    if (performance.now() - since < SLICE_MS) return
    await nextTurn()
    since = performance.now()
    if (signal.aborted) throw new ToolhostError('E_INTERRUPTED', 'search_files was stopped (it ran out of time or was interrupted)')
  }
}
