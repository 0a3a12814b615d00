import picomatch from 'picomatch'

/** One entry of config `rate_limits`: at most `calls` starts in any `per_ms` window, and/or `concurrency` at once. */
export interface RateLimit {
  calls?: number
  per_ms?: number
  concurrency?: number
}

/** A `rate_limits` key made ready to match tools: a tool name, a glob over names, or a toolset. */
export interface RateRule {
  /** The key as written in config: it names the group in events, `explain` and `doctor`. */
  readonly key: string
  readonly limit: Readonly<RateLimit>
  /** 0: the key is the tool's name; 1: its toolset; 2: a glob matching its name. */
  rank(name: string, toolset: string): 0 | 1 | 2 | undefined
}

/**
 * Compiles config `rate_limits` in file order.
 *
 * @example
 * const rules = compileRateLimits({ web_search: { calls: 2, per_ms: 1000 }, 'mcp_github_*': { concurrency: 2 } })
 * rateRuleFor(rules, 'mcp_github_search', 'mcp')?.key // 'mcp_github_*'
 */
export function compileRateLimits(limits: Readonly<Record<string, RateLimit>>): RateRule[] {
  return Object.entries(limits).map(([key, limit]) => {
    const glob = picomatch.scan(key).isGlob ? picomatch(key, { dot: true }) : undefined
    return {
      key,
      limit: { ...limit },
      rank(name: string, toolset: string) {
        if (key === name) return 0
        if (key === toolset) return 1
        return glob?.(name) ? 2 : undefined
      },
    }
  })
}

/**
 * The one rule a tool's calls fall under: a key naming the tool wins over one naming its toolset,
 * which wins over a glob; among equals, the first in the file. Undefined when none matches.
 *
 * @example
 * rateRuleFor(rules, 'web_search', 'web') // the `web_search` rule, even if a `web` toolset rule comes first
 */
export function rateRuleFor(rules: readonly RateRule[], name: string, toolset: string): RateRule | undefined {
  let best: RateRule | undefined
  let bestRank = 3
  for (const rule of rules) {
    const rank = rule.rank(name, toolset)
    if (rank !== undefined && rank < bestRank) {
      best = rule
      bestRank = rank
      if (rank === 0) break
    }
  }
  return best
}

/**
 * A rate limit in words, for `explain`, `doctor` and the trace.
 *
 * @example
 * describeRateLimit({ calls: 2, per_ms: 1000, concurrency: 1 }) // '2 calls per 1000 ms, 1 at once'
 */
export function describeRateLimit(limit: Readonly<RateLimit>): string {
  const parts: string[] = []
  if (limit.calls !== undefined && limit.per_ms !== undefined) parts.push(`${limit.calls} call${limit.calls === 1 ? '' : 's'} per ${limit.per_ms} ms`)
  if (limit.concurrency !== undefined) parts.push(`${limit.concurrency} at once`)
  return parts.join(', ')
}

/**
 * A limit in few words, as a person reads it beside a call: `2 per s`, `1 per 10 s`, `5 per min`,
 * `3 per 250 ms`, `2 at once`, joined by a comma when it has both.
 *
 * @example
 * describeRatePace({ calls: 2, per_ms: 1000 }) // '2 per s'
 */
export function describeRatePace(limit: Readonly<RateLimit>): string {
  const parts: string[] = []
  if (limit.calls !== undefined && limit.per_ms !== undefined) parts.push(`${limit.calls} per ${describePeriod(limit.per_ms)}`)
  if (limit.concurrency !== undefined) parts.push(`${limit.concurrency} at once`)
  return parts.join(', ')
}

function describePeriod(ms: number): string {
  if (ms === 1000) return 's'
  if (ms === 60_000) return 'min'
  if (ms === 3_600_000) return 'h'
  if (ms % 60_000 === 0 && ms > 60_000) return `${ms / 60_000} min`
  if (ms % 1000 === 0) return `${ms / 1000} s`
  return `${ms} ms`
}

/** True when two limits are the same (a reloaded config that did not change a group keeps its queue). */
export function sameRateLimit(a: Readonly<RateLimit>, b: Readonly<RateLimit>): boolean {
  return a.calls === b.calls && a.per_ms === b.per_ms && a.concurrency === b.concurrency
}
