import { describeThrown } from '../../contract/errors.js'
import type { ToolhostConfig } from '../../config/types.js'

/** The limits a call's arguments must keep, whatever shape they came in. */
export interface ArgumentLimits {
  /** Characters of JSON text (`limits.max_argument_chars`). */
  maxChars: number
  /** Objects and arrays nested inside each other (`limits.max_argument_depth`). */
  maxDepth: number
}

/**
 * The argument limits of a config (`limits.max_argument_chars`, `limits.max_argument_depth`).
 *
 * @example
 * argumentLimitsOf(host.config) // { maxChars: 1000000, maxDepth: 64 }
 */
export function argumentLimitsOf(config: Pick<ToolhostConfig, 'limits'>): ArgumentLimits {
  return { maxChars: config.limits.max_argument_chars, maxDepth: config.limits.max_argument_depth }
}

/**
 * Checks parsed or object arguments against `limits` without recursion and without serialising
 * them: one iterative walk that stops as soon as a limit is passed, so a value nested 100,000 deep,
 * a cycle or a 20 MB object costs at most the limit's worth of steps. Returns what is wrong, in
 * words a model can act on, or undefined. `measureSize` is false when the size is known already
 * (raw JSON text, measured by its length).
 *
 * The size is the length the JSON text would have, without escapes (a lower bound, cheap to count).
 * Values JSON cannot carry (a BigInt, a function, a symbol, NaN, Infinity) are refused too: the
 * permission rules and the audit log must see exactly what the handler gets.
 *
 * @example
 * checkArgumentLimits({ a: { b: [1] } }, { maxChars: 1000, maxDepth: 2 }, true)
 * // 'the arguments are nested more than 2 levels deep (at a.b), over the limit; send flatter data'
 */
export function checkArgumentLimits(args: object, limits: ArgumentLimits, measureSize: boolean): string | undefined {
  let found = Array.isArray(args) ? NOT_FLAT : walkFlat(args as Record<string, unknown>, limits, measureSize)
  if (found === NOT_FLAT) found = walk(args, limits, measureSize, false)
  return found === undefined ? undefined : describeProblem(found, args, limits, measureSize)
}

const NOT_FLAT: Problem = { kind: 'depth' }

// `walk` for an object whose values are all leaves (most tool arguments), in the same order and
// with the same sums, without its stacks; NOT_FLAT as soon as a value is an object or array.
function walkFlat(args: Record<string, unknown>, limits: ArgumentLimits, measureSize: boolean): Problem | undefined {
  if (limits.maxDepth < 1) return NOT_FLAT
  // for-in over own keys is Object.keys' order, without its array.
  let size = 2
  for (const name in args) if (Object.hasOwn(args, name)) size += name.length + 3
  if (measureSize && size > limits.maxChars) return { kind: 'size' }
  for (const name in args) {
    if (!Object.hasOwn(args, name)) continue
    const value = args[name]
    if (typeof value === 'object' && value !== null) return NOT_FLAT
    const leaf = leafSize(value)
    if (typeof leaf !== 'number') return leaf
    size += leaf
    if (measureSize && size > limits.maxChars) return { kind: 'size' }
  }
  return undefined
}

/**
 * Like `checkArgumentLimits`, and returns a plain copy of the arguments read in the same walk: each
 * property is read exactly once, so a getter or a Proxy in an object handed to `host.run` cannot show
 * the limits, the schema, the rules and the handler different values, and a getter that throws is
 * this call's refusal (never the batch's). Copies are ordinary objects and arrays; a `"__proto__"`
 * key stays an own key, as `JSON.parse` makes it.
 *
 * @example
 * copyArguments({ get path() { return 'a.txt' } }, { maxChars: 1000, maxDepth: 8 })
 * // { ok: true, args: { path: 'a.txt' } }
 */
export function copyArguments(args: object, limits: ArgumentLimits): { ok: true; args: Record<string, unknown> } | { ok: false; problem: string } {
  const copy: { root?: unknown } = {}
  let found: Problem | undefined
  try {
    found = walk(args, limits, true, false, copy)
  } catch (thrown) {
    return { ok: false, problem: `the arguments could not be read (${describeThrown(thrown)}); send plain JSON values` }
  }
  // The place is named from a second reading of the original (guarded in describeProblem).
  if (found !== undefined) return { ok: false, problem: describeProblem(found, args, limits, true) }
  return { ok: true, args: copy.root as Record<string, unknown> }
}

