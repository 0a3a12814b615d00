/**
 * A seeded generator of realistic agent batches, the small tools they call, and each batch's lower
 * bound (scripts only). The tools are benchmark stand-ins: they sleep for the call's `ms` and touch
 * nothing, but declare the same behaviour as the real file, search and terminal tools.
 */
import { defineTool } from '../../src/contract/define-tool.js'
import type { ToolRegistry } from '../../src/registry/registry.js'
import type { ToolCall } from '../../src/contract/types.js'
import { conflictReason, type Footprint } from '../../src/dispatch/admit/footprint.js'

/** mulberry32: a small, fast, seedable PRNG with a uniform [0, 1) output. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
}

/** A small source tree: folders and the files under them (parent/child overlaps are real). */
export const TREE_FOLDERS = ['.', 'src', 'src/lib', 'src/ui', 'test', 'docs']
export const TREE_FILES = [
  'src/index.ts',
  'src/config.ts',
  'src/lib/paths.ts',
  'src/lib/queue.ts',
  'src/lib/cache.ts',
  'src/ui/app.tsx',
  'src/ui/list.tsx',
  'test/paths.test.ts',
  'test/queue.test.ts',
  'docs/guide.md',
  'README.md',
  'package.json',
]

type Sleep = (ms: number, signal: AbortSignal) => Promise<void>

const timed = { type: 'object', properties: { ms: { type: 'number', minimum: 0 } }, required: ['ms'], additionalProperties: false } as const
const pathTimed = {
  type: 'object',
  properties: { path: { type: 'string', minLength: 1 }, ms: { type: 'number', minimum: 0 } },
  required: ['path', 'ms'],
  additionalProperties: false,
} as const

/** The benchmark's stand-in tools; each waits `ms` on the given sleep (virtual or real). */
export function registerAgentTools(registry: ToolRegistry, sleep: Sleep): void {
  const wait = async (args: { ms: number }, ctx: { call: { signal: AbortSignal } }): Promise<string> => {
    await sleep(args.ms, ctx.call.signal)
    return 'ok'
  }
  const tools = [
    // read_file-like: reads one path.
    defineTool<{ path: string; ms: number }>({ name: 'b_read', description: 'Read a file (benchmark stand-in).', parameters: pathTimed, pathScoped: true, readOnly: () => true, handler: wait }),
    // write_file-like: writes one path.
    defineTool<{ path: string; ms: number }>({ name: 'b_write', description: 'Write a file (benchmark stand-in).', parameters: pathTimed, pathScoped: true, handler: wait }),
    // patch-like: reads and writes one path through an explicit scope.
    defineTool<{ path: string; ms: number }>({ name: 'b_patch', description: 'Patch a file (benchmark stand-in).', parameters: pathTimed, pathScoped: true, scope: (a) => [{ path: a.path, access: 'write' }], handler: wait }),
    // search-like: reads a whole folder.
    defineTool<{ path: string; ms: number }>({ name: 'b_search', description: 'Search a folder (benchmark stand-in).', parameters: pathTimed, pathScoped: true, readOnly: () => true, handler: wait }),
    // web-fetch-like: touches nothing in the workspace.
    defineTool<{ ms: number }>({ name: 'b_fetch', description: 'Fetch a URL (benchmark stand-in).', parameters: timed, parallelSafe: true, readOnly: () => true, handler: wait }),
    // terminal-like: neither parallel-safe nor path-scoped, so a barrier.
    defineTool<{ ms: number }>({ name: 'b_terminal', description: 'Run a command (benchmark stand-in).', parameters: timed, handler: wait }),
    // clarify-like: never parallel.
    defineTool<{ ms: number }>({ name: 'b_ask', description: 'Ask the user (benchmark stand-in).', parameters: timed, neverParallel: true, handler: wait }),
  ]
  for (const tool of tools) registry.register(tool)
}

export interface GeneratedCall {
  call: ToolCall
  name: string
  args: { ms: number; path?: string }
}

/** Share of each kind of call (sums to 1): read-heavy, as agent batches are. */
const MIX: Array<[string, number]> = [
  ['b_read', 0.36],
  ['b_patch', 0.16],
  ['b_write', 0.1],
  ['b_search', 0.12],
  ['b_fetch', 0.1],
  ['b_terminal', 0.13],
  ['b_ask', 0.03],
]

/**
 * One batch: 2 to 16 calls (small batches more likely). Files are drawn mostly from a per-batch focus
 * set of 3 (an agent reads, then patches, the same few files); durations are log-normal with a
 * median of 20 ms (σ 0.9, so a long tail), terminal calls 3× longer, capped at 2 s.
 */
export function generateBatch(random: () => number, batchIndex: number): GeneratedCall[] {
  const size = 2 + Math.floor(15 * random() ** 1.6)
  const focus = [0, 1, 2].map(() => TREE_FILES[Math.floor(random() * TREE_FILES.length)]!)
  const file = (): string => (random() < 0.7 ? focus[Math.floor(random() * focus.length)]! : TREE_FILES[Math.floor(random() * TREE_FILES.length)]!)
  const calls: GeneratedCall[] = []
  for (let i = 0; i < size; i++) {
    let r = random()
    let name = MIX[MIX.length - 1]![0]
    for (const [kind, share] of MIX) {
      if (r < share) {
        name = kind
        break
      }
      r -= share
    }
    const factor = name === 'b_terminal' ? 3 : 1
    const ms = Math.round(Math.min(2000, factor * 20 * Math.exp(0.9 * normal(random))) * 10) / 10
    const args: { ms: number; path?: string } = { ms }
    if (name === 'b_search') args.path = TREE_FOLDERS[Math.floor(random() * TREE_FOLDERS.length)]!
    else if (name === 'b_read' || name === 'b_write' || name === 'b_patch') args.path = file()
    calls.push({ name, args, call: { id: `b${batchIndex}_c${i}`, name, arguments: JSON.stringify(args) } })
  }
  return calls
}

export interface LowerBound {
  criticalPath: number
  workBound: number
  bound: number
}

/**
 * The larger of the critical path through the conflict graph (a call follows every earlier call it
 * conflicts with, by the scheduler's own rule) and total work ÷ max_workers.
 */
export function lowerBound(durations: readonly number[], footprints: readonly Footprint[], maxWorkers: number): LowerBound {
  const finish: number[] = []
  let criticalPath = 0
  let work = 0
  for (let j = 0; j < durations.length; j++) {
    let start = 0
    for (let i = 0; i < j; i++) {
      if (finish[i]! > start && conflictReason(footprints[i]!, footprints[j]!, 'x') !== undefined) start = finish[i]!
    }
    finish.push(start + durations[j]!)
    criticalPath = Math.max(criticalPath, finish[j]!)
    work += durations[j]!
  }
  const workBound = work / maxWorkers
  return { criticalPath, workBound, bound: Math.max(criticalPath, workBound) }
}
