/**
 * Benchmark 3 — start-up: `toolhost list` in a fresh process with the built-in plugins, and with
 * generated plugin files added through `--plugins`, next to `node -e 0` spawned in the same run.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { BenchOptions } from './options.js'
import { fmt, median, type Table } from './table.js'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

interface Spawned {
  ms: number
  tools: number | undefined
}

function spawnTimed(args: string[]): Spawned {
  const t0 = performance.now()
  const child = spawnSync(process.execPath, args, { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 })
  const ms = performance.now() - t0
  if (child.status !== 0) throw new Error(`start-up benchmark: node ${args.join(' ')} exited ${child.status}: ${child.stderr.slice(0, 500)}`)
  let tools: number | undefined
  if (args.includes('--json')) tools = (JSON.parse(child.stdout) as { tools: unknown[] }).tools.length
  return { ms, tools }
}

/** Writes `count` plugin files, one tool each, importing only from 'toolhost' as a plugin must. */
function generatePlugins(dir: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const name = `gen_${String(i).padStart(5, '0')}`
    writeFileSync(
      path.join(dir, `${name}.ts`),
      `import { defineTool, registry } from 'toolhost'

registry.register(
  defineTool<{ text: string }>({
    name: '${name}',
    toolset: 'generated',
    description: 'Generated plugin ${i}: echoes its text.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    parallelSafe: true,
    handler: (args) => args.text,
  }),
)
`,
    )
  }
}

/** Runs benchmark 3 and returns its table. */
export async function runStartup(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-plugins-'))
  try {
    generatePlugins(dir, options.plugins)
    const commands: Array<{ what: string; args: string[] }> = [
      { what: 'node -e 0', args: ['-e', '0'] },
      { what: 'toolhost list (built-in plugins)', args: ['bin/toolhost.mjs', 'list', '--json'] },
      { what: `toolhost list --plugins DIR (+${options.plugins} generated files)`, args: ['bin/toolhost.mjs', 'list', '--json', '--plugins', dir] },
    ]
    const rows: (string | number)[][] = []
    let base = 0
    for (const { what, args } of commands) {
      // The first spawn is the cold one (tsx's transform cache for new files is empty).
      const first = spawnTimed(args)
      const rest = Array.from({ length: options.spawns - 1 }, () => spawnTimed(args))
      // With one spawn only (--quick), the first spawn is the figure.
      const warm = rest.length > 0 ? median(rest.map((r) => r.ms)) : first.ms
      if (what === 'node -e 0') base = warm
      rows.push([what, first.tools ?? '—', fmt(first.ms, 0), rest.length > 0 ? fmt(warm, 0) : '—', what === 'node -e 0' ? '—' : fmt(warm - base, 0)])
    }
    return {
      tables: [
        {
          title: `3. Start-up — fresh processes (${options.spawns > 1 ? `first spawn, then median of ${options.spawns - 1} more` : 'one spawn each'})`,
          headers: ['command', 'tools listed', 'first spawn (ms)', 'median after (ms)', 'over node -e 0 (ms)'],
          rows,
          notes: [
            'each plugin file is TypeScript importing from \'toolhost\', loaded through tsx one after another as the loader does; "first spawn" includes tsx compiling the new files (its cache is then warm)',
          ],
        },
      ],
      targets: [],
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