function describeProblem(found: Problem, args: object, limits: ArgumentLimits, measureSize: boolean): string {
  // Only a refused call pays for naming the place: walk again, keeping paths.
  let where: string | undefined
  try {
    where = found.kind === 'size' ? undefined : walk(args, limits, measureSize, true)?.where
  } catch {
    where = undefined // a getter that throws on the second reading: the place stays unnamed
  }
  switch (found.kind) {
    case 'size':
      return `the arguments are over ${limits.maxChars} characters as JSON, the limit; send less data per call (split it, or write it to a file first)`
    case 'depth':
      return `the arguments are nested more than ${limits.maxDepth} levels deep${where === undefined ? '' : ` (at ${where})`}, over the limit; send flatter data`
    case 'value':
      return `${where === undefined ? 'the arguments' : `\`${where}\``} is ${found.what}, which JSON cannot carry; send plain JSON values`
  }
}

type Problem = { kind: 'size' | 'depth'; where?: string } | { kind: 'value'; what: string; where?: string }

// `into`: when given, a plain copy of what was read is built under `into.root` as the walk goes
// (each value is placed in its parent's copy under the key it was read from).
function walk(args: object, limits: ArgumentLimits, measureSize: boolean, withPaths: boolean, into?: { root?: unknown }): Problem | undefined {
  const values: unknown[] = [args]
  const depths: number[] = [1]
  const paths: string[] = withPaths ? [''] : []
  const parents: Array<Record<string, unknown> | unknown[]> | undefined = into ? [into as Record<string, unknown>] : undefined
  const keys: Array<string | number> | undefined = into ? ['root'] : undefined
  let size = 0
  while (values.length > 0) {
    const value = values.pop()
    const depth = depths.pop()!
    const where = withPaths ? paths.pop() : undefined
    const parent = parents?.pop()
    const key = keys?.pop()
    let copied: unknown = value
    if (typeof value !== 'object' || value === null) {
      const leaf = leafSize(value)
      if (typeof leaf !== 'number') return { ...leaf, ...at(where) }
      size += leaf
    } else {
      if (depth > limits.maxDepth) return { kind: 'depth', ...at(where) }
      size += 2
      if (Array.isArray(value)) {
        const length = value.length
        if (into) copied = new Array<unknown>(length)
        for (let i = length - 1; i >= 0; i--) {
          values.push(value[i])
          depths.push(depth + 1)
          if (withPaths) paths.push(`${where}[${i}]`)
          if (into) {
            parents!.push(copied as unknown[])
            keys!.push(i)
          }
        }
      } else {
        const names = Object.keys(value)
        if (into) copied = {}
        for (let i = names.length - 1; i >= 0; i--) {
          const name = names[i]!
          size += name.length + 3
          values.push((value as Record<string, unknown>)[name])
          depths.push(depth + 1)
          if (withPaths) paths.push(where === '' ? shorten(name) : `${where}.${shorten(name)}`)
          if (into) {
            parents!.push(copied as Record<string, unknown>)
            keys!.push(name)
          }
        }
      }
    }
    if (parent !== undefined) place(parent, key!, copied)
    if (measureSize && size > limits.maxChars) return { kind: 'size' }
  }
  return undefined
}

// The JSON length of a value that is not an object or array (a string without escapes), or the
// problem of one JSON cannot carry (NaN, Infinity, a BigInt, a function, a symbol).
function leafSize(value: unknown): number | Problem {
  switch (typeof value) {
    case 'string':
      return value.length + 3
    case 'number':
      return Number.isFinite(value) ? 8 : { kind: 'value', what: String(value) }
    case 'boolean':
    case 'undefined':
    case 'object': // null
      return 5
    default:
      return { kind: 'value', what: `a ${typeof value}` }
  }
}

// An own property, as JSON.parse makes it: a "__proto__" key must not set the copy's prototype.
function place(parent: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true })
  else (parent as Record<string | number, unknown>)[key] = value
}

function at(where: string | undefined): { where?: string } {
  return where === undefined || where === '' ? {} : { where: where.length > 200 ? `${where.slice(0, 200)}…` : where }
}

function shorten(key: string): string {
  return key.length > 40 ? `${key.slice(0, 40)}…` : key
}
