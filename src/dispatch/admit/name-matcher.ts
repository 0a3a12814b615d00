import picomatch from 'picomatch'

/** A set of tool names that may hold globs (`mcp_files_*`); what the footprint rules look names up in. */
export interface NameSet {
  has(name: string): boolean
}

const GLOB = /[*?[\]{}!()+@]/

/**
 * The tool names of a config list (`dispatch.parallel_safe`, …) as a lookup: plain names match
 * exactly, an entry with glob characters matches by picomatch (`mcp_files_*`, `{read,list}_*`).
 * Answers are remembered per name, so a glob costs once per tool.
 *
 * @example
 * const set = nameMatcher(['write_file', 'mcp_files_*'])
 * set.has('mcp_files_read_text_file') // true
 */
export function nameMatcher(entries: readonly string[]): NameSet {
  const exact = new Set(entries.filter((e) => !GLOB.test(e)))
  const globs = entries.filter((e) => GLOB.test(e))
  if (globs.length === 0) return exact
  const isMatch = picomatch(globs)
  const seen = new Map<string, boolean>()
  return {
    has(name: string): boolean {
      if (exact.has(name)) return true
      let answer = seen.get(name)
      if (answer === undefined) seen.set(name, (answer = isMatch(name)))
      return answer
    },
  }
}
