/**
 * RFC 6570 level 1 URI templates (`notes://{folder}/{name}`): parsing and checking them at
 * definition. Matching a URI against one is the registry's (`src/registry/match-uri-template.ts`).
 */

/** A template split into its literal text and its variables, alternating: `literals.length === variables.length + 1`. */
export interface ParsedUriTemplate {
  literals: string[]
  variables: string[]
}

// RFC 6570 §2.3 varname, without pct-encoded names: varchar *( ["."] varchar ).
const VARNAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/
// RFC 3986 scheme, then ':'.
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/
// Characters RFC 6570 §2.1 does not allow in a template's literals (besides the braces).
const BAD_LITERAL = /[\u0000-\u0020"'<>\\^`|\u007f]/
const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|'])

/**
 * Splits a level 1 template into literals and variables, or says what is wrong with it: a scheme
 * first, every `{` closed, each expression one variable name (no operator such as `{+path}` or
 * `{?q}`, no list, no modifier such as `{name*}` or `{name:3}`), no name twice, no two variables
 * side by side (which piece of the URI would be which?), a `%` only as a percent-encoding, and at
 * least one variable (a URI without one is a fixed `uri`).
 *
 * @example
 * parseUriTemplate('notes://{folder}/{name}') // { literals: ['notes://', '/', ''], variables: ['folder', 'name'] }
 * parseUriTemplate('notes://{+path}')         // 'expression {+path} uses operator "+": only level 1 ...'
 */
export function parseUriTemplate(template: string): ParsedUriTemplate | string {
  if (!SCHEME.test(template)) return 'a URI template must start with a scheme such as "notes:" (RFC 3986)'
  const literals: string[] = []
  const variables: string[] = []
  let rest = template
  for (;;) {
    const open = rest.indexOf('{')
    const literal = open === -1 ? rest : rest.slice(0, open)
    const bad = literalProblem(literal)
    if (bad !== undefined) return bad
    literals.push(literal)
    if (open === -1) break
    const close = rest.indexOf('}', open)
    if (close === -1) return `"{" at ${template.length - rest.length + open} is never closed`
    const name = rest.slice(open + 1, close)
    if (name !== '' && OPERATORS.has(name[0]!)) return `expression {${name}} uses operator "${name[0]}": only level 1 expressions, {name}, are supported`
    if (name.includes(',')) return `expression {${name}} lists several variables: write one variable per expression`
    if (/[*:]/.test(name)) return `expression {${name}} has a modifier: only level 1 expressions, {name}, are supported`
    if (!VARNAME.test(name)) return `{${name}} is not a variable name: use letters, digits and _ (dots between them)`
    if (variables.includes(name)) return `variable {${name}} appears twice`
    if (literal === '' && variables.length > 0) return `variables {${variables.at(-1)}} and {${name}} are side by side: put literal text between them so a URI can be split`
    variables.push(name)
    rest = rest.slice(close + 1)
  }
  if (variables.length === 0) return 'the template has no {variable}: use `uri` for a fixed URI'
  return { literals, variables }
}

/**
 * What is wrong with a fixed resource URI, or undefined: it needs a scheme, no spaces or braces,
 * and must parse as a URL.
 *
 * @example
 * fixedUriProblem('notes://index') // undefined
 * fixedUriProblem('index.md')      // 'a resource URI must start with a scheme such as "notes:" (RFC 3986)'
 */
export function fixedUriProblem(uri: string): string | undefined {
  if (!SCHEME.test(uri)) return 'a resource URI must start with a scheme such as "notes:" (RFC 3986)'
  if (/[{}]/.test(uri)) return 'a fixed URI has no braces; use `uriTemplate` for a template'
  const bad = literalProblem(uri)
  if (bad !== undefined) return bad
  return URL.canParse(uri) ? undefined : 'it does not parse as a URI'
}

function literalProblem(literal: string): string | undefined {
  if (literal.includes('}')) return '"}" without its "{"'
  const bad = BAD_LITERAL.exec(literal)
  if (bad) return `character ${JSON.stringify(bad[0])} is not allowed in a URI; percent-encode it`
  if (/%(?![0-9A-Fa-f]{2})/.test(literal)) return '"%" must start a percent-encoding such as %20'
  return undefined
}
