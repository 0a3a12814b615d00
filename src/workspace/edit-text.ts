import { ToolhostError } from '../contract/errors.js'

export interface Replacement {
  text: string
  /** How many occurrences were replaced. */
  count: number
  /** 1-based line numbers where the replaced occurrences started. */
  lines: number[]
}

/**
 * Replaces `oldString` by `newString` in `text`: exactly one occurrence, or every one with
 * `replaceAll`. Not found is `E_NOT_FOUND`; found more than once without `replaceAll` is
 * `E_ARGS_INVALID` saying how many times and on which lines. A file with CRLF line ends matches an
 * `oldString` written with LF (and gets CRLF in the new text).
 *
 * @example
 * replaceExact('a\nb\na\n', 'b', 'c', false, 'x.txt') // { text: 'a\nc\na\n', count: 1, lines: [2] }
 */
export function replaceExact(text: string, oldString: string, newString: string, replaceAll: boolean, label: string): Replacement {
  if (oldString === '') throw new ToolhostError('E_ARGS_INVALID', 'old_string is empty; give the exact text to replace (to create or overwrite a whole file use write_file)')
  if (oldString === newString) throw new ToolhostError('E_ARGS_INVALID', 'old_string and new_string are the same, so nothing would change')
  let needle = oldString
  let replacement = newString
  let found = findAll(text, needle)
  if (found.length === 0 && text.includes('\r\n') && !oldString.includes('\r\n')) {
    needle = oldString.replace(/\n/g, '\r\n')
    replacement = newString.replace(/\r?\n/g, '\r\n')
    found = findAll(text, needle)
  }
  if (found.length === 0) {
    throw new ToolhostError('E_NOT_FOUND', `old_string was not found in ${label}${nearMiss(text, oldString)}; read the file again and copy the text exactly, whitespace and indentation included`)
  }
  const lines = found.map((index) => lineOf(text, index))
  if (found.length > 1 && !replaceAll) {
    const shown = lines.length > 20 ? `${lines.slice(0, 20).join(', ')}, …` : lines.join(', ')
    throw new ToolhostError('E_ARGS_INVALID', `old_string occurs ${found.length} times in ${label} (starting on lines ${shown}); include more surrounding text so it matches once, or set replace_all to true to replace every occurrence`)
  }
  let out = ''
  let last = 0
  for (const index of found) {
    out += text.slice(last, index) + replacement
    last = index + needle.length
  }
  return { text: out + text.slice(last), count: found.length, lines }
}

function findAll(text: string, needle: string): number[] {
  const found: number[] = []
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i)
  return found
}

/** 1-based line number of character `index`. */
export function lineOf(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++
  return line
}

// A hint for the common near miss: the text is there but its whitespace differs. Both texts are
// compared with every run of whitespace squashed to one space, keeping each character's line.
function nearMiss(text: string, oldString: string): string {
  const target = oldString.replace(/\s+/g, ' ').trim()
  if (target === '') return ''
  let squashed = ''
  const lineAt: number[] = []
  let line = 1
  let inSpace = false
  for (const ch of text) {
    if (/\s/.test(ch)) {
      if (!inSpace) {
        squashed += ' '
        lineAt.push(line)
      }
      inSpace = true
      if (ch === '\n') line++
      continue
    }
    inSpace = false
    squashed += ch
    lineAt.push(line)
  }
  const at = squashed.indexOf(target)
  return at === -1 ? '' : ` (text matching it apart from whitespace starts on line ${lineAt[at]})`
}
