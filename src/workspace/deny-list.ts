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
 * (`.env` denies `app/.env`), as in .gitignore. A pattern starting with `!` is an exception: a path it
 * matches (by its whole path, or by its name for a pattern without `/`) is not denied, whatever
 * denies it (`.env.*` with `!.env.example` keeps the template readable and `.env.local` denied); an
 * exception never opens what is beneath a denied folder. `caseInsensitive` folds case (set it where
 * the file system does, so `.ENV` cannot slip past `.env`).
 *
 * @example
 * compileDenyList(['.env', '.git/**'], false).match('.git/config') // '.git/**'
 * compileDenyList(['.env.*', '!.env.example'], false).match('.env.example') // undefined
 */
export function compileDenyList(patterns: readonly string[], caseInsensitive: boolean): DenyList {
  const compile = (pattern: string) => {
    const options = { dot: true, nocase: caseInsensitive }
    const whole = picomatch(pattern, options)
    const byName = pattern.includes('/') ? undefined : picomatch(pattern, options)
    return { pattern, whole, byName }
  }
  const matchers = patterns.filter((p) => !p.startsWith('!')).map(compile)
  const exceptions = patterns.filter((p) => p.startsWith('!')).map((p) => compile(p.slice(1)))
  return {
    match(relative) {
      if (relative === '.' || relative === '') return undefined
      const parts = relative.split('/')
      const own = parts[parts.length - 1]!
      // An exception names the file itself: a denied folder above it still denies it.
      const isException = exceptions.some((m) => m.whole(relative) || (m.byName !== undefined && m.byName(own)))
      for (let i = parts.length; i >= 1; i--) {
        const prefix = parts.slice(0, i).join('/')
        const name = parts[i - 1]!
        for (const m of matchers) {
          if (!(m.whole(prefix) || (m.byName !== undefined && m.byName(name)))) continue
          if (i === parts.length && isException) continue
          return m.pattern
        }
      }
      return undefined
    },
  }
}
