/** Up to three names closest to `wanted` (edit distance, or one containing the other). */
export function suggestNames(wanted: string, names: readonly string[]): string[] {
  const target = wanted.toLowerCase()
  const scored = names
    .map((name) => {
      const lower = name.toLowerCase()
      const distance = editDistance(target, lower)
      const contains = lower.includes(target) || target.includes(lower)
      return { name, score: contains ? Math.min(distance, 1) : distance }
    })
    .filter((s) => s.score <= Math.max(2, Math.floor(target.length / 3)))
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
  return scored.slice(0, 3).map((s) => s.name)
}

function editDistance(a: string, b: string): number {
  if (a === b) return 0
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}
