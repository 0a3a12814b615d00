/** Table printing and small statistics shared by the benchmarks (scripts only; not part of the host). */

export type Cell = string | number

/** One printed table: a title, a header row, rows, and notes under it. */
export interface Table {
  title: string
  headers: string[]
  rows: Cell[][]
  notes?: string[]
}

/** Renders a table as GitHub Markdown (readable in a terminal too), numbers right-aligned. */
export function renderTable(table: Table): string {
  const cells = [table.headers, ...table.rows.map((r) => r.map(String))]
  const widths = table.headers.map((_, c) => Math.max(3, ...cells.map((r) => String(r[c] ?? '').length)))
  const numeric = table.headers.map((_, c) => table.rows.length > 0 && table.rows.every((r) => typeof r[c] === 'number' || /^([-+]?[\d.,/]+( ?[%×a-zµ/]+)?|—)$/i.test(String(r[c]))))
  const line = (row: Cell[]): string =>
    `| ${row.map((v, c) => (numeric[c] ? String(v).padStart(widths[c]!) : String(v).padEnd(widths[c]!))).join(' | ')} |`
  const rule = `| ${widths.map((w, c) => (numeric[c] ? '-'.repeat(w - 1) + ':' : '-'.repeat(w))).join(' | ')} |`
  const out = [`### ${table.title}`, '', line(table.headers), rule, ...table.rows.map(line)]
  if (table.notes && table.notes.length > 0) out.push('', ...table.notes.map((n) => `- ${n}`))
  return out.join('\n') + '\n'
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function sum(values: readonly number[]): number {
  let total = 0
  for (const v of values) total += v
  return total
}

/** A number with a fixed count of decimals and thousands separators. */
export function fmt(value: number, decimals = 1): string {
  if (!Number.isFinite(value)) return String(value)
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
}

/** "met" or "MISSED" for a target, with the figure. */
export function verdict(met: boolean): string {
  return met ? 'met' : 'MISSED'
}

/** Waits until the event loop has run every pending callback once more (microtasks first). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
