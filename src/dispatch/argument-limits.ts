import type { ToolhostConfig } from '../config/types.js'

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
  const found = walk(args, limits, measureSize, false)
  if (found === undefined) return undefined
  // Only a refused call pays for naming the place: walk again, keeping paths.
  const where = found.kind === 'size' ? undefined : walk(args, limits, measureSize, true)?.where
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

function walk(args: object, limits: ArgumentLimits, measureSize: boolean, withPaths: boolean): Problem | undefined {
  const values: unknown[] = [args]
  const depths: number[] = [1]
  const paths: string[] = withPaths ? [''] : []
  let size = 0
  while (values.length > 0) {
    const value = values.pop()
    const depth = depths.pop()!
    const where = withPaths ? paths.pop() : undefined
    switch (typeof value) {
      case 'string':
        size += value.length + 3
        break
      case 'number':
        if (!Number.isFinite(value)) return { kind: 'value', what: String(value), ...at(where) }
        size += 8
        break
      case 'boolean':
      case 'undefined':
        size += 5
        break
      case 'object': {
        if (value === null) {
          size += 5
          break
        }
        if (depth > limits.maxDepth) return { kind: 'depth', ...at(where) }
        size += 2
        if (Array.isArray(value)) {
          for (let i = value.length - 1; i >= 0; i--) {
            values.push(value[i])
            depths.push(depth + 1)
            if (withPaths) paths.push(`${where}[${i}]`)
          }
        } else {
          const keys = Object.keys(value)
          for (let i = keys.length - 1; i >= 0; i--) {
            const key = keys[i]!
            size += key.length + 3
            values.push((value as Record<string, unknown>)[key])
            depths.push(depth + 1)
            if (withPaths) paths.push(where === '' ? shorten(key) : `${where}.${shorten(key)}`)
          }
        }
        break
      }
      default:
        return { kind: 'value', what: `a ${typeof value}`, ...at(where) }
    }
    if (measureSize && size > limits.maxChars) return { kind: 'size' }
  }
  return undefined
}

function at(where: string | undefined): { where?: string } {
  return where === undefined || where === '' ? {} : { where: where.length > 200 ? `${where.slice(0, 200)}…` : where }
}

function shorten(key: string): string {
  return key.length > 40 ? `${key.slice(0, 40)}…` : key
}
