/**
 * A stable JSON text of a value: object keys sorted at every depth, no whitespace, so the same
 * arguments always give the same text (rule subjects, session approvals, the audit log).
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null'
}

/** The value with object keys sorted at every depth (what `canonicalJson` serialises). */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key])
  return out
}

/** Sorted keys, with every string longer than `maxChars` cut and marked (how the audit log stores arguments). */
export function abbreviate(value: unknown, maxChars: number): unknown {
  // join, not a template: a new string, so a shortened argument does not keep the whole argument alive.
  if (typeof value === 'string') return value.length > maxChars ? [value.slice(0, maxChars), `…[+${value.length - maxChars} chars]`].join('') : value
  if (Array.isArray(value)) return value.map((v) => abbreviate(v, maxChars))
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) out[key] = abbreviate((value as Record<string, unknown>)[key], maxChars)
  return out
}
