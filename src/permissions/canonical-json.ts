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

/**
 * The value with object keys sorted at every depth (what `canonicalJson` serialises). Objects of the
 * copy have no prototype, so a `"__proto__"` key stays an ordinary key, as `JSON.parse` made it and
 * as the handler sees it. Throws on a BigInt, as serialising would.
 *
 * @example
 * sortKeys(JSON.parse('{"b":1,"__proto__":{"x":1}}')) // { __proto__: { x: 1 }, b: 1 } (own keys)
 */
export function sortKeys(value: unknown): unknown {
  return copySorted(value, undefined)
}

/** Sorted keys, with every string longer than `maxChars` cut and marked (how the audit log stores arguments). */
export function abbreviate(value: unknown, maxChars: number): unknown {
  return copySorted(value, (text) => (text.length > maxChars ? `${text.slice(0, maxChars)}…[+${text.length - maxChars} chars]` : text))
}

type Container = Record<string, unknown> | unknown[]

// An iterative deep copy (no recursion: arguments are held to a depth limit at admission, but a walk
// that could run out of stack has no place on model data), keys sorted, strings mapped.
function copySorted(value: unknown, mapString: ((text: string) => string) | undefined): unknown {
  const pending: [source: object, copy: Container][] = []
  const copyOf = (v: unknown): unknown => {
    if (typeof v === 'string') return mapString === undefined ? v : mapString(v)
    if (typeof v === 'bigint') throw new TypeError('Do not know how to serialize a BigInt')
    if (typeof v !== 'object' || v === null) return v
    const copy: Container = Array.isArray(v) ? new Array<unknown>(v.length) : (Object.create(null) as Record<string, unknown>)
    pending.push([v, copy])
    return copy
  }
  const top = copyOf(value)
  while (pending.length > 0) {
    const [source, copy] = pending.pop()!
    if (Array.isArray(source)) {
      for (let i = 0; i < source.length; i++) (copy as unknown[])[i] = copyOf(source[i])
      continue
    }
    const keys = Object.keys(source)
    if (keys.length > 1) keys.sort()
    for (const key of keys) (copy as Record<string, unknown>)[key] = copyOf((source as Record<string, unknown>)[key])
  }
  return top
}
