import { lstatSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { readStateFile, stateFolderProblem } from '../../workspace/state-files.js'
import type { RateRule } from './rate-limits.js'

/** What the scheduler keeps per tool: how long its calls take (an EWMA) and its rate rule (cached). */
export interface ToolProfile {
  readonly name: string
  toolset: string
  /** Estimated ms per call; undefined until a call of this tool has run. */
  ms: number | undefined
  samples: number
  /** The `rate_limits` rule of this tool, as of `ruleVersion` (the worker pool's cache). */
  rule: RateRule | undefined
  ruleVersion: number
}

/** Weight of the newest sample in the moving average. */
const ALPHA = 0.2
/** The most tools a saved file keeps (the most sampled). */
const MAX_SAVED = 500
const FILE_VERSION = 1
// 500 tools take about 40 KB; a larger file is not one this host wrote.
const MAX_FILE_BYTES = 1 << 20

/**
 * Per-tool duration estimates: an exponentially weighted moving average of how long each tool's
 * calls held their worker, learned from the calls this host runs (and optionally from a file a
 * previous run left). Tools with no estimate count as the mean of the known ones; with none known,
 * every estimate is 0 and the pool falls back to call order.
 *
 * @example
 * const estimates = new DurationEstimates('/w/.toolhost/durations.json')
 * estimates.load((problem) => log.warn(problem))
 * const profile = estimates.profileOf('read_file', 'files')
 * estimates.record(profile, 12.5) // true: the first sample changes the picture
 * estimates.estimate(profile)     // 12.5
 */
export class DurationEstimates {
  readonly #byName = new Map<string, ToolProfile>()
  #knownSum = 0
  #known = 0
  #dirty = false
  /** Bumped when an estimate changed enough to reorder waiting calls. */
  epoch = 0
  /** Where `load` and `save` keep the estimates between runs; undefined: in memory only. */
  readonly file: string | undefined
  // The workspace root the file lies in: no folder between them may be a link (state-files.ts).
  readonly #root: string | undefined

  constructor(file?: string, root?: string) {
    this.file = file
    this.#root = root
  }

  profileOf(name: string, toolset: string): ToolProfile {
    let profile = this.#byName.get(name)
    if (profile === undefined) {
      profile = { name, toolset, ms: undefined, samples: 0, rule: undefined, ruleVersion: -1 }
      this.#byName.set(name, profile)
    } else if (profile.toolset !== toolset) {
      profile.toolset = toolset
      profile.ruleVersion = -1
    }
    return profile
  }

  /** The ms a call of this tool is expected to take: its own estimate, else the mean of the known ones, else 0. */
  estimate(profile: ToolProfile | undefined): number {
    const ms = profile?.ms
    if (ms !== undefined) return ms
    return this.#known === 0 ? 0 : this.#knownSum / this.#known
  }

  /**
   * Adds a sample. Returns true (and bumps `epoch`) when the estimate moved by more than a quarter
   * and more than 1 ms, or the tool had none: only then is it worth reordering waiting calls.
   */
  record(profile: ToolProfile, ms: number): boolean {
    if (!Number.isFinite(ms) || ms < 0) return false
    this.#dirty = true
    profile.samples++
    const before = profile.ms
    if (before === undefined) {
      profile.ms = ms
      this.#knownSum += ms
      this.#known++
      this.epoch++
      return true
    }
    const after = before + ALPHA * (ms - before)
    profile.ms = after
    this.#knownSum += after - before
    const moved = Math.abs(after - before)
    if (moved > 1 && moved > before / 4) {
      this.epoch++
      return true
    }
    return false
  }

  /** Every tool with an estimate, for `doctor` and the saved file. */
  known(): Array<{ name: string; ms: number; samples: number }> {
    return [...this.#byName.values()].flatMap((p) => (p.ms === undefined ? [] : [{ name: p.name, ms: p.ms, samples: p.samples }]))
  }

  /**
   * Takes estimates a previous run saved. A missing file is nothing to load; an unreadable or
   * malformed one is reported through `onProblem` and ignored (estimates only order waiting calls).
   */
  load(onProblem: (message: string) => void): void {
    const file = this.file
    if (file === undefined) return
    // Never through a link, never a FIFO (reading one would block start-up for good).
    const problem = this.#root === undefined ? undefined : stateFolderProblem(this.#root, file)
    const read = problem === undefined ? readStateFile(file, MAX_FILE_BYTES) : { problem }
    if (read === undefined) return
    if ('problem' in read) {
      onProblem(`the duration estimates were not loaded: ${read.problem}; starting without them`)
      return
    }
    const text = read.text
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch (error) {
      onProblem(`the duration estimates ${file} are not valid JSON (${(error as Error).message}); starting without them`)
      return
    }
    const tools = (doc as { version?: unknown; tools?: unknown } | null)?.tools
    if ((doc as { version?: unknown } | null)?.version !== FILE_VERSION || typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
      onProblem(`the duration estimates ${file} are not in the expected shape; starting without them`)
      return
    }
    this.take(Object.entries(tools).map(([name, entry]) => ({ name, ...((entry ?? {}) as { ms?: unknown; samples?: unknown }) })))
  }

  /**
   * Takes estimates learned elsewhere (a file a previous run saved, the hosts of a shared store) for
   * the tools this host has none of yet; malformed entries are skipped, at most 500 are read.
   */
  take(entries: ReadonlyArray<{ name: string; ms?: unknown; samples?: unknown }>): void {
    for (const { name, ms, samples } of entries.slice(0, MAX_SAVED)) {
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || this.#byName.get(name)?.ms !== undefined) continue
      const profile = this.profileOf(name, '')
      profile.ruleVersion = -1
      profile.ms = ms
      profile.samples = typeof samples === 'number' && Number.isInteger(samples) && samples > 0 ? samples : 1
      this.#knownSum += ms
      this.#known++
    }
    this.epoch++
  }

  /**
   * Saves the estimates when they changed (atomically: a temp file renamed over the old one; at most
   * 500 tools). A failure is reported through `onProblem`: estimates only order waiting calls.
   */
  async save(onProblem: (message: string) => void): Promise<void> {
    const file = this.file
    if (file === undefined || !this.#dirty) return
    this.#dirty = false
    const entries = this.known().sort((a, b) => b.samples - a.samples).slice(0, MAX_SAVED)
    const tools = Object.fromEntries(entries.map((e) => [e.name, { ms: Math.round(e.ms * 1000) / 1000, samples: e.samples }]))
    try {
      // A link planted at .toolhost or at the file would have this write land outside the root.
      const problem = this.#root === undefined ? undefined : stateFolderProblem(this.#root, file)
      if (problem !== undefined) throw new Error(problem)
      if (lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() === true) throw new Error(`${file} is a symbolic link (only the host writes this file; remove the link)`)
      await mkdir(path.dirname(file), { recursive: true })
      // Loaded on the first save, not at start-up (it and signal-exit are ~10–40 ms to load).
      const { default: writeFileAtomic } = await import('write-file-atomic')
      await writeFileAtomic(file, `${JSON.stringify({ version: FILE_VERSION, tools }, null, 2)}\n`, { mode: 0o600 })
    } catch (error) {
      onProblem(`cannot save the duration estimates to ${file}: ${(error as Error).message}`)
    }
  }
}
