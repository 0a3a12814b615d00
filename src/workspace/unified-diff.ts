import { ToolhostError } from '../contract/errors.js'

export interface HunkLine {
  kind: ' ' | '-' | '+'
  text: string
}

export interface Hunk {
  oldStart: number
  oldLines: number
  newStart: number
  newLines: number
  lines: HunkLine[]
  /** The old side ends without a newline at end of file ("\ No newline" after a '-' or ' ' line). */
  oldNoEol: boolean
  /** The new side ends without a newline at end of file. */
  newNoEol: boolean
  /** 1-based line of the `@@` header in the diff text, for messages. */
  at: number
}

/** One file of a unified diff. `null` stands for /dev/null (created or deleted file). */
export interface FilePatch {
  oldPath: string | null
  newPath: string | null
  hunks: Hunk[]
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/

/**
 * Parses a unified diff (`diff -u`, `git diff`) into its files and hunks. Paths drop git's `a/` and
 * `b/` prefixes and any timestamp; `/dev/null` becomes `null`. A diff that is not well formed (no
 * file headers, a hunk whose line counts do not add up) is `E_ARGS_INVALID` saying where.
 *
 * @example
 * parseUnifiedDiff('--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-old\n+new\n')[0]!.newPath // 'x.txt'
 */
export function parseUnifiedDiff(diff: string): FilePatch[] {
  const lines = diff.replace(/\r\n/g, '\n').split('\n')
  if (lines.at(-1) === '') lines.pop()
  const files: FilePatch[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (!line.startsWith('--- ') || !lines[i + 1]?.startsWith('+++ ')) {
      if (line.startsWith('@@')) throw invalid(`line ${i + 1}: a hunk (@@ … @@) before any "--- old" / "+++ new" file header`)
      i++
      continue
    }
    const rawOld = headerPath(line.slice(4))
    const rawNew = headerPath(lines[i + 1]!.slice(4))
    const gitStyle = (rawOld === null || rawOld.startsWith('a/')) && (rawNew === null || rawNew.startsWith('b/'))
    const file: FilePatch = {
      oldPath: rawOld !== null && gitStyle ? rawOld.slice(2) : rawOld,
      newPath: rawNew !== null && gitStyle ? rawNew.slice(2) : rawNew,
      hunks: [],
    }
    if (file.oldPath === null && file.newPath === null) throw invalid(`line ${i + 1}: both sides are /dev/null`)
    i += 2
    while (i < lines.length && lines[i]!.startsWith('@@')) {
      const parsed = parseHunk(lines, i)
      file.hunks.push(parsed.hunk)
      i = parsed.next
    }
    if (file.hunks.length === 0) throw invalid(`line ${i}: the file ${file.newPath ?? file.oldPath} has a header but no hunks`)
    files.push(file)
  }
  if (files.length === 0) throw invalid('no file headers ("--- a/path" then "+++ b/path") were found')
  return files
}

function parseHunk(lines: readonly string[], start: number): { hunk: Hunk; next: number } {
  const header = HUNK_HEADER.exec(lines[start]!)
  if (!header) throw invalid(`line ${start + 1}: a hunk header must look like "@@ -12,3 +12,4 @@", got ${JSON.stringify(lines[start])}`)
  const hunk: Hunk = {
    oldStart: Number(header[1]),
    oldLines: header[2] === undefined ? 1 : Number(header[2]),
    newStart: Number(header[3]),
    newLines: header[4] === undefined ? 1 : Number(header[4]),
    lines: [],
    oldNoEol: false,
    newNoEol: false,
    at: start + 1,
  }
  let oldSeen = 0
  let newSeen = 0
  let i = start + 1
  while (i < lines.length && (oldSeen < hunk.oldLines || newSeen < hunk.newLines)) {
    const line = lines[i]!
    const kind = line === '' ? ' ' : line[0]
    if (kind === '\\') {
      markNoEol(hunk)
      i++
      continue
    }
    if (kind !== ' ' && kind !== '-' && kind !== '+') break
    hunk.lines.push({ kind, text: line.slice(1) })
    if (kind !== '+') oldSeen++
    if (kind !== '-') newSeen++
    i++
  }
  if (oldSeen !== hunk.oldLines || newSeen !== hunk.newLines) {
    throw invalid(`line ${start + 1}: the hunk header promises ${hunk.oldLines} old and ${hunk.newLines} new lines, but the hunk has ${oldSeen} and ${newSeen}; fix the counts in the @@ header`)
  }
  if (lines[i]?.startsWith('\\')) {
    markNoEol(hunk)
    i++
  }
  return { hunk, next: i }
}

function markNoEol(hunk: Hunk): void {
  const previous = hunk.lines.at(-1)
  if (previous === undefined) return
  if (previous.kind === '-') hunk.oldNoEol = true
  else if (previous.kind === '+') hunk.newNoEol = true
  else {
    hunk.oldNoEol = true
    hunk.newNoEol = true
  }
}

function headerPath(raw: string): string | null {
  const withoutTime = raw.split('\t')[0]!.trim()
  const unquoted = withoutTime.startsWith('"') && withoutTime.endsWith('"') ? JSON.parse(withoutTime) as string : withoutTime
  return unquoted === '/dev/null' ? null : unquoted
}

// Line comparisons one diff may spend finding where its hunks go (tens of milliseconds). A hunk is
// looked for at its stated line first; only a diff whose line numbers are far off searches widely,
// and a search over a big file for a big hunk would otherwise hold the event loop for minutes.
const MAX_COMPARISONS = 20_000_000

/**
 * Applies one file's hunks to `text` (or to nothing, for a created file). Each hunk must match
 * exactly — context and removed lines — at its stated line or, failing that, at the nearest place
 * the whole hunk matches; otherwise `E_NOT_FOUND` names the hunk and the line that differs. The
 * search is bounded (`E_NOT_FOUND` past it) and the result is built in one pass, so the work is
 * linear in the file and the diff. CRLF files keep CRLF.
 *
 * @example
 * applyHunks('a\nb\n', parseUnifiedDiff('--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+c\n')[0]!, 'f') // 'a\nc\n'
 */
export function applyHunks(text: string | undefined, file: FilePatch, label: string): string {
  const crlf = text !== undefined && text.includes('\r\n')
  const source = text === undefined ? '' : crlf ? text.replace(/\r\n/g, '\n') : text
  const lines = source === '' ? [] : source.split('\n')
  let eol = source === '' || source.endsWith('\n')
  if (eol && lines.at(-1) === '') lines.pop()
  // Hunks are placed in the original lines, in order (each after the previous one's old lines), and
  // the result is copied out as it goes: no splice per hunk (quadratic over many hunks).
  const out: string[] = []
  const budget = { left: MAX_COMPARISONS }
  let next = 0
  for (const hunk of file.hunks) {
    const expected = hunk.lines.filter((l) => l.kind !== '+').map((l) => l.text)
    const wanted = Math.max(0, hunk.oldStart - 1)
    const at = locate(lines, expected, wanted, next, budget, () => searchTooLong(hunk, label))
    if (at === undefined) throw hunkMismatch(lines, expected, wanted, hunk, label)
    for (let i = next; i < at; i++) out.push(lines[i]!)
    for (const line of hunk.lines) if (line.kind !== '-') out.push(line.text)
    next = at + expected.length
    if (next === lines.length) {
      if (hunk.newNoEol) eol = false
      else if (hunk.oldNoEol || hunk.lines.some((l) => l.kind !== '-')) eol = true
    }
  }
  for (let i = next; i < lines.length; i++) out.push(lines[i]!)
  if (out.length === 0) return ''
  const joined = out.join('\n') + (eol ? '\n' : '')
  return crlf ? joined.replace(/\n/g, '\r\n') : joined
}

function locate(lines: readonly string[], expected: readonly string[], wanted: number, floor: number, budget: { left: number }, tooLong: () => Error): number | undefined {
  const matches = (at: number): boolean => {
    if (at < floor || at + expected.length > lines.length) return false
    for (let k = 0; k < expected.length; k++) {
      if (--budget.left < 0) throw tooLong()
      if (lines[at + k] !== expected[k]) return false
    }
    return true
  }
  if (expected.length === 0) return Math.min(Math.max(wanted, floor), lines.length)
  for (let offset = 0; offset <= lines.length; offset++) {
    if (matches(wanted - offset)) return wanted - offset
    if (matches(wanted + offset)) return wanted + offset
  }
  return undefined
}

function searchTooLong(hunk: Hunk, label: string): ToolhostError {
  return new ToolhostError('E_NOT_FOUND', `the hunk at diff line ${hunk.at} (@@ -${hunk.oldStart},${hunk.oldLines}) does not match ${label} at its stated line, and looking for it elsewhere took too long; read the file again and rebuild the diff from its current text, with the right line numbers. No file was changed`)
}

function hunkMismatch(lines: readonly string[], expected: readonly string[], wanted: number, hunk: Hunk, label: string): ToolhostError {
  let detail = ''
  for (let k = 0; k < expected.length; k++) {
    const actual = lines[wanted + k]
    if (actual !== expected[k]) {
      detail = actual === undefined
        ? `; the file ends before line ${wanted + k + 1}, where the hunk expects ${JSON.stringify(expected[k])}`
        : `; line ${wanted + k + 1} is ${JSON.stringify(actual)} but the hunk expects ${JSON.stringify(expected[k])}`
      break
    }
  }
  return new ToolhostError('E_NOT_FOUND', `the hunk at diff line ${hunk.at} (@@ -${hunk.oldStart},${hunk.oldLines}) does not match ${label}${detail}; read the file again and rebuild the diff from its current text. No file was changed`)
}

function invalid(message: string): ToolhostError {
  return new ToolhostError('E_ARGS_INVALID', `the diff is not a valid unified diff: ${message}`)
}
