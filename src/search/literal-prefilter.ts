// The JavaScript engine's prefilter: a literal every match must contain, so a file (and a line)
// without it is passed over without running the regex. A trick in its own file: it moves the
// "javascript" rows of bench-notes/rg-search.md.

/**
 * The longest run of characters that every match of `pattern` (RE2 syntax) contains, or undefined
 * when none is certain: only plain characters outside groups and classes count, a character under
 * `?`, `*` or `{…}` is optional, and an alternation or inline flags at the top level give none.
 *
 * @example
 * requiredLiteral('function\\s+load\\(') // 'function'
 * requiredLiteral('TODO|FIXME')         // undefined
 */
export function requiredLiteral(pattern: string): string | undefined {
  const runs: string[] = []
  let run = ''
  const endRun = (): void => {
    if (run !== '') runs.push(run)
    run = ''
  }
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '|') return undefined
    if (c === '*' || c === '?' || c === '{') {
      run = [...run].slice(0, -1).join('') // the character before is optional (or repeated): not certain
      endRun()
      if (c === '{') i = skipRepeat(pattern, i)
      if (pattern[i + 1] === '?') i++
    } else if (c === '+') {
      endRun()
      if (pattern[i + 1] === '?') i++
    } else if (c === '(') {
      if (/^\(\?[a-zA-Z-]+\)/.test(pattern.slice(i))) return undefined // (?i) changes what follows
      endRun()
      i = skipGroup(pattern, i)
    } else if (c === '[') {
      endRun()
      i = skipClass(pattern, i)
    } else if (c === '\\') {
      const next = pattern[i + 1]
      if (next === undefined || /[0-9A-Za-z]/.test(next)) {
        if (next === 'Q') return undefined
        endRun()
        i += escapeLength(pattern, i) - 1
      } else {
        run += next
        i++
      }
    } else if (c === '.' || c === '^' || c === '$') {
      endRun()
    } else {
      run += c
    }
  }
  endRun()
  let best: string | undefined
  for (const r of runs) if (best === undefined || r.length > best.length) best = r
  return best
}

// The length of the letter or digit escape at `start` (\\w, \\x41, \\x{263a}, \\pL, \\p{Greek}, \\012).
function escapeLength(pattern: string, start: number): number {
  const rest = pattern.slice(start + 1)
  const long = /^(?:[pPx]\{[^}]*\}|x[0-9A-Fa-f]{2}|[pP].|[0-7]{1,3})/.exec(rest)
  return 1 + (long ? long[0].length : 1)
}

function skipRepeat(pattern: string, start: number): number {
  const close = pattern.indexOf('}', start)
  return close === -1 ? start : close
}

function skipClass(pattern: string, start: number): number {
  let i = start + 1
  if (pattern[i] === '^') i++
  if (pattern[i] === ']') i++
  for (; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++
    else if (pattern[i] === '[' && pattern[i + 1] === ':') i = Math.max(i, pattern.indexOf(':]', i + 2) + 1)
    else if (pattern[i] === ']') return i
  }
  return pattern.length
}

function skipGroup(pattern: string, start: number): number {
  let depth = 0
  for (let i = start; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') i++
    else if (c === '[') i = skipClass(pattern, i)
    else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return i
  }
  return pattern.length
}
