// What the docs and examples tell a reader to use is current and reachable (issue 24.19): every model
// name is one the installed SDK lists (a Claude model not among those its SDK warns have reached or
// near end of life), and the docs the package ships name no repository file it leaves out.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { describe, expect, test } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const require = createRequire(import.meta.url)
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8')
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), ...readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.ts')).map((f) => `examples/${f}`)]

/** The string literals of a type alias in a .d.ts (`export type Model = 'a' | 'b' | (string & {})`). */
function unionOf(dts: string, name: string): Set<string> {
  const line = new RegExp(`export type ${name} = ([^;]+);`).exec(dts)?.[1] ?? ''
  return new Set([...line.matchAll(/'([^']+)'/g)].map((m) => m[1]!))
}

const anthropicDir = path.dirname(require.resolve('@anthropic-ai/sdk'))
const CLAUDE_MODELS = unionOf(readFileSync(path.join(anthropicDir, 'resources/messages/messages.d.ts'), 'utf8'), 'Model')
const CLAUDE_DEPRECATED = new Set([...readFileSync(path.join(anthropicDir, 'internal/data/deprecated-models.js'), 'utf8').matchAll(/'(claude-[^']+)':/g)].map((m) => m[1]!))
const GPT_MODELS = unionOf(readFileSync(path.join(path.dirname(require.resolve('openai')), 'resources/shared.d.ts'), 'utf8'), 'ChatModel')

const named = (pattern: RegExp): Array<{ page: string; model: string }> => PAGES.flatMap((page) => [...read(page).matchAll(pattern)].map((m) => ({ page, model: m[1]! })))

describe('model names in the docs and examples', () => {
  test('the SDKs\' lists were read (the check below can fail)', () => {
    expect(CLAUDE_MODELS.size).toBeGreaterThan(5)
    expect(CLAUDE_DEPRECATED.has('claude-sonnet-4-5')).toBe(true)
    expect(GPT_MODELS.size).toBeGreaterThan(5)
  })

  test('every Claude model named is in @anthropic-ai/sdk\'s Model union and not on its end-of-life list', () => {
    const claude = named(/['"`](claude-[a-z0-9-]+)['"`]/g)
    expect(claude.length).toBeGreaterThan(0)
    expect(claude.filter((c) => !CLAUDE_MODELS.has(c.model) || CLAUDE_DEPRECATED.has(c.model))).toEqual([])
  })

  test('every OpenAI model named is in the openai SDK\'s ChatModel union', () => {
    const gpt = named(/['"`](gpt-[a-z0-9.-]+)['"`]/g)
    expect(gpt.length).toBeGreaterThan(0)
    expect(gpt.filter((g) => !GPT_MODELS.has(g.model))).toEqual([])
  })
})

// Every page the package ships (README.md, docs/) is read from node_modules/toolhost too, where
// BENCHMARKS.md, src/, plugins/*.ts and test/ are not (issue 31): a link goes only to a shipped file,
// and a repository file the package leaves out is named only as the repository's, in the same paragraph.
// docs/architecture.md is the contributors' map of the repository and says so in its first lines.
const SHIPPED_PAGES = PAGES.filter((page) => page.endsWith('.md'))
const REPOSITORY_PAGES = new Set(['docs/architecture.md'])
const FILES = (JSON.parse(read('package.json')) as { files: string[] }).files
const shipped = (p: string): boolean => p === 'package.json' || FILES.some((entry) => (entry.endsWith('/') ? p.startsWith(entry) : p === entry))

/** The page's paragraphs (lines between blank lines) outside fenced code blocks, with their first line's number. */
function proseOf(page: string): Array<{ text: string; line: number }> {
  let fenced = false
  const paragraphs: Array<{ text: string; line: number }> = []
  let open: { text: string; line: number } | undefined
  read(page).split('\n').forEach((text, i) => {
    const fence = /^\s*(```|~~~)/.test(text)
    if (fence) fenced = !fenced
    if (fence || fenced || text.trim() === '') {
      open = undefined
      return
    }
    if (open) open.text += '\n' + text
    else paragraphs.push((open = { text, line: i + 1 }))
  })
  return paragraphs
}

/** A repository file (or a folder of test/) a line names in backticks, that the package leaves out. */
function unshippedNamed(text: string): string[] {
  return [...text.matchAll(/`\.?\/?((?:src|test|scripts|examples|bin|plugins|api|dist|\.ci)\/[^`\s*]*|[A-Z]+\.md)`/g)]
    .map((m) => m[1]!)
    .filter((p) => !shipped(p) && existsSync(path.join(ROOT, p)) && (statSync(path.join(ROOT, p)).isFile() || p.startsWith('test/')))
}

describe('the shipped docs send readers only to files the package ships', () => {
  test('the check can fail: it sees a file left out', () => {
    expect(unshippedNamed('see `src/config/schema.ts` and `BENCHMARKS.md`, not `plugins/NAME.ts` or `docs/cli.md`')).toEqual(['src/config/schema.ts', 'BENCHMARKS.md'])
  })

  test.each(SHIPPED_PAGES)('%s links only to shipped files', (page) => {
    const links = proseOf(page).flatMap(({ text, line }) => [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => ({ line, target: m[1]! })))
    const local = links.filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target)).map((l) => ({ line: l.line, file: path.normalize(path.join(path.dirname(page), l.target)) }))
    expect(local.filter((l) => !shipped(l.file))).toEqual([])
  })

  test.each(SHIPPED_PAGES.filter((page) => !REPOSITORY_PAGES.has(page)))('%s names a repository file the package leaves out only as the repository\'s', (page) => {
    const faults = proseOf(page).flatMap(({ text, line }) => (/\brepository('s)?\b/.test(text) ? [] : unshippedNamed(text).map((file) => `${page}:${line}: ${file}`)))
    expect(faults).toEqual([])
  })

  test('docs/architecture.md says at its top that its paths are the repository\'s', () => {
    expect(read('docs/architecture.md').split('\n').slice(0, 6).join(' ')).toMatch(/Paths are from the repository root/)
  })
})
