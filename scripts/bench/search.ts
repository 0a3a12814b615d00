/**
 * Benchmark 10 (issue 29): search_files against ripgrep and grep on three trees — small (this
 * repository's sources), this repository's dependencies (node_modules copied to a plain folder) and
 * a generated tree of `--search-files` files — in content and files mode. search_files is timed
 * in-process (`host.call`: the CLI's start-up taken off), ripgrep and grep as processes whose output
 * is read through a pipe; each figure is the median of 5 runs, the tools taking turns.
 */
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { silentLogger } from '../../src/contract/logger.js'
import { chooseSearchEngine } from '../../src/search/find-ripgrep.js'
import { searchTree } from '../../src/search/search-tree.js'
import type { SearchEngine } from '../../src/search/search-types.js'
import { Workspace } from '../../src/workspace/workspace.js'
import type { BenchOptions } from './options.js'
import { fmt, median, verdict, type Cell, type Table } from './table.js'

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const RUNS = 5
const NEEDLE = 'zq_needle_[0-9]+'
const JS: SearchEngine = { kind: 'javascript', reason: 'the benchmark compares it' }
// The rules search_files applies that plain ripgrep does not, so ripgrep searches the same files.
const RG_RULES = ['--no-config', '--hidden', '--no-require-git', '--glob=!node_modules/', '--glob=!.git/']

interface Tree { name: string; dir: string }
interface Query { mode: 'content' | 'files'; pattern: string; maxResults: number; rg: string[]; grep: string[] | undefined; other: string }

export async function runSearch(options: BenchOptions): Promise<{ tables: Table[]; targets: string[] }> {
  const engine = await chooseSearchEngine()
  if (engine.kind !== 'ripgrep') throw new Error(`the search benchmark needs ripgrep: ${engine.reason}`)
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-search-'))
  const rows: Cell[][] = []
  const targets: string[] = []
  try {
    const trees = buildTrees(base, options.searchFiles)
    for (const tree of trees) {
      const files = (await runProcess(engine.binary, [...RG_RULES, '--files'], tree.dir)).lines
      const host = await createHost({ root: tree.dir, cwd: tree.dir, log: silentLogger, config: { env_file: '', store: 'memory', plugins: { dirs: [] }, permissions: { mode: 'bypass' }, search_files: { max_results: 1_000_000 } } })
      try {
        for (const query of queries()) {
          const row = await measure(host, tree, query, engine)
          rows.push([tree.name, files, query.mode, query.pattern === NEEDLE ? `${query.pattern} (a full scan)` : `${query.pattern} (first ${query.maxResults})`, ...row.cells])
          if (tree.name.startsWith('dependencies') && query.mode === 'content' && query.pattern === NEEDLE) {
            targets.push(`search_files ≤ 1.5× rg on the dependencies tree (${files} files, a full content scan): ${fmt(row.ratio, 2)}× — ${verdict(row.ratio <= 1.5)}; same file:line matches as rg: ${row.same ? 'yes' : 'NO'}`)
          }
        }
      } finally {
        await host.close()
      }
    }
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
  return {
    tables: [{
      title: `search_files against ripgrep and grep (median of ${RUNS} ms; ripgrep ${engine.version} from ${engine.source})`,
      headers: ['tree', 'files', 'mode', 'pattern', 'search_files', 'JS engine', 'rg', 'grep -rn / find', 'search_files / rg', 'matches (search_files / rg)'],
      rows,
      notes: [
        'search_files: `host.call` in this process (no CLI start-up), max_results as shown; JS engine: the same search through `searchTree` with the JavaScript engine.',
        `rg: the same binary with search_files' rules (${RG_RULES.join(' ')}), -n (content) or --files; its whole output read through a pipe.`,
        'grep -rn -E (content; --exclude-dir=node_modules --exclude-dir=.git, no .gitignore) and find -type f (files mode), output through a pipe.',
        'A "first N" search_files row stops at N + 1 matches; rg and grep print every match.',
      ],
    }],
    targets,
  }
}

function queries(): Query[] {
  return [
    { mode: 'content', pattern: NEEDLE, maxResults: 1_000_000, rg: ['-n', `--regexp=${NEEDLE}`], grep: ['-rn', '-E', NEEDLE, '--exclude-dir=node_modules', '--exclude-dir=.git', '.'], other: 'grep' },
    { mode: 'content', pattern: 'function', maxResults: 200, rg: ['-n', '--regexp=function'], grep: ['-rn', 'function', '--exclude-dir=node_modules', '--exclude-dir=.git', '.'], other: 'grep' },
    { mode: 'files', pattern: NEEDLE, maxResults: 1_000_000, rg: ['--files'], grep: undefined, other: 'find' },
  ]
}

async function measure(host: Host, tree: Tree, query: Query, engine: Extract<SearchEngine, { kind: 'ripgrep' }>): Promise<{ cells: Cell[]; ratio: number; same: boolean }> {
  const args = { pattern: query.pattern, target: query.mode, max_results: query.maxResults }
  const ws = new Workspace(tree.dir, { deny: host.config.workspace.deny })
  const request = { start: ws.resolve('.', 'read'), pattern: query.pattern, ignoreCase: false, target: query.mode, glob: undefined, maxResults: query.maxResults, signal: new AbortController().signal }
  const times = { sf: [] as number[], js: [] as number[], rg: [] as number[], other: [] as number[] }
  let sfLines: string[] = []
  let rgLines: string[] = []
  let rgCount = 0
  const other = query.grep === undefined ? { binary: 'find', args: ['.', '-type', 'f', '-not', '-path', '*/node_modules/*', '-not', '-path', '*/.git/*'] } : { binary: 'grep', args: query.grep }
  for (let run = 0; run <= RUNS; run++) {
    // Run 0 warms the page cache and is not counted.
    let t0 = performance.now()
    const result = await host.call({ id: `s${run}`, name: 'search_files', arguments: args })
    const sf = performance.now() - t0
    if (!result.ok) throw new Error(`search_files failed: ${result.content}`)
    sfLines = result.content.startsWith('no ') ? [] : result.content.split('\n').filter((l) => !l.startsWith('[showing'))
    t0 = performance.now()
    await searchTree(ws, request, { deny: host.config.workspace.deny, engine: JS })
    const js = performance.now() - t0
    t0 = performance.now()
    const printed = await runProcess(engine.binary, [...RG_RULES, ...query.rg], tree.dir)
    rgLines = printed.output
    rgCount = query.pattern === NEEDLE ? printed.output.length : printed.lines
    const rg = performance.now() - t0
    t0 = performance.now()
    await runProcess(other.binary, other.args, tree.dir)
    const o = performance.now() - t0
    if (run === 0) continue
    times.sf.push(sf)
    times.js.push(js)
    times.rg.push(rg)
    times.other.push(o)
  }
  const sf = median(times.sf)
  const rg = median(times.rg)
  const matchesOf = (lines: string[]): string[] => lines.map((l) => (query.mode === 'files' ? l : /^(.*?:\d+):/.exec(l)?.[1] ?? l))
  // The needle's matches must be the same file:line (content) or paths (files) as ripgrep's.
  const same = query.pattern !== NEEDLE || JSON.stringify(matchesOf(sfLines).sort()) === JSON.stringify(matchesOf(rgLines).sort())
  return { cells: [fmt(sf, 0), fmt(median(times.js), 0), fmt(rg, 0), fmt(median(times.other), 0), `${fmt(sf / rg, 2)}×`, `${sfLines.length} / ${rgCount}${same ? '' : ' (DIFFER)'}`], ratio: sf / rg, same }
}

function runProcess(binary: string, args: string[], cwd: string): Promise<{ lines: number; output: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] })
    const kept: string[] = []
    let lines = 0
    let rest = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      const parts = (rest + chunk).split(/\n|\0/)
      rest = parts.pop() ?? ''
      lines += parts.length
      // Only the needle's lines are compared; other output is counted, not kept.
      for (const part of parts) if (part.includes('zq_needle_')) kept.push(part)
    })
    child.once('error', reject)
    child.once('close', () => resolve({ lines: lines + (rest === '' ? 0 : 1), output: kept }))
  })
}

