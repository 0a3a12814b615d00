import picomatch from 'picomatch'

/** Matches root-relative paths against `workspace.deny`. */
export interface DenyList {
  /** The pattern that denies `relative` (or one of its parent folders), or undefined. */
  match(relative: string): string | undefined
}

/**
 * Compiles `workspace.deny` once. Patterns are picomatch globs matched (dot files included) against
 * the canonical root-relative path and each of its parent folders, so denying `.git/**` or `secrets`
 * also denies everything beneath. A pattern without a `/` also matches a name at any depth
 * (`.env` denies `app/.env`), as in .gitignore. `caseInsensitive` folds case (set it where the file
 * system does, so `.ENV` cannot slip past `.env`).
 *
 * @example
 * compileDenyList(['.env', '.git/**'], false).match('.git/config') // '.git/**'
 */
export function compileDenyList(patterns: readonly string[], caseInsensitive: boolean): DenyList {
  const matchers = patterns.map((pattern) => {
    const options = { dot: true, nocase: caseInsensitive }
    const whole = picomatch(pattern, options)
    const byName = pattern.includes('/') ? undefined : picomatch(pattern, options)
    return { pattern, whole, byName }
  })
  return {
    match(relative) {
      if (relative === '.' || relative === '') return undefined
      const parts = relative.split('/')
      for (let i = parts.length; i >= 1; i--) {
        const prefix = parts.slice(0, i).join('/')
        const name = parts[i - 1]!
        for (const m of matchers) {
          if (m.whole(prefix) || (m.byName !== undefined && m.byName(name))) return m.pattern
        }
      }
      return undefined
    },
  }
}
