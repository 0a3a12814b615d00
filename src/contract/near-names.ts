/**
 * Close names: what a did-you-mean offers for a misspelt tool name, config key, env variable or
 * schema keyword. No dependencies; used from every layer.
 */

/**
 * Up to three of `names` closest to `wanted`, closest first: within a few edits (a swap of two
 * neighbouring letters counts as one), or containing it / contained in it. An empty name gets none.
 *
 * @example
 * suggestNames('ecko', ['echo', 'wait']) // ['echo']
 */
export function suggestNames(wanted: string, names: readonly string[]): string[] {
  // The edit distance of a huge name would cost seconds.
  if (wanted === '' || wanted.length > 2 * MAX_NAME_CHARS) return []
  const target = wanted.toLowerCase()
  // One edit per three letters, at least one: two edits turn a short name into any other.
  const bound = Math.max(1, Math.floor(target.length / 3))
  const scored: Array<{ name: string; score: number; distance: number }> = []
  for (const name of names) {
    const lower = name.toLowerCase()
    const contains = Math.min(lower.length, target.length) >= 3 && (lower.includes(target) || target.includes(lower))
    // Only names within `bound` edits are worth an edit distance (and it stops past `bound`): a
    // registry of 10,000 tools made every unknown name cost ~150 ms of full distances.
    const distance = editDistanceWithin(target, lower, bound)
    const score = contains ? Math.min(distance, 1) : distance
    if (score <= bound) scored.push({ name, score, distance: Math.min(distance, bound + 1) })
  }
  // Among equally close names, the one fewer edits away first ("date-tme": date-time before date).
  scored.sort((a, b) => a.score - b.score || a.distance - b.distance || a.name.localeCompare(b.name))
  return scored.slice(0, 3).map((s) => s.name)
}

// Names here are short (tool names are at most 64 characters); a name twice as long is no typo of one.
const MAX_NAME_CHARS = 64

/**
 * Edit distance counting insertions, deletions, substitutions and swaps of neighbours (one each),
 * when it is at most `bound`; otherwise some number over `bound` (found as soon as it is certain:
 * lengths too far apart, or a whole row past `bound`).
 */
function editDistanceWithin(a: string, b: string, bound: number): number {
  if (a === b) return 0
  if (Math.abs(a.length - b.length) > bound) return bound + 1
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowBest = i
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1)
      current[j] = best
      if (best < rowBest) rowBest = best
    }
    // Every later cell is at least the best of this row or the one before (a swap reaches back one).
    if (rowBest > bound && Math.min(...previous) > bound) return bound + 1
    before = previous
    previous = current
  }
  return previous[b.length]!
}
