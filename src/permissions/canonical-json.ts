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
 * The value with object keys sorted at every depth (what `canonicalJson` serialises). A `"__proto__"`
 * key stays an own, ordinary key of the copy, as `JSON.parse` made it and as the handler sees it (the
 * copy's prototype is never changed). Throws on a BigInt, as serialising would.
 *
 * @example
 * sortKeys(JSON.parse('{"b":1,"__proto__":{"x":1}}')) // { __proto__: { x: 1 }, b: 1 } (own keys)
 */
export function sortKeys(value: unknown): unknown {
  return copySorted(value, undefined)
}

/** Sorted keys, with every string longer than `maxChars` cut and marked (how the audit log stores arguments). */
export function abbreviate(value: unknown, maxChars: number): unknown {
  // join, not a template: a new string, so a shortened argument does not keep the whole argument alive.
  return copySorted(value, (text) => (text.length > maxChars ? [text.slice(0, maxChars), `…[+${text.length - maxChars} chars]`].join('') : text))
}

type Container = Record<string, unknown> | unknown[]
type Pending = [source: object, copy: Container][]

// An iterative deep copy (no recursion: arguments are held to a depth limit at admission, but a walk
// that could run out of stack has no place on model data), keys sorted, strings mapped. Module-level
// functions, not closures: this runs for every call (the audit snapshot).
function copySorted(value: unknown, mapString: ((text: string) => string) | undefined): unknown {
  if (typeof value !== 'object' || value === null) return copyLeaf(value, mapString)
  if (!Array.isArray(value)) {
    const flat = copyFlat(value as Record<string, unknown>, mapString)
    if (flat !== undefined) return flat
  }
  const pending: Pending = []
  const top = copyContainer(value, pending)
  while (pending.length > 0) {
    const [source, copy] = pending.pop()!
    if (Array.isArray(source)) {
      for (let i = 0; i < source.length; i++) (copy as unknown[])[i] = copyChild(source[i], mapString, pending)
      continue
    }
    const keys = Object.keys(source)
    if (keys.length > 1) keys.sort()
    for (const key of keys) setOwn(copy as Record<string, unknown>, key, copyChild((source as Record<string, unknown>)[key], mapString, pending))
  }
  return top
}

// An object whose values are all leaves (most tool arguments): copied without the walk's queue and
// pairs, whose garbage was most of what a no-op call allocated. Undefined when a value is an object.
function copyFlat(source: Record<string, unknown>, mapString: ((text: string) => string) | undefined): Record<string, unknown> | undefined {
  const keys = Object.keys(source)
  for (let i = 0; i < keys.length; i++) {
    const child = source[keys[i]!]
    if (typeof child === 'object' && child !== null) return undefined
  }
  if (keys.length > 1) keys.sort()
  const copy: Record<string, unknown> = {}
  for (let i = 0; i < keys.length; i++) setOwn(copy, keys[i]!, copyLeaf(source[keys[i]!], mapString))
  return copy
}

/**
 * True when some string in `value` (at any depth, keys aside) is longer than `maxChars`: what
 * `abbreviate` would cut. A value without one can be serialised as it is.
 *
 * @example
 * hasStringOver({ a: ['x'.repeat(5)] }, 4) // true
 */
export function hasStringOver(value: unknown, maxChars: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value === 'string' && value.length > maxChars
  const pending: object[] = [value]
  while (pending.length > 0) {
    const container = pending.pop() as Record<string, unknown>
    for (const key in container) {
      if (!Object.hasOwn(container, key)) continue
      const child = container[key]
      if (typeof child === 'string') {
        if (child.length > maxChars) return true
      } else if (typeof child === 'object' && child !== null) pending.push(child)
    }
  }
  return false
}

function copyChild(value: unknown, mapString: ((text: string) => string) | undefined, pending: Pending): unknown {
  return typeof value === 'object' && value !== null ? copyContainer(value, pending) : copyLeaf(value, mapString)
}

function copyContainer(value: object, pending: Pending): Container {
  const copy: Container = Array.isArray(value) ? new Array<unknown>(value.length) : {}
  pending.push([value, copy])
  return copy
}

function copyLeaf(value: unknown, mapString: ((text: string) => string) | undefined): unknown {
  if (typeof value === 'string') return mapString === undefined ? value : mapString(value)
  if (typeof value === 'bigint') throw new TypeError('Do not know how to serialize a BigInt')
  return value
}

// `copy.__proto__ = v` would set the prototype (and drop the key): define it as an own key instead.
function setOwn(copy: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true })
  else copy[key] = value
}