function buildTrees(base: string, generatedFiles: number): Tree[] {
  const small = path.join(base, 'small')
  for (const part of ['src', 'plugins', 'docs', 'scripts']) cpSync(path.join(REPO, part), path.join(small, part), { recursive: true, verbatimSymlinks: true })
  const deps = path.join(base, 'deps')
  cpSync(path.join(REPO, 'node_modules'), deps, { recursive: true, verbatimSymlinks: true })
  const generated = path.join(base, 'generated')
  generateTree(generated, generatedFiles)
  return [
    { name: 'small (this repository: src, plugins, docs, scripts)', dir: small },
    { name: 'dependencies (node_modules copied to a plain folder)', dir: deps },
    { name: `generated (${generatedFiles} files)`, dir: generated },
  ]
}

// Folders of 100 files, 10 to a parent; every 997th file holds a needle line, every 4999th is named after one.
function generateTree(root: string, count: number): void {
  const words = ['const', 'function', 'return', 'value', 'export', 'import', 'data', 'index', 'render', 'state']
  let seed = 29
  const next = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, `d${Math.floor(i / 1000)}`, `e${Math.floor(i / 100) % 10}`)
    if (i % 100 === 0) mkdirSync(dir, { recursive: true })
    const lines = Array.from({ length: 8 }, () => Array.from({ length: 6 }, () => words[Math.floor(next() * words.length)]).join(' '))
    if (i % 997 === 0) lines.push(`zq_needle_${i} found here`)
    writeFileSync(path.join(dir, i % 4999 === 0 ? `zq_needle_${i}.txt` : `f${i}.txt`), `${lines.join('\n')}\n`)
  }
}
