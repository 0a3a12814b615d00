export { suggestNames } from '../../contract/near-names.js'

const MAX_TOOL_NAME_CHARS = 64

/**
 * A name as it may be echoed back to a model or a log: whole when short, else its start and its
 * length, so a huge name never travels back.
 *
 * @example
 * shownName('x'.repeat(5000)) // the first 64 x's, then '… (5000 characters)'
 */
export function shownName(name: string): string {
  return name.length <= 80 ? name : `${name.slice(0, MAX_TOOL_NAME_CHARS)}… (${name.length} characters)`
}

