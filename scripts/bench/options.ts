/** Command-line flags of `npm run bench` (scripts only). */

export const BENCHMARK_NAMES = ['scheduling', 'cost', 'startup', 'memory', 'stress', 'mcp', 'store', 'instances', 'project', 'streaming', 'search'] as const
export type BenchmarkName = (typeof BENCHMARK_NAMES)[number]

export interface BenchOptions {
  quick: boolean
  only: BenchmarkName[]
  seed: number
  /** Scheduling: batches on the virtual clock, and on the real clock. */
  batches: number
  realBatches: number
  /** Scheduling, real clock: simulated durations are multiplied by this. */
  realScale: number
  maxWorkers: number
  /** Scheduling: also search the best schedule of every batch at tighter limits (slow; off by default). */
  optimum: boolean
  /** Cost: runs per figure (the median is reported). */
  runs: number
  /** Start-up: generated plugin files, and spawns per command (best of). */
  plugins: number
  spawns: number
  /** Memory: calls of 1 MB results. */
  memoryCalls: number
  /** Stress: calls. */
  stressCalls: number
  /** Streaming: calls in the reply, and the seconds the server takes to write them. */
  streamCalls: number
  streamSeconds: number
  /** Project start-up: more Node binaries to measure, besides the one running the benchmark. */
  nodes: string[]
  /** Search: files of the generated tree. */
  searchFiles: number
}

export const USAGE = `usage: npm run bench [-- FLAGS]
  --quick              a run under 30 s (fewer batches, calls and spawns; no project or instances benchmark)
  --only=a,b           run only these: ${BENCHMARK_NAMES.join(', ')}
  --seed=N             generator seed (default 1)
  --batches=N          scheduling: batches on the virtual clock (default 1000, quick 150)
  --real-batches=N     scheduling: batches on the real clock (default 80, quick 8)
  --real-scale=X       scheduling: real sleeps are the simulated durations × X (default 0.5)
  --workers=N          scheduling: max_workers (default 8, the config default)
  --optimum            scheduling: also search each batch's best schedule at 2-4 workers (slow)
  --runs=N             cost, store: runs per figure, median reported (default 9, quick 5)
  --plugins=N          start-up: generated plugin files (default 1000, quick 100)
  --spawns=N           start-up: spawns per command, the best is reported; project: rounds (default 7, quick 1)
  --memory-calls=N     memory: calls with 1 MB results (default 10000, quick 500)
  --stress-calls=N     stress: calls (default 100000, quick 10000)
  --stream-calls=N     streaming: calls in the streamed reply (default 10, quick 4)
  --stream-seconds=T   streaming: seconds the server takes to write them (default 2, quick 0.4)
  --nodes=PATH,PATH    project: more Node binaries, a table each (default: only the running Node)
  --search-files=N     search: files of the generated tree (default 100000)`

/** Parses the flags; throws with the usage text on an unknown or malformed flag. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const quick = argv.includes('--quick')
  const options: BenchOptions = {
    quick,
    // The project benchmark installs the tarball with npm (a minute or more), instances starts
    // servers, Redis and nginx, search copies node_modules and writes 100k files: not in a quick run.
    only: BENCHMARK_NAMES.filter((name) => !quick || (name !== 'project' && name !== 'instances' && name !== 'search')),
    seed: 1,
    batches: quick ? 150 : 1000,
    realBatches: quick ? 8 : 80,
    realScale: 0.5,
    maxWorkers: 8,
    optimum: argv.includes('--optimum'),
    runs: quick ? 5 : 9,
    plugins: quick ? 100 : 1000,
    spawns: quick ? 1 : 7,
    memoryCalls: quick ? 500 : 10_000,
    stressCalls: quick ? 10_000 : 100_000,
    streamCalls: quick ? 4 : 10,
    streamSeconds: quick ? 0.4 : 2,
    nodes: [],
    searchFiles: 100_000,
  }
  const numeric: Record<string, keyof BenchOptions> = {
    '--seed': 'seed',
    '--batches': 'batches',
    '--real-batches': 'realBatches',
    '--real-scale': 'realScale',
    '--workers': 'maxWorkers',
    '--runs': 'runs',
    '--plugins': 'plugins',
    '--spawns': 'spawns',
    '--memory-calls': 'memoryCalls',
    '--stress-calls': 'stressCalls',
    '--stream-calls': 'streamCalls',
    '--stream-seconds': 'streamSeconds',
    '--search-files': 'searchFiles',
  }
  for (const arg of argv) {
    if (arg === '--quick' || arg === '--optimum') continue
    if (arg === '--help' || arg === '-h') throw new Error(USAGE)
    const [flag, value] = arg.split('=', 2) as [string, string | undefined]
    if (flag === '--nodes' && value) {
      options.nodes = value.split(',').filter((n) => n !== '')
      continue
    }
    if (flag === '--only' && value) {
      const names = value.split(',')
      const bad = names.filter((n) => !(BENCHMARK_NAMES as readonly string[]).includes(n))
      if (bad.length > 0) throw new Error(`unknown benchmark ${bad.join(', ')}\n${USAGE}`)
      options.only = names as BenchmarkName[]
      continue
    }
    const key = numeric[flag]
    const n = Number(value)
    if (key === undefined || value === undefined || !Number.isFinite(n) || n <= 0) throw new Error(`bad flag ${arg}\n${USAGE}`)
    ;(options as unknown as Record<string, number>)[key] = n
  }
  return options
}
