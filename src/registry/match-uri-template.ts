import type { ParsedUriTemplate } from '../contract/uri-template.js'
import { compileLinearGroups } from '../patterns/linear-regex.js'

/** Matches URIs against one level 1 template: the decoded value of each variable, or why not. */
export type UriTemplateMatcher = (uri: string) => UriMatch | undefined

/** A URI that matches a template: its variables' values, or what is wrong with them. */
export type UriMatch = { ok: true; vars: Record<string, string> } | { ok: false; problem: string }

// One variable's piece of a URI: anything but the characters that end a path segment, a query or a
// fragment. Level 1 expansion percent-encodes every reserved character, so a value never holds them.
const PIECE = '([^/?#]+)'

/**
 * A matcher for a parsed template: literal text must match exactly, each variable takes one
 * non-empty piece without `/`, `?` or `#` (greedy, leftmost first), and its value is
 * percent-decoded. Runs in time linear in the URI (RE2), whatever the template. A URI that matches
 * but holds a broken percent-encoding answers `{ ok: false, problem }`.
 *
 * @example
 * const match = compileUriTemplate(parseUriTemplate('notes://{folder}/{name}') as ParsedUriTemplate)
 * match('notes://work/todo%20list') // { ok: true, vars: { folder: 'work', name: 'todo list' } }
 * match('notes://work')             // undefined
 */
export function compileUriTemplate(template: ParsedUriTemplate): UriTemplateMatcher {
  const pattern = template.literals.map(quoteRe2).join(PIECE)
  const groups = compileLinearGroups(pattern)
  return (uri) => {
    const pieces = groups(uri)
    if (pieces === undefined) return undefined
    const vars: Record<string, string> = {}
    for (let i = 0; i < template.variables.length; i++) {
      const name = template.variables[i]!
      try {
        // Defined, not assigned: a variable named `__proto__` stays an own key.
        Object.defineProperty(vars, name, { value: decodeURIComponent(pieces[i]!), enumerable: true, writable: true, configurable: true })
      } catch {
        return { ok: false, problem: `the value of {${name}} in the URI, ${JSON.stringify(pieces[i])}, is not valid percent-encoding` }
      }
    }
    return { ok: true, vars }
  }
}

function quoteRe2(literal: string): string {
  return literal.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')
}
