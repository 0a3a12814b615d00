import { ToolhostError } from '../contract/errors.js'
import { MAX_LINE_BYTES, readLogLines, type LogTail } from './log-file.js'
import type { LineRange, LogPage, NumberedLine } from '../contract/process-service.js'

export const DEFAULT_LOG_LINES = 200
export const MAX_LOG_LINES = 5000

/**
 * Lines `offset`..`offset + limit - 1` (1-based) of a followed log; without `offset`, the last
 * `limit` lines. Lines still in the rolling buffer come from memory, older ones from the file
 * (scanning from the nearest mark), and the page says which came from where, and why the log
 * itself may be short (`logProblem`: it could not grow, or be read).
 *
 * @example
 * await pageLog('proc_1', tail, { offset: 1, limit: 50 })
 */
export async function pageLog(id: string, tail: LogTail, page: { offset?: number; limit?: number }, logProblem?: string): Promise<LogPage> {
  const limit = page.limit ?? DEFAULT_LOG_LINES
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LOG_LINES) throw new ToolhostError('E_ARGS_INVALID', `limit must be an integer from 1 to ${MAX_LOG_LINES}, got ${String(limit)}`)
  if (page.offset !== undefined && (!Number.isInteger(page.offset) || page.offset < 1)) throw new ToolhostError('E_ARGS_INVALID', `offset is a 1-based line number, got ${String(page.offset)}`)
  await tail.catchUp().catch(() => {})
  const buffer = tail.buffer
  const totalLines = buffer.lineCount
  const from = page.offset ?? Math.max(1, totalLines - limit + 1)
  const to = Math.min(totalLines, from + limit - 1)
  const firstLineInMemory = buffer.firstLineInMemory
  const memory = buffer.lines(Math.max(from, firstLineInMemory), to).map(capLine)
  let file: NumberedLine[] = []
  if (from < firstLineInMemory && from <= to) {
    try {
      file = await readLogLines(tail.file, from, Math.min(to, firstLineInMemory - 1), tail.markBefore(from))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  const fileEnd = file.at(-1)?.n ?? from - 1
  const missingTo = Math.min(to, firstLineInMemory - 1)
  return {
    id,
    from,
    to,
    totalLines,
    firstLineInMemory,
    lines: [...file, ...memory],
    fromMemory: rangeOf(memory),
    fromFile: rangeOf(file),
    missing: fileEnd < missingTo ? { from: fileEnd + 1, to: missingTo } : null,
    ...(logProblem === undefined ? {} : { logProblem }),
  }
}

function capLine(line: NumberedLine): NumberedLine {
  if (line.text.length <= MAX_LINE_BYTES) return line
  return { n: line.n, text: `${line.text.slice(0, MAX_LINE_BYTES)}… [line cut: ${line.text.length - MAX_LINE_BYTES} more characters]` }
}

function rangeOf(lines: NumberedLine[]): LineRange | null {
  return lines.length === 0 ? null : { from: lines[0]!.n, to: lines.at(-1)!.n }
}
