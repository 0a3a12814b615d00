// Links between the manual's pages resolve: every relative link of README.md and docs/*.md names a
// file that exists and, with a `#anchor`, a heading of that file (GitHub's heading anchors); and
// every docs page is linked from the README.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]

const text = (page: string): string => readFileSync(path.join(ROOT, page), 'utf8')

/** The page's lines outside fenced code blocks, with their line numbers. */
function proseLines(markdown: string): Array<{ text: string; line: number }> {
  let fenced = false
  const lines: Array<{ text: string; line: number }> = []
  markdown.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    else if (!fenced) lines.push({ text: line, line: i + 1 })
  })
  return lines
}

/** GitHub's anchor for a heading: its rendered text lower-cased, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  const rendered = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
  return rendered.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-')
}

/** Every anchor of a page, with GitHub's `-1`, `-2` … for repeated headings. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { text: line } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = headingAnchor(heading)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}

/** Relative links of a page (not URLs), with their line numbers; inline code spans are not links. */
function linksOf(markdown: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = []
  for (const { text: line, line: n } of proseLines(markdown)) {
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, line: n })
    }
  }
  return links
}

describe('links between README.md and docs/*.md resolve', () => {
  test.each([
    ['Seeing the plan: `run --trace` and `explain`', 'seeing-the-plan-run---trace-and-explain'],
    ['`createHost(options)`', 'createhostoptions'],
    ['MCP client (mcp_servers)', 'mcp-client-mcp_servers'],
    ['Talking back while it runs: ctx.log, ctx.progress, ctx.ask', 'talking-back-while-it-runs-ctxlog-ctxprogress-ctxask'],
  ])('the heading %j has GitHub\'s anchor #%s', (heading, anchor) => {
    expect(headingAnchor(heading)).toBe(anchor)
  })

  test.each(PAGES)('every relative link of %s names a file and heading that exist', (page) => {
    const broken: string[] = []
    for (const { target, line } of linksOf(text(page))) {
      const [file = '', anchor] = target.split('#')
      const resolved = file === '' ? page : path.posix.join(path.posix.dirname(page), file)
      if (!existsSync(path.join(ROOT, resolved))) {
        broken.push(`${page}:${line}: ${target} (no file ${resolved})`)
        continue
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(text(resolved)).has(anchor)) {
        broken.push(`${page}:${line}: ${target} (no heading #${anchor} in ${resolved})`)
      }
    }
    expect(broken).toEqual([])
  })

  test('every docs page is linked from the README', () => {
    const linked = new Set(linksOf(text('README.md')).map((l) => l.target.split('#')[0]))
    expect(PAGES.filter((p) => p !== 'README.md' && !linked.has(p))).toEqual([])
  })
})
