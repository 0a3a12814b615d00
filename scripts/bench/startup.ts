import type { BenchOptions } from './options.js'
import type { Table } from './table.js'
export async function runStartup(_options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  return { tables: [], targets: [] }
}
