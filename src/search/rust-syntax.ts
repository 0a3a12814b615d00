// The schema's pattern syntax (RE2, checked first by re2js) spelt for ripgrep's default engine (the
// Rust regex crate). The two agree on most of the syntax; where they differ the pattern is rewritten
// so it means in ripgrep what it means in RE2:
// - \w \d \s \b are ASCII in RE2 and Unicode in Rust: written as ASCII classes, (?-u:\b).
// - \Q…\E (a literal run) and octal escapes (\012) exist only in RE2: written as escaped characters.
// - a { that starts no repetition is a literal in RE2 (x{,3}, a{): escaped for Rust, where {,3} repeats.
// - \< and \> are the characters < > in RE2, word boundaries in Rust; inside a class, [ & ~ are
//   plain characters in RE2 but nesting and set operators in Rust: escaped.
const WORD = '0-9A-Za-z_'
const DIGIT = '0-9'
const SPACE = '\\t\\n\\f\\r '
const CLASSES: Record<string, { inside: string; outside: string }> = {
  w: { inside: WORD, outside: `[${WORD}]` },
  W: { inside: `[^${WORD}]`, outside: `[^${WORD}]` },
  d: { inside: DIGIT, outside: `[${DIGIT}]` },
  D: { inside: `[^${DIGIT}]`, outside: `[^${DIGIT}]` },
  s: { inside: SPACE, outside: `[${SPACE}]` },
  S: { inside: `[^${SPACE}]`, outside: `[^${SPACE}]` },
}
// Characters Rust's parser gives a meaning (escaped when RE2 means the character itself).
const RUST_META = new Set('\\.+*?()|[]{}^$#&-~')
const CLASS_META = new Set('\\[]^-&~')
const REPEAT = /^\{\d+(?:,\d*)?\}/

/**
 * A pattern that re2js accepted, written in the syntax of ripgrep's default (Rust) engine with the
 * same meaning.
 *
 * @example
 * toRustRegex('\\w+\\Q.*\\E') // '[0-9A-Za-z_]+\\.\\*'
 */
export function toRustRegex(pattern: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\') {
      const escaped = escapeAt(pattern, i, false)
      out += escaped.text
      i = escaped.end
    } else if (c === '[') {
      const cls = classAt(pattern, i)
      out += cls.text
      i = cls.end
    } else if (c === '{') {
      const repeat = REPEAT.exec(pattern.slice(i))
      if (repeat && out !== '') {
        out += repeat[0]
        i += repeat[0].length - 1
      } else {
        out += '\\{'
      }
    } else if (c === '}') {
      out += '\\}'
    } else {
      out += c
    }
  }
  return out
}

// The escape starting at `start` (a backslash): its Rust text and the index of its last character.
function escapeAt(pattern: string, start: number, inClass: boolean): { text: string; end: number } {
  const next = pattern[start + 1]
  if (next === undefined) return { text: '\\\\', end: start }
  const cls = CLASSES[next]
  if (cls !== undefined) return { text: inClass ? cls.inside : cls.outside, end: start + 1 }
  if (!inClass && (next === 'b' || next === 'B')) return { text: `(?-u:\\${next})`, end: start + 1 }
  if (next === 'Q') {
    const close = pattern.indexOf('\\E', start + 2)
    const literal = pattern.slice(start + 2, close === -1 ? pattern.length : close)
    return { text: [...literal].map((ch) => literalChar(ch, inClass)).join(''), end: close === -1 ? pattern.length - 1 : close + 1 }
  }
  if (next === 'E') return { text: '', end: start + 1 } // a stray \E ends nothing
  const octal = /^[0-7]{1,3}/.exec(pattern.slice(start + 1))
  if (octal) return { text: `\\x{${parseInt(octal[0], 8).toString(16)}}`, end: start + octal[0].length }
  if (/[0-9A-Za-z]/.test(next)) {
    // \p{…} \x{…} keep their braces; every other letter escape is spelt the same in both.
    const braced = /^[pPx]\{[^}]*\}/.exec(pattern.slice(start + 1))
    if (braced) return { text: `\\${braced[0]}`, end: start + braced[0].length }
    return { text: `\\${next}`, end: start + 1 }
  }
  return { text: literalChar(next, inClass), end: start + 1 }
}

function literalChar(ch: string, inClass: boolean): string {
  return (inClass ? CLASS_META : RUST_META).has(ch) ? `\\${ch}` : ch
}

// The class opened at `start`: RE2's [^]…], [:alpha:], ranges and escapes, in Rust's spelling.
function classAt(pattern: string, start: number): { text: string; end: number } {
  let i = start + 1
  let text = '['
  if (pattern[i] === '^') {
    text += '^'
    i++
  }
  if (pattern[i] === ']') {
    text += '\\]'
    i++
  }
  for (; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === ']') return { text: `${text}]`, end: i }
    if (c === '\\') {
      const escaped = escapeAt(pattern, i, true)
      text += escaped.text
      i = escaped.end
    } else if (c === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2)
      if (close === -1) {
        text += '\\['
        continue
      }
      text += pattern.slice(i, close + 2)
      i = close + 1
    } else if (c === '-') {
      text += '-'
    } else {
      text += literalChar(c, true)
    }
  }
  return { text, end: pattern.length - 1 } // unclosed: re2js refused it already
}
