import path from 'node:path'
import { BUILTIN_PLUGINS_DIR } from './builtin-plugins.js'
import type { PluginLoadReport } from './load-plugins.js'

/** A tool name two files registered: the file that keeps it, the one that lost, and why. */
export interface DuplicateTool {
  name: string
  /** The file whose tool is registered; undefined when code outside a plugin file registered it. */
  kept: string | undefined
  /** The file that failed to load for it: none of its tools are registered. */
  lost: string
  why: string
}

/**
 * The duplicate tool names of a load, from its failures. The first file to register a name keeps
 * it, and the load order is fixed — built-in tools, then each plugin folder in the order configured,
 * the files of a folder sorted by path — so the same file wins on every machine, whatever order the
 * file system lists a folder in.
 *
 * @example
 * duplicateToolsOf(host.pluginReport)
 * // [{ name: 'dup_tool', kept: '/w/plugins/a.ts', lost: '/w/plugins/b.ts', why: 'a.ts loads first: …' }]
 */
export function duplicateToolsOf(report: PluginLoadReport): DuplicateTool[] {
  return report.failed.flatMap((failure) => {
    if (failure.duplicate === undefined) return []
    const { name, keptBy } = failure.duplicate
    return [{ name, kept: keptBy, lost: failure.file, why: whyKept(keptBy, failure.file) }]
  })
}

function whyKept(kept: string | undefined, lost: string): string {
  if (kept === undefined) return 'code outside a plugin file registered it before the plugins loaded'
  if (kept === lost) return 'the file registers the name twice itself'
  if (isInside(BUILTIN_PLUGINS_DIR, kept)) return 'built-in tools load before plugin folders'
  if (path.dirname(kept) === path.dirname(lost)) return `${path.basename(kept)} sorts before ${path.basename(lost)}, and the files of a folder load sorted by path`
  return `${kept} loads first: plugin folders load in the order configured, the files of each (subfolders included) sorted by path`
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file)
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
}

/**
 * One line for a person: which file keeps the name, which lost it and why, and what to do.
 *
 * @example
 * describeDuplicate(duplicate) // 'dup_tool: kept from /w/plugins/a.ts; /w/plugins/b.ts lost it and loaded none of its tools (a.ts sorts before b.ts …); rename one of them'
 */
export function describeDuplicate(duplicate: DuplicateTool): string {
  const kept = duplicate.kept ?? '(code outside a plugin file)'
  if (duplicate.kept === duplicate.lost) return `${duplicate.name}: ${duplicate.lost} registers it twice, so none of its tools are registered; rename one of them`
  return `${duplicate.name}: kept from ${kept}; ${duplicate.lost} lost it and loaded none of its tools (${duplicate.why}); rename one of them`
}
