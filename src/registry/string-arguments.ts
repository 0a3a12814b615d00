import { describeThrown } from '../contract/errors.js'

/**
 * A plain copy of untrusted string arguments (a prompt's, a completion's context): own keys read
 * once each, every value a string, names and values together at most `maxChars` characters.
 * `undefined` and `null` mean none. Returns the copy, or what is wrong in words a client can act
 * on (`what` names the arguments: "the prompt arguments").
 *
 * @example
 * copyStringArguments({ path: 'a.md' }, 1000, 'the prompt arguments') // { path: 'a.md' }
 * copyStringArguments({ n: 1 }, 1000, 'the prompt arguments')       // '`n` must be a string, got number'
 */
export function copyStringArguments(value: unknown, maxChars: number, what: string): Record<string, string> | string {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) return `${what} must be an object of strings`
  const copy: Record<string, string> = {}
  let size = 0
  try {
    for (const key of Object.keys(value)) {
      const item: unknown = (value as Record<string, unknown>)[key]
      if (typeof item !== 'string') return `\`${key}\` must be a string, got ${item === null ? 'null' : Array.isArray(item) ? 'array' : typeof item}`
      size += key.length + item.length
      if (size > maxChars) return `${what} are over ${maxChars} characters, the limit; send less`
      // Defined, not assigned: a `__proto__` key stays an own key, as JSON.parse makes it.
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true })
    }
  } catch (error) {
    return `${what} could not be read (${describeThrown(error)}); send plain JSON strings`
  }
  return copy
}
